"""How the store writes one memory file: through the guarded replace (curator.safe_replace), with
the store's own refusal texts and the mode a new file gets."""

from __future__ import annotations

import os
import stat

from curator import safe_replace
from curator.errors import ConflictError, from_os_error
from curator.store.base import StoreBase
from curator.constants import INDEX_NAME
from curator.store.seat_files import NEW_FILE_MODE


class FileWriting(StoreBase):
    """The store's guarded write of one file (``_settle``)."""

    def _settle(self, name: str, expect: bytes | None, want: bytes | None, mode: int,
                *, carry_appends: bool = False) -> tuple[bytes | None, bytes | None]:
        """Bring ``name`` from ``expect`` (what the change was based on) to ``want`` without
        dropping anything written to it meanwhile (``safe_replace.replace``; ``mode`` is for a file
        that does not exist yet). Returns (replaced, written)."""
        path = self.path_of(name)
        try:
            return safe_replace.replace(path, expect, want, new_mode=mode, carry_appends=carry_appends)
        except safe_replace.ChangedMeanwhile as changed:
            if changed.kept is not None:
                raise ConflictError(f"changed on disk while it was being saved; the version saved over it is back "
                                    f"in place, and the curator's own, edited meanwhile, is kept as {changed.kept}",
                                    path=path) from None
            raise self._changed_meanwhile(name) from None

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
