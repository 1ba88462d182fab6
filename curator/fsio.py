"""File-system primitives every writer shares: atomic replace, exclusive create, careful reads.

Atomic means: a temp file in the same directory, written and fsynced, renamed over the target, then
the directory fsynced. A crash at any point leaves either the old file or the new one, never half.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import re
import secrets
import stat
import tempfile
import time
from pathlib import Path

from curator.errors import InputError, from_os_error

# How long a save waits for a writer that still holds the replaced file open (an agent between
# its open and its close) before it puts the file back and refuses.
WRITER_WAIT_S = 2.0
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


# renameat2(2)'s flag that swaps two names atomically (Linux 3.15+, most local file systems).
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_renameat2 = None


def swap(tmp_name: str | Path, path: str | Path) -> bool:
    """Put ``tmp_name`` in place of ``path``. True: the two names were exchanged atomically, so
    ``tmp_name`` now holds the very file that was replaced, whatever was written to it up to now;
    False: the system cannot exchange, ``tmp_name`` was renamed over ``path`` (the replaced file is
    then only reachable through a descriptor the caller kept open)."""
    global _renameat2
    if _renameat2 is None:
        _renameat2 = _load_renameat2()
    if _renameat2:
        if _renameat2(_AT_FDCWD, os.fsencode(tmp_name), _AT_FDCWD, os.fsencode(path), _RENAME_EXCHANGE) == 0:
            return True
        import ctypes

        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EPERM):
            raise OSError(code, os.strerror(code), os.fspath(path))
        # This file system cannot exchange: the plain rename below is still atomic.
    os.replace(tmp_name, path)
    return False


def wait_until_no_writers(handle: io.FileIO, timeout: float | None = None) -> bool | None:
    """Wait until no one holds the file behind ``handle`` (opened read-only) open for writing.

    A writer that opened the file before it was replaced can still write to it afterwards; once no
    descriptor is open for writing, nothing more can arrive, so what it holds is final. Linux tells
    this without races: a read lease is granted only while the file has no writer (fcntl(2),
    F_SETLEASE). True: no writer; False: still one after ``timeout`` s; None: leases are not
    available here (not Linux, not the file's owner, a file system without them) — unknown.
    """
    if not hasattr(fcntl, "F_SETLEASE"):
        return None
    deadline = time.monotonic() + (WRITER_WAIT_S if timeout is None else timeout)
    pause = 0.0005
    while True:
        try:
            fcntl.fcntl(handle.fileno(), fcntl.F_SETLEASE, fcntl.F_RDLCK)
        except OSError as err:
            if err.errno not in (errno.EAGAIN, errno.EBUSY):
                return None
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.02)
            continue
        with contextlib.suppress(OSError):
            fcntl.fcntl(handle.fileno(), fcntl.F_SETLEASE, fcntl.F_UNLCK)
        return True


def _load_renameat2():
    try:
        import ctypes

        func = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not glibc 2.28+ (or not Linux): plain renames only
        return False
    func.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    func.restype = ctypes.c_int
    return func


def link_new(tmp_name: str | Path, path: str | Path) -> bool:
    """Give the finished ``tmp_name`` the name ``path`` only if nothing has that name (a racing
    creator's file is never replaced). False if ``path`` exists. ``tmp_name`` stays: unlink it."""
    try:
        os.link(tmp_name, path)
        return True
    except FileExistsError:
        return False
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV):
            raise
    # No hard links on this file system: check, then rename (a far smaller window than none).
    if os.path.lexists(path):
        return False
    os.rename(tmp_name, path)
    return True


def temp_name(path: Path) -> Path:
    """A fresh name beside ``path`` that ``TEMP_NAME`` recognises, for moving a file aside."""
    return path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"


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
    return [(name, target) for name, target, _size in temp_files(directory, older_than=now - TEMP_STALE_S)]


def temp_files(directory: Path, *, older_than: float) -> list[tuple[str, str, int]]:
    """(name, target, size) of the regular files in ``directory`` named as ``write_temp`` names
    them and last modified no later than ``older_than`` (a time.time() value), sorted by name."""
    found = []
    try:
        with os.scandir(directory) as items:
            for item in items:
                match = TEMP_NAME.fullmatch(item.name) if item.name.startswith(".") else None
                if match is None or not item.is_file(follow_symlinks=False):
                    continue
                info = item.stat(follow_symlinks=False)
                if info.st_mtime <= older_than:
                    found.append((item.name, match["target"], info.st_size))
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


def open_regular(path: str | Path, *, follow_symlinks: bool = False) -> io.FileIO | None:
    """A read-only handle on ``path`` if it is a regular file; None if it does not exist.

    The check is made on the open descriptor, not the path, so a file swapped in between cannot
    slip through; O_NONBLOCK keeps a FIFO from blocking the open (it is then refused by fstat).
    Any other problem is a one-line InputError naming the file.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        handle = open(path, "rb", buffering=0, opener=lambda name, _flags: os.open(name, flags))
    except FileNotFoundError:
        return None
    except PermissionError:
        raise InputError("permission denied", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", path=path) from None
    except NotADirectoryError:
        raise InputError("a parent of this path is not a directory", path=path) from None
    except OSError as err:
        if err.errno == errno.ELOOP and not follow_symlinks and os.path.islink(path):
            raise InputError("is a symlink; refusing to follow it", path=path) from None
        raise from_os_error(err, "cannot read", path=path) from None
    try:
        mode = os.fstat(handle.fileno()).st_mode
    except OSError as err:
        handle.close()
        raise from_os_error(err, "cannot read", path=path) from None
    if not stat.S_ISREG(mode):
        handle.close()
        raise InputError(f"is not a regular file ({_kind(mode)}); refusing to read it", path=path)
    return handle


def read_open(handle: io.FileIO, path: str | Path, *, max_bytes: int = MAX_READ_BYTES) -> bytes:
    """The whole file behind ``handle`` from its first byte, refusing more than ``max_bytes``. The cap
    is enforced on the bytes actually read (at most ``max_bytes`` + 1), not on what fstat claims."""
    fd, chunks, total = handle.fileno(), [], 0
    try:
        while total <= max_bytes:
            chunk = os.pread(fd, min(1 << 20, max_bytes + 1 - total), total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as err:
        raise from_os_error(err, "cannot read", path=path) from None
    if total > max_bytes:
        raise InputError(f"is over the {max_bytes:,}-byte safety limit", path=path)
    return b"".join(chunks)


def read_bytes(path: str | Path, *, max_bytes: int = MAX_READ_BYTES, allow_symlink: bool = False) -> bytes:
    """Read a whole regular file, with errors that name it: missing, a directory, a symlink, a FIFO
    or device, too large, or any other OS error."""
    path = Path(path)
    handle = open_regular(path, follow_symlinks=allow_symlink)
    if handle is None:
        raise InputError("no such file", path=path)
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise InputError(f"is {size:,} bytes, over the {max_bytes:,}-byte safety limit", path=path)
        return read_open(handle, path, max_bytes=max_bytes)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"
