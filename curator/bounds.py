"""How large an index the curator works on. Past these sizes a command refuses at once, in one line
naming the file and the limit, instead of running for minutes: a harness reads about 25 KB of
MEMORY.md, so an index this large is a file to split by hand before anything else.

Measured by ``bench/bench_scale.py`` (a 1/4/16/64 MiB ladder, each against one markdown-it parse of
the same text): ``check`` costs 1.2-3 parses (about 4 s of CPU at 4 MiB on a 2-core machine), while
weighing every entry against the others (merge candidates, fit's plan) costs 11-13 parses (about
4 s of CPU at 1 MiB). Files are read up to ``curator.fsio.MAX_READ_BYTES`` (64 MiB) whatever these
limits say.
"""

from __future__ import annotations

import os
from pathlib import Path

from curator.errors import InputError

MIB = 1024 * 1024
ANALYSIS_LIMIT = 4 * MIB  # check, the app, trim, merge, archive, restore, archive-search
WEIGHING_LIMIT = 1 * MIB  # candidates and fit, which compare entries with each other
CODE = "TOO_LARGE"


def _limit(weighing: bool) -> int:
    return WEIGHING_LIMIT if weighing else ANALYSIS_LIMIT  # looked up per call: tests lower them


def refuse_past(nbytes: int, path: str | Path, what: str, *, weighing: bool = False) -> None:
    """Raise the one-line refusal when ``nbytes`` is past the limit for ``what``."""
    limit = _limit(weighing)
    if nbytes > limit:
        size = f"{limit // MIB} MiB ({limit:,} B)" if limit >= MIB else f"{limit:,} B"
        raise InputError(f"is {nbytes:,} B; {what} works on files up to {size}, "
                         "and a harness reads only the first ~25 KB: split it first", path=path, code=CODE)


def refuse_large_file(path: str | Path, what: str, *, weighing: bool = False) -> None:
    """The refusal for a file on disk, by its size alone (nothing is read); absent files pass."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return  # missing or unreadable: the read that follows says so in its own words
    refuse_past(size, path, what, weighing=weighing)
