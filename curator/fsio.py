"""File-system primitives every writer shares: atomic replace, exclusive create, careful reads.

Atomic means: a temp file in the same directory, written and fsynced, renamed over the target, then
the directory fsynced. A crash at any point leaves either the old file or the new one, never half.

Temp files have one name of their own, ``.<target>.<8 hex>.seat-curator.tmp``, and the process
writing one holds an flock(2) on it until its rename is done. The kernel drops that lock when the
process dies, however it dies, so a temp file nobody holds is one a killed write left:
``remove_dead_temps`` removes those (for the writers whose files can be written again), the seat
analysis reports those in a memory dir (they hold the bearer's unsaved bytes).
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
import time
from pathlib import Path
from typing import Callable, Literal

from curator.errors import InputError, from_os_error
from curator.stop_points import STOP_ENV, stop_point  # noqa: F401 (re-exported: tests name them here)

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
    with write_temp(path, data, mode) as tmp_name:
        try:
            os.replace(tmp_name, path)
        except BaseException:
            _unlink_quietly(tmp_name)
            raise
    fsync_dir(path.parent)


# renameat2(2)'s flag that swaps two names atomically (Linux 3.15+, most local file systems).
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_renameat2: Callable[..., int] | Literal[False] | None = None  # None: not looked up yet


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


def _load_renameat2() -> Callable[..., int] | Literal[False]:
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


TEMP_TAG = "seat-curator"
# What ``write_temp`` and ``temp_name`` name their files: no other tool makes this name.
TEMP_NAME = re.compile(r"\.(?P<target>.+)\.[0-9a-f]{8}\." + TEMP_TAG + r"\.tmp")
# What earlier versions named them (mkstemp's 8 random characters): reported in a memory dir, never
# removed (without the lock there is no telling a live one, or another tool's, from a dead one).
LEGACY_TEMP_NAME = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp")
TEMP_STALE_S = 60  # a save takes milliseconds; an unlocked legacy temp file this old was left by a killed one


def temp_name(path: Path) -> Path:
    """A fresh name beside ``path`` that ``TEMP_NAME`` recognises, for moving a file aside."""
    return path.parent / f".{path.name}.{secrets.token_hex(4)}.{TEMP_TAG}.tmp"


class TempFile(str):
    """The name of a temp file this process is writing, holding the flock that marks it live (see
    the module doc). A str, so it goes wherever a path does; ``release`` (or the ``with`` block's
    end, or dropping the last reference) closes the descriptor and so ends the lock."""

    fd: int

    def __new__(cls, name: str, fd: int) -> "TempFile":
        made = super().__new__(cls, name)
        made.fd = fd
        return made

    def release(self) -> None:
        fd, self.fd = getattr(self, "fd", -1), -1
        if fd >= 0:
            os.close(fd)

    def __enter__(self) -> "TempFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()


def write_temp(path: Path, data: bytes, mode: int, *, prepare: Callable[[int], None] | None = None) -> TempFile:
    """A fully written, fsynced temp file beside ``path`` (same directory, so a rename is atomic),
    locked until released: rename it, then release it. ``prepare`` gets the written file's
    descriptor before the fsync (to give it an owner or attributes that the fsync makes durable)."""
    for _attempt in range(100):
        name = temp_name(path)
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            continue
        # A cleaner that came between the create and this lock took the file for dead and unlinked
        # it (it holds its exclusive lock only while it unlinks): start again under a new name.
        fcntl.flock(fd, fcntl.LOCK_SH)
        if os.fstat(fd).st_nlink:
            break
        os.close(fd)
    else:
        raise FileExistsError(errno.EEXIST, "no free temp file name", os.fspath(path))
    temp, writer = TempFile(os.fspath(name), -1), fd
    try:
        # The lock is kept on a read-only descriptor (shared locks overlap, so it is never let go):
        # once renamed, this is the target, and a descriptor open for writing would pass for a
        # writer that has not finished with it (wait_until_no_writers). Opened while still 0600.
        temp.fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        fcntl.flock(temp.fd, fcntl.LOCK_SH)
        view = memoryview(data)
        while view:
            view = view[os.write(writer, view):]
        os.fchmod(writer, mode)
        if prepare is not None:
            prepare(writer)
        os.fsync(writer)
        os.close(writer)
        writer = -1
        stop_point("temp-written", path.name)
    except BaseException:
        _unlink_quietly(temp)
        temp.release()
        if writer >= 0:
            os.close(writer)
        raise
    return temp


def hold(fd: int) -> None:
    """Mark the file behind ``fd`` live for as long as ``fd`` stays open: before it is exchanged
    into a temp file's name (``swap``), so that name never stands for a dead file while its writer
    still needs it. A shared lock; if someone holds an exclusive one, the file is held already."""
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)


def _dead(directory: Path, name: str) -> tuple[int, os.stat_result] | None:
    """(descriptor holding the exclusive lock, its stat) if the temp file ``name`` is a regular file
    no live process holds, else None. The caller closes the descriptor."""
    try:
        fd = os.open(directory / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd, info
    except OSError:  # held: its writer is alive
        pass
    os.close(fd)
    return None


def remove_dead_temps(directory: Path, targets: dict[str, bytes | None]) -> list[str]:
    """Remove the temp files killed writes of ``targets`` (file name → None, or the exact bytes a
    temp file must hold to go) left in ``directory``; returns their names. Only names of this
    module's own pattern, only regular files, only ones no live writer holds, and only while the
    name still names the very file found dead (a live writer may have renamed it since)."""
    removed: list[str] = []
    try:
        with os.scandir(directory) as items:
            names = [item.name for item in items if item.name.endswith(f".{TEMP_TAG}.tmp")]
    except OSError:
        return removed
    for name in names:
        match = TEMP_NAME.fullmatch(name)
        if match is None or match["target"] not in targets:
            continue
        dead = _dead(directory, name)
        if dead is None:
            continue
        fd, info = dead
        try:
            want = targets[match["target"]]
            if want is not None and (info.st_size != len(want) or os.pread(fd, len(want) + 1, 0) != want):
                continue
            now = os.lstat(directory / name)
            if (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino):
                os.unlink(directory / name)
                removed.append(name)
        except OSError:
            continue
        finally:
            os.close(fd)
    if removed:
        fsync_dir(directory)
    return removed


def leftover_temps(directory: Path, *, now: float | None = None) -> list[tuple[str, str]]:
    """(temp file name, the file it was replacing) for every temp file an interrupted save left in
    ``directory``: the save was killed between writing and renaming. Its target is intact, and the
    temp file holds the bytes that were being saved, so it is reported, never deleted."""
    now = time.time() if now is None else now
    return [(name, target) for name, target, _size in temp_files(directory, older_than=now - TEMP_STALE_S)]


def temp_files(directory: Path, *, older_than: float) -> list[tuple[str, str, int]]:
    """(name, target, size) of the regular files in ``directory`` named as ``write_temp`` names
    them (or as earlier versions did) that no live writer holds and were last modified no later
    than ``older_than`` (a time.time() value), sorted by name."""
    found = []
    try:
        with os.scandir(directory) as items:
            for item in items:
                if not item.name.startswith(".") or not item.name.endswith(".tmp"):
                    continue
                match = TEMP_NAME.fullmatch(item.name) or LEGACY_TEMP_NAME.fullmatch(item.name)
                if match is None or not item.is_file(follow_symlinks=False):
                    continue
                info = item.stat(follow_symlinks=False)
                if info.st_mtime > older_than:
                    continue
                dead = _dead(directory, item.name)
                if dead is None:
                    continue
                os.close(dead[0])
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
        tmp_name.release()
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
