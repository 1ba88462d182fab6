"""One writer per seat across processes: an flock on ``lock`` in the seat's state dir."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path
from typing import Iterator

from curator.errors import StoreBusyError, from_os_error

LOCK_TIMEOUT_S = 10.0


def lock_is_held(state_dir: Path) -> bool:
    try:
        fd = os.open(state_dir / "lock", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False  # no lock file: no store has ever run here
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)




@contextlib.contextmanager
def locked(state_dir: Path) -> Iterator[float]:
    """One writer per seat across processes (two curator windows on the same seat). Yields the
    time the lock was taken."""
    try:
        fd = os.open(state_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as err:
        raise from_os_error(err, "cannot open the curator's lock file", path=state_dir / "lock") from None
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreBusyError(
                        "another curator is saving this seat; try again", path=state_dir
                    ) from None
                time.sleep(0.05)
        yield time.time()
    finally:
        os.close(fd)  # closing releases the lock
