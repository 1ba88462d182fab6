"""How large an index the curator works on. Past these sizes a command refuses at once, in one line
naming the file and the limit, instead of running for minutes: a harness reads about 25 KB of
MEMORY.md, so an index this large is a file to split by hand before anything else.

Measured by ``bench/bench_scale.py`` (a 1/4/16/64 MiB ladder, each against one markdown-it parse of
the same text): ``check`` costs 1.2-3 parses (about 4 s of CPU at 4 MiB on a 2-core machine), while
weighing every entry against the others (merge candidates) costs about 11 parses (2-4 s of CPU at
1 MiB), and fit's plan grows faster than the index (see FIT_LIMIT). Files are read up to ``curator.fsio.MAX_READ_BYTES`` (64 MiB) whatever these
limits say.
"""

from __future__ import annotations

import os
from pathlib import Path

from curator.errors import TooLargeError

KIB = 1024
MIB = 1024 * KIB
ANALYSIS_LIMIT = 4 * MIB  # check, the app, trim, merge, archive, restore, archive-search
WEIGHING_LIMIT = 1 * MIB  # candidates, which compare entries with each other
# fit plans a fold per section and re-checks every pointer for each: cost grows faster than the
# index (0.6 s of CPU at 64 KiB, 1.5 s at 128 KiB, 7 s at 256 KiB, over 160 s at 1 MiB).
FIT_LIMIT = 128 * KIB


def _limit(kind: str) -> int:
    # Looked up per call, so a test can lower them.
    return {"analysis": ANALYSIS_LIMIT, "weighing": WEIGHING_LIMIT, "fit": FIT_LIMIT}[kind]


def _size(limit: int) -> str:
    for unit, name in ((MIB, "MiB"), (KIB, "KiB")):
        if limit >= unit and limit % unit == 0:
            return f"{limit // unit} {name} ({limit:,} B)"
    return f"{limit:,} B"


def refuse_past(nbytes: int, path: str | Path, what: str, *, kind: str = "analysis") -> None:
    """Raise the one-line refusal when ``nbytes`` is past the ``kind`` limit (analysis, weighing, fit)."""
    limit = _limit(kind)
    if nbytes > limit:
        size = _size(limit)
        raise TooLargeError(f"is {nbytes:,} B; {what} works on files up to {size}, "
                         "and a harness reads only the first ~25 KB: split it first", path=path)


def refuse_large_file(path: str | Path, what: str, *, kind: str = "analysis") -> None:
    """The refusal for a file on disk, by its size alone (nothing is read); absent files pass."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return  # missing or unreadable: the read that follows says so in its own words
    refuse_past(size, path, what, kind=kind)
