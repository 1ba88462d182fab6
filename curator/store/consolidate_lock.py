"""Claude Code's consolidation lock: the store and Claude Code's background consolidation ("auto
dream") never write one memory dir at the same time.

Claude Code holds ``.consolidate-lock`` in the memory dir while it rewrites memory: the file holds
the holder's PID, and counts as held only while it is under an hour old and that PID is alive. It
is never deleted; its mtime is when memory was last consolidated. Claude Code takes it by writing
its PID and reading it back, and on failure puts the old mtime back (or removes a file it created).

The store does the same around every write of a memory dir: it waits up to CONSOLIDATE_WAIT_S for
a live holder to finish, then refuses (SEAT_BUSY); otherwise it writes its own PID, checks it reads
it back, and afterwards puts the file back exactly as it was (content and times, or absent), so
Claude Code's "last consolidated" never moves because of a lever.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from curator.errors import SaveError, SeatBusyError

LOCK_NAME = ".consolidate-lock"
STALE_AFTER_S = 3600  # Claude Code's own rule: an older lock is not held, whatever its PID
CONSOLIDATE_WAIT_S = 2.0  # a lever waits this long for a consolidation to end, then refuses
_POLL_S = 0.05


@dataclass(frozen=True)
class Holder:
    pid: int
    age_s: float


def holder(memory_dir: Path) -> Holder | None:
    """Who holds the lock now (a live PID, under an hour old, not this process), or None."""
    path = memory_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None  # absent (or not a file we would read): no consolidation holds it
    try:
        info = os.fstat(fd)
        first = os.pread(fd, 64, 0).split(b"\n", 1)[0].strip()
    finally:
        os.close(fd)
    age = time.time() - info.st_mtime
    if age >= STALE_AFTER_S or not first.isdigit():
        return None
    pid = int(first)
    return Holder(pid, age) if pid != os.getpid() and _alive(pid) else None


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except OSError as err:
        return err.errno != errno.ESRCH
    return True


@contextlib.contextmanager
def taken(memory_dir: Path) -> Iterator[None]:
    """Hold the consolidation lock for the body (see the module doc). Raises SeatBusyError
    (SEAT_BUSY) when a consolidation holds it past the wait; nothing was written then."""
    path = memory_dir / LOCK_NAME
    deadline = time.monotonic() + CONSOLIDATE_WAIT_S
    while (busy := holder(memory_dir)) is not None:
        if time.monotonic() >= deadline:
            raise SeatBusyError(
                f"Claude Code is consolidating this memory (auto dream, PID {busy.pid}, for {busy.age_s:.0f} s); "
                "nothing was written; try again when it is done", path=path)
        time.sleep(_POLL_S)
    before = _state(path)
    mine = str(os.getpid()).encode()
    try:
        _write(path, mine)
        if _read(path) != mine:  # someone took it in the same instant: theirs
            raise SeatBusyError("Claude Code began consolidating this memory at the same moment; nothing was "
                                "written; try again when it is done", path=path)
    except OSError as err:
        raise SaveError(f"cannot take the consolidation lock: {err.strerror}", path=path) from None
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            if _read(path) == mine:  # still ours: as it was, so "last consolidated" does not move
                _put_back(path, before)


def _state(path: Path) -> tuple[bytes, int, int] | None:
    """(content, atime_ns, mtime_ns) of the lock file, or None when there is none."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    return _read(path), info.st_atime_ns, info.st_mtime_ns


def _read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        return os.pread(fd, 4096, 0)
    finally:
        os.close(fd)


def _write(path: Path, data: bytes) -> None:
    """In place, as Claude Code writes it (it reads the file back, never renames it)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _put_back(path: Path, before: tuple[bytes, int, int] | None) -> None:
    if before is None:
        os.unlink(path)
        return
    content, atime_ns, mtime_ns = before
    _write(path, content)
    os.utime(path, ns=(atime_ns, mtime_ns), follow_symlinks=False)
