"""File-system primitives every writer shares: atomic replace, exclusive create, careful reads.

Atomic means: a temp file in the same directory, written and fsynced, renamed over the target, then
the directory fsynced. A crash at any point leaves either the old file or the new one, never half.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import time
from pathlib import Path

from curator.errors import InputError

MAX_READ_BYTES = 64 * 1024 * 1024  # nothing a seat keeps is this large; refuse rather than swap


def fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot fsync a directory; the rename is still atomic
        pass
    finally:
        os.close(fd)


def atomic_write(path: str | Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically. Keeps the old file's mode unless ``mode`` is given.

    Refuses to write through a symlink: the link would be replaced by a regular file.
    """
    path = Path(path)
    if path.is_symlink():
        raise InputError("refusing to write through a symlink", path=path)
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = 0o644
    tmp_name = write_temp(path, data, mode)
    try:
        os.replace(tmp_name, path)
    except BaseException:
        _unlink_quietly(tmp_name)
        raise
    fsync_dir(path.parent)


def write_temp(path: Path, data: bytes, mode: int) -> str:
    """A fully written, fsynced temp file beside ``path`` (same directory, so a rename is atomic)."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
    except BaseException:
        _unlink_quietly(tmp_name)
        raise
    return tmp_name


# What ``write_temp`` names its files (mkstemp's 8 random characters between our prefix and suffix).
TEMP_NAME = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp")
TEMP_STALE_S = 60  # a save takes milliseconds; a temp file this old was left by one that never finished


def leftover_temps(directory: Path, *, now: float | None = None) -> list[tuple[str, str]]:
    """(temp file name, the file it was replacing) for every temp file an interrupted save left in
    ``directory``: the save was killed between writing and renaming. Its target is intact, and the
    temp file holds the bytes that were being saved, so it is reported, never deleted."""
    now = time.time() if now is None else now
    found = []
    try:
        with os.scandir(directory) as items:
            for item in items:
                match = TEMP_NAME.fullmatch(item.name) if item.name.startswith(".") else None
                if match is None or not item.is_file(follow_symlinks=False):
                    continue
                if now - item.stat(follow_symlinks=False).st_mtime >= TEMP_STALE_S:
                    found.append((item.name, match["target"]))
    except OSError:  # an unreadable directory is reported by whoever reads the seat
        return []
    return sorted(found)


def _unlink_quietly(name: str) -> None:
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass


def exclusive_create(path: str | Path, data: bytes, *, mode: int = 0o600) -> bool:
    """Create ``path`` only if absent (O_CREAT|O_EXCL). Returns False if it already existed.

    The content goes to a temp file first and is hard-linked into place, so the file never exists
    half-written and an existing file (or a racing creator's) is never touched.
    """
    path = Path(path)
    directory = path.parent
    tmp_name = write_temp(path, data, mode)
    try:
        try:
            os.link(tmp_name, path)  # fails with EEXIST exactly like O_CREAT|O_EXCL
        except FileExistsError:
            return False
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV):
                raise
            # No hard links here: fall back to a plain exclusive create.
            try:
                out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            except FileExistsError:
                return False
            with os.fdopen(out, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
    finally:
        _unlink_quietly(tmp_name)
    fsync_dir(directory)
    return True


def read_bytes(path: str | Path, *, max_bytes: int = MAX_READ_BYTES, allow_symlink: bool = False) -> bytes:
    """Read a whole file, with errors that name it: missing, a directory, a symlink, too large."""
    path = Path(path)
    try:
        if path.is_symlink() and not allow_symlink:
            raise InputError("is a symlink; refusing to follow it", path=path)
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise InputError("is a directory, expected a file", path=path)
        if info.st_size > max_bytes:
            raise InputError(f"is {info.st_size:,} bytes, over the {max_bytes:,}-byte safety limit", path=path)
        with open(path, "rb") as handle:
            return handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except PermissionError:
        raise InputError("permission denied", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", path=path) from None
    except NotADirectoryError:
        raise InputError("a parent of this path is not a directory", path=path) from None
