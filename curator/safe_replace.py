"""The guarded replace: how any file someone else may be writing (the bearer's memory files, a
resident's config) is replaced, written once for the seat store and the workspace composer.

``replace(path, expect, want)`` brings ``path`` from ``expect`` (the bytes the change was based on)
to ``want`` and drops nothing anyone else writes to it meanwhile:

- the file is opened once and kept open; it must hold ``expect`` at the start and again at the last
  look right before the rename (and still be the same file: a rename-style writer shows there);
- the new bytes go to a locked temp file beside it (curator.fsio) carrying the replaced file's
  owner, group, mode and extended attributes, so a write made as root never hands a user's file to
  root and drops no attribute;
- the rename is an exchange where the system allows it, so the replaced file keeps a name; after it,
  the replace waits until no one still holds the replaced file open for writing, then reads it: if
  it is not ``expect``, someone wrote during the rename, and their file goes back in place
  (``ChangedMeanwhile``). If ours was written to in that instant too, it is kept under a name of
  its own (``<name>.<tag>-<UTC stamp>``) for the bearer to compare.

``carry_appends`` (putting a file back, finishing an interrupted change) carries text appended
since ``expect`` into what is written instead of refusing. ``keep_line_endings`` gives new bytes the
line endings of the file they replace (a CRLF file stays CRLF).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
from dataclasses import dataclass
from datetime import datetime, UTC
from pathlib import Path

from curator import fsio
from curator.errors import ConflictError, CuratorError

# Extended attribute namespaces only the kernel or a privileged process may set: copied when
# allowed, skipped when not (the user's own ``user.*`` attributes must always come along).
_PRIVILEGED_XATTRS = ("security.", "system.", "trusted.")


class ChangedMeanwhile(ConflictError):
    """Someone wrote the file while it was being replaced. ``replaced`` says whether the rename had
    happened (their file was then put back); ``kept`` names where ours went when it too was written
    to in that instant. Callers turn it into their own one-line error."""

    def __init__(self, path: str | Path, *, replaced: bool = False, kept: Path | None = None):
        message = ("changed on disk while the change was being saved (someone else wrote to it); it is left "
                   "as they wrote it")
        if kept is not None:
            message = (f"changed on disk while it was being saved; the version saved over it is back in place, "
                       f"and the one saved a moment later is kept as {kept}: compare the two")
        super().__init__(message, path=path)
        self.replaced = replaced or kept is not None
        self.kept = kept


@dataclass(frozen=True)
class FileMeta:
    """What a replaced file's successor must keep: mode bits, owner, group, extended attributes."""

    mode: int
    uid: int
    gid: int
    xattrs: tuple[tuple[str, bytes], ...]


def utc_stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def keep_line_endings(old: bytes | None, new: bytes) -> bytes:
    """``new`` with CRLF line ends when ``old`` ends every line with CRLF; otherwise ``new`` as is."""
    if not old or b"\r\n" not in old or old.count(b"\n") != old.count(b"\r\n"):
        return new
    return new.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def meta_of(fd: int) -> FileMeta:
    info = os.fstat(fd)
    return FileMeta(stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, _xattrs(fd))


def new_file_meta(directory: Path, mode: int) -> FileMeta:
    """A new file's: ``mode``, and the directory's owner and group (a seat written as root stays
    its user's); no extended attributes."""
    try:
        info = os.stat(directory)
    except OSError:
        return FileMeta(mode, -1, -1, ())
    if os.geteuid() != 0:  # one's own file, as any new file is
        return FileMeta(mode, -1, -1, ())
    return FileMeta(mode, info.st_uid, info.st_gid, ())


def _xattrs(fd: int) -> tuple[tuple[str, bytes], ...]:
    if not hasattr(os, "listxattr"):
        return ()
    try:
        names = os.listxattr(fd)
    except OSError:  # a file system without extended attributes
        return ()
    found = []
    for name in names:
        with contextlib.suppress(OSError):
            found.append((name, os.getxattr(fd, name)))
    return tuple(found)


def give_meta(fd: int, meta: FileMeta) -> None:
    """Give the file behind ``fd`` (a temp file still private to us) ``meta``. Owner and group are
    set where permitted (root, or a group one belongs to); the mode is set again after them, as a
    change of owner clears set-id bits."""
    here = os.fstat(fd)
    uid = -1 if meta.uid in (-1, here.st_uid) else meta.uid
    gid = -1 if meta.gid in (-1, here.st_gid) else meta.gid
    if uid != -1 or gid != -1:
        try:
            os.fchown(fd, uid, gid)
        except PermissionError:  # not root: the group alone may still be ours to give
            if gid != -1:
                with contextlib.suppress(PermissionError):
                    os.fchown(fd, -1, gid)
    os.fchmod(fd, meta.mode)
    for name, value in meta.xattrs:
        try:
            os.setxattr(fd, name, value)
        except OSError as err:
            if not name.startswith(_PRIVILEGED_XATTRS) or err.errno not in (errno.EPERM, errno.EACCES,
                                                                           errno.ENOTSUP):
                raise


def replace(path: Path, expect: bytes | None, want: bytes | None, *, new_mode: int = 0o600,
            carry_appends: bool = False, keep_tag: str = "conflict") -> tuple[bytes | None, bytes | None]:
    """Bring ``path`` from ``expect`` to ``want`` (None: absent) unless someone wrote to it
    meanwhile (see the module doc). Returns (replaced, written): what was in place and what is now,
    which differ from (expect, want) only by appends carried. Raises ChangedMeanwhile, or
    InputError for a path that is not a regular file."""
    held = fsio.open_regular(path)  # the version about to be replaced, kept open
    tmp = None
    try:
        now = None if held is None else fsio.read_open(held, path)
        if now != expect:
            extra = appended(expect, now) if carry_appends else None
            if extra is None or want is None:
                raise ChangedMeanwhile(path)
            expect, want = now, want + extra
        if want is None:
            _remove(path, expect, keep_tag)
            return expect, None
        meta = meta_of(held.fileno()) if held is not None else new_file_meta(path.parent, new_mode)
        tmp = fsio.write_temp(path, want, meta.mode, prepare=lambda fd: give_meta(fd, meta))
        try:
            if held is None:
                if not fsio.link_new(tmp, path):
                    raise ChangedMeanwhile(path)
                with contextlib.suppress(FileNotFoundError):  # linked: the temp name goes
                    os.unlink(tmp)
                fsio.fsync_dir(path.parent)
                return expect, want
            # Last look before the rename: most of the time since the first read went on the fsync.
            if fsio.read_open(held, path) != expect or not _same_file(held, path):
                raise ChangedMeanwhile(path)
            fsio.hold(held.fileno())  # an exchange gives it the temp name: it stays marked live
            fsio.stop_point("replace-before-swap", path.name)
            exchanged = fsio.swap(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        fsio.fsync_dir(path.parent)
        fsio.stop_point("replace-swapped", path.name)
        # A writer that opened the file before the rename may still be writing to the replaced
        # one: wait until none holds it, so what is read next is all it will ever hold.
        quiet = fsio.wait_until_no_writers(held)
        # What the rename replaced: through the swapped-out name (exactly the replaced file),
        # or through the descriptor kept open when the system cannot exchange names.
        late = read_quietly(tmp) if exchanged else fsio.read_open(held, path)
        if late == expect and quiet is not False:
            if exchanged:
                with contextlib.suppress(OSError):  # a leftover copy of the old version is harmless
                    os.unlink(tmp)
            return expect, want
        kept = _put_back(path, tmp if exchanged else None, late, want, new_mode, keep_tag)
        raise ChangedMeanwhile(path, replaced=True, kept=kept)
    finally:
        if held is not None:
            held.close()
        if tmp is not None:
            tmp.release()


def _same_file(held: io.FileIO, path: Path) -> bool:
    """Whether ``path`` still names the file ``held`` has open (a writer that renamed its own file
    over it changed that, whatever the bytes)."""
    try:
        now = os.lstat(path)
    except OSError:
        return False
    then = os.fstat(held.fileno())
    return (now.st_dev, now.st_ino) == (then.st_dev, then.st_ino)


def _put_back(path: Path, swapped_out: str | None, late: bytes | object, ours: bytes, new_mode: int, keep_tag: str) -> Path | None:
    """Someone wrote to the file while it was being replaced: restore what it holds now. Returns
    where ours was kept when it, too, was written to in that instant."""
    if swapped_out is None:  # no exchange here: write the replaced file's bytes back
        replace(path, ours, late if isinstance(late, bytes) else None, new_mode=new_mode, carry_appends=True)
        return None
    fsio.swap(swapped_out, path)  # the very file that was replaced, with every byte written to it
    fsio.fsync_dir(path.parent)
    if read_quietly(swapped_out) == ours:
        os.unlink(swapped_out)
        return None
    # Written again in that instant: keep it under a name of its own (a temp file's name would have
    # it removed as a killed write's leftover).
    return keep_under_a_new_name(swapped_out, path.with_name(f"{path.name}.{keep_tag}-{utc_stamp()}"))


def keep_under_a_new_name(name: str | Path, wanted: Path) -> Path:
    """Give the file ``name`` the name ``wanted`` (or ``wanted.N``, the first one free, never over
    anything); returns the name it now has."""
    candidate, number = wanted, 1
    while not fsio.link_new(name, candidate):
        candidate, number = wanted.with_name(f"{wanted.name}.{number}"), number + 1
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name)
    fsio.fsync_dir(wanted.parent)
    return candidate


def _remove(path: Path, expect: bytes | None, keep_tag: str) -> None:
    """Delete ``path`` unless it changed: moved aside first, so what is checked is exactly what is
    deleted; put back if it is not ``expect``."""
    if expect is None:
        return
    aside = fsio.temp_name(path)
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        raise ChangedMeanwhile(path) from None
    fsio.stop_point("temp-written", path.name)  # the file to delete now has a temp name
    if read_quietly(aside) != expect:
        if fsio.link_new(aside, path):
            os.unlink(aside)
            raise ChangedMeanwhile(path)
        raise ChangedMeanwhile(path, kept=keep_under_a_new_name(aside, path.with_name(
            f"{path.name}.{keep_tag}-{utc_stamp()}")))
    os.unlink(aside)
    fsio.fsync_dir(path.parent)


def appended(base: bytes | None, now: bytes | None) -> bytes | None:
    """What was appended to ``base`` to make ``now``; None if ``now`` is not ``base`` plus more."""
    if base is None or now is None or len(now) <= len(base) or not now.startswith(base):
        return None
    return now[len(base):]


def holds(written: bytes | None, now: bytes | None) -> bool:
    """Whether a file now holding ``now`` still holds everything ``written`` to it (as written, or
    with text appended since)."""
    return now == written or appended(written, now) is not None


def read_quietly(path: str | Path) -> bytes | object:
    """A file's bytes, or UNREADABLE (equal to nothing) when it cannot be read as a regular file."""
    try:
        handle = fsio.open_regular(path)
        if handle is None:
            return UNREADABLE
        with handle:
            return fsio.read_open(handle, path)
    except CuratorError:  # any refusal to read means unreadable here
        return UNREADABLE


UNREADABLE = object()
