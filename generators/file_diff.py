"""A divergent fleet file's difference in the file's own lines: the fleet's version beside the disk's.

A plan decides on owned projections (values, shown as JSON), which hides the very line a person
edited in ``config.toml``. This diff is the text the operator recognises, and it is exactly what
setting the file aside and provisioning again would change. Reads only.
"""

from __future__ import annotations

import difflib
import os
import stat

from curator.errors import CuratorError
from curator.fsio import read_bytes
from generators.composer import DIVERGENT, Artifact
from generators.emission import FLEET

MAX_SHOWN_BYTES = 1024 * 1024  # a fleet file is a few KB; anything this large is not worth a text diff


def file_diff(artifact: Artifact) -> str:
    """A unified diff of what the fleet writes against the file on disk, in the file's own syntax;
    the plan's own diff when there is no text to show (not divergent, unsafe path, not UTF-8, gone)."""
    item = artifact.emitted
    if artifact.status != DIVERGENT or item is None or artifact.unsafe_at is not None or item.owner != FLEET:
        return artifact.diff
    try:
        if not stat.S_ISREG(os.lstat(artifact.path).st_mode):
            return artifact.diff  # never open a FIFO or follow a link to show a diff
        found = read_bytes(artifact.path, max_bytes=MAX_SHOWN_BYTES).decode("utf-8")
        expected = item.content.decode("utf-8")
    except (CuratorError, OSError, UnicodeDecodeError):
        return artifact.diff
    return "".join(difflib.unified_diff(_lines(expected), _lines(found), fromfile=f"{artifact.path.name} (the fleet writes)",
                                        tofile=f"{artifact.path.name} (on disk)"))


def _lines(text: str) -> list[str]:
    """Lines that each end in a newline, so a missing final newline cannot glue two diff lines."""
    return [line if line.endswith("\n") else line + "\n" for line in text.splitlines(True)]
