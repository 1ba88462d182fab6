"""How the store writes one file without dropping what anyone else writes to it meanwhile."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from curator import fsio
from curator.errors import ConflictError, from_os_error
from curator.store.seat_files import INDEX_NAME, NEW_FILE_MODE, appended, read_quietly


class FileWriting:
    """The store's guarded writes of one file (``_settle``), its put-back and its delete."""

    memory_dir: Path

    def _settle(self, name: str, expect: bytes | None, want: bytes | None, mode: int,
                *, carry_appends: bool = False) -> tuple[bytes | None, bytes | None]:
        """Bring ``name`` from ``expect`` (what the change was based on) to ``want`` without
        dropping anything written to it meanwhile. Returns (replaced, written).

        The file is re-read right before the rename (the temp file's fsync takes most of a save),
        and what the rename replaced is read afterwards: if it is not ``expect``, someone wrote
        during the rename, so the replaced file is put back and ConflictError raised. With
        ``carry_appends`` (putting files back, finishing an interrupted change), text appended
        before the rename is carried into what is written instead.
        """
        path = self.path_of(name)
        tmp = None
        held = fsio.open_regular(path)  # the version about to be replaced, kept open
        try:
            now = None if held is None else fsio.read_open(held, path)
            if now != expect:
                extra = appended(expect, now) if carry_appends and want is not None else None
                if extra is None:
                    raise self._changed_meanwhile(name)
                expect, want = now, want + extra
            if held is not None:
                mode = stat.S_IMODE(os.fstat(held.fileno()).st_mode)  # keep the file's own mode
            if want is None:
                self._remove(name, path, expect)
                return expect, None
            tmp = fsio.write_temp(path, want, mode)
            try:
                if held is None:
                    if not fsio.link_new(tmp, path):
                        raise self._changed_meanwhile(name)
                    with contextlib.suppress(FileNotFoundError):  # linked: the temp name goes
                        os.unlink(tmp)
                    fsio.fsync_dir(path.parent)
                    return expect, want
                # Last look before the rename: most of the time since the first read went on the fsync.
                if fsio.read_open(held, path) != expect:
                    raise self._changed_meanwhile(name)
                fsio.hold(held.fileno())  # an exchange gives it the temp name: it stays marked live
                exchanged = fsio.swap(tmp, path)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                tmp.release()
                raise
            fsio.fsync_dir(path.parent)
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
            self._put_back(name, path, tmp if exchanged else None, late, want, mode)
            raise self._changed_meanwhile(name)
        finally:
            if held is not None:
                held.close()
            if tmp is not None:
                tmp.release()

    def _put_back(self, name: str, path: Path, swapped_out: str | None, late, ours: bytes, mode: int) -> None:
        """Someone wrote to the file while it was being replaced: restore what it holds now."""
        if swapped_out is None:  # no exchange here: write the replaced file's bytes back
            self._settle(name, ours, late, mode, carry_appends=True)
            return
        fsio.swap(swapped_out, path)  # the very file that was replaced, with every byte written to it
        fsio.fsync_dir(path.parent)
        if read_quietly(swapped_out) == ours:
            os.unlink(swapped_out)
        else:  # someone also wrote to ours in that instant: keep it for the bearer to compare
            raise ConflictError(f"changed on disk while it was being saved; the version saved over it is "
                                f"back in place, and the curator's own, edited meanwhile, is kept as {swapped_out}",
                                path=path)

    def _remove(self, name: str, path: Path, expect: bytes | None) -> None:
        """Delete ``name`` unless it changed: moved aside first, so what is checked is exactly what
        is deleted; put back if it is not ``expect``."""
        if expect is None:
            return
        aside = fsio.temp_name(path)
        try:
            os.rename(path, aside)
        except FileNotFoundError:
            raise self._changed_meanwhile(name) from None
        if read_quietly(aside) != expect:
            if fsio.link_new(aside, path):
                os.unlink(aside)
                raise self._changed_meanwhile(name)
            raise ConflictError(f"changed on disk while it was being deleted; it is kept as {aside}", path=path)
        os.unlink(aside)
        fsio.fsync_dir(path.parent)

    def _changed_meanwhile(self, name: str) -> ConflictError:
        return ConflictError("changed on disk while the change was being saved (someone else wrote to it); "
                             "it is left as they wrote it", path=self.memory_dir / name)

    def _mode_for(self, name: str) -> int:
        for candidate in (name, INDEX_NAME):
            try:
                return stat.S_IMODE(os.lstat(self.memory_dir / candidate).st_mode)
            except FileNotFoundError:
                continue
            except OSError as err:
                raise from_os_error(err, "cannot look up", path=self.memory_dir / candidate) from None
        return NEW_FILE_MODE

