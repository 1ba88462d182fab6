"""The pointer report of the memory dir as it stands, kept between writes in the server process.

A write's result names the pointer problems it created: the report before the write against the
report after it. The report before is, most of the time, the report after the previous write: it is
reused when MEMORY.md holds the same bytes and every other file and directory of the memory dir is
the same (name, inode, size, mtime) as when that report was made, with symlinks leading to the same
places. The pointer check itself reuses a detail file's parse on (size, mtime) alone, so nothing is
taken for unchanged here that the check would not take for unchanged too.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path

from curator.constants import INDEX_NAME
from curator.mcp import report
from curator.pointers import PointerReport

# (relative name, kind, inode, size, mtime_ns, where a symlink leads): the memory dir as the check reads it
DirState = tuple[tuple[str, str, int, int, int, str], ...]


def dir_state(memory_dir: Path) -> DirState:
    """Every entry the pointer check sees (hidden ones it skips are skipped), MEMORY.md aside: its
    bytes are given to the check, never read by it."""
    found: list[tuple[str, str, int, int, int, str]] = []
    pending = [("", str(memory_dir))]
    while pending:
        prefix, directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                items = sorted(entries, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in items:
            name = prefix + entry.name
            if entry.name.startswith(".") or name == INDEX_NAME:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
                if entry.is_symlink():
                    found.append((name, "link", info.st_ino, 0, 0, os.path.realpath(entry.path)))
                elif entry.is_dir(follow_symlinks=False):
                    found.append((name, "dir", info.st_ino, 0, 0, ""))
                    pending.append((name + "/", entry.path))
                else:
                    found.append((name, "file", info.st_ino, info.st_size, info.st_mtime_ns, ""))
            except OSError:
                found.append((name, "unreadable", 0, 0, 0, ""))
    return (("", "root", 0, 0, 0, os.path.realpath(memory_dir)), *found)


class PointerCache:
    """The last report made for one memory dir, with the MEMORY.md bytes and dir state it was made on."""

    def __init__(self, memory_dir: Path) -> None:
        self.memory_dir = memory_dir
        self._lock = threading.Lock()  # the server runs tools in worker threads
        self._last: tuple[bytes, DirState, PointerReport] | None = None

    def current(self, index_raw: bytes) -> tuple[PointerReport, DirState]:
        """The report of the memory dir as it is now, with MEMORY.md as ``index_raw``."""
        state = dir_state(self.memory_dir)
        with self._lock:
            last = self._last
        if last is not None and last[0] == index_raw and last[1] == state:
            return last[2], state
        found = report.pointer_report(self.memory_dir, index_raw)
        self._remember(index_raw, state, found)
        return found, state

    def proposed(self, index_raw: bytes, files: Mapping[str, bytes | None], state: DirState) -> PointerReport:
        """The report with ``files`` written (``state``: the dir as ``current`` found it). When the
        write touches MEMORY.md alone and nothing else moved meanwhile, the dir keeps that state
        and the report is kept for the next write's ``current``."""
        found = report.pointer_report(self.memory_dir, index_raw, files)
        if set(files) <= {INDEX_NAME} and dir_state(self.memory_dir) == state:
            self._remember(index_raw, state, found)
        return found

    def _remember(self, index_raw: bytes, state: DirState, found: PointerReport) -> None:
        with self._lock:
            self._last = (index_raw, state, found)
