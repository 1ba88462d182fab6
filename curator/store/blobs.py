"""The store's undo copies: ``blobs/<sha256>`` in the state dir, the bytes every journal step names."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from curator import fsio
from curator.change import digest
from curator.errors import InputError, SaveError, from_os_error
from curator.store.base import StoreBase
from curator.store.seat_files import absent


class BlobKeeping(StoreBase):
    """Saving, reading and collecting the undo copies of the store's journal."""

    def _blob_path(self, sha: str) -> Path:
        return self.state_dir / "blobs" / sha

    def _put_blob(self, data: bytes | None) -> None:
        self._put_blobs([data])

    def _put_blobs(self, datas: Iterable[bytes | None]) -> None:
        """Save the undo copies not saved yet. Each is written and fsynced under a temp name (so a
        copy is never half there), renamed, then the blobs dir is fsynced once for them all: undo
        needs them after a power loss. A copy that exists was made durable when it was saved."""
        missing: dict[Path, bytes] = {}
        for data in datas:
            if data is not None:
                path = self._blob_path(hashlib.sha256(data).hexdigest())
                if path not in missing and not os.path.lexists(path):
                    missing[path] = data
        at = self.state_dir / "blobs"
        try:
            for at, data in missing.items():
                with fsio.write_temp(at, data, 0o600) as tmp:
                    try:
                        os.replace(tmp, at)
                    except BaseException:
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(tmp)
                        raise
            if missing:
                fsio.fsync_dir(self.state_dir / "blobs")
        except OSError as err:
            raise from_os_error(err, "cannot save the undo copy, nothing changed", path=at,
                                cls=SaveError) from None

    def _get_blob(self, sha: str | None) -> bytes | None:
        if sha is None:
            return None
        path = self._blob_path(sha)
        try:
            data = fsio.read_bytes(path)
        except InputError:
            if absent(path):
                raise InputError("the undo journal lost a saved version", path=path) from None
            raise
        if digest(data) != sha:
            raise InputError("a saved version in the undo journal is damaged", path=path)
        return data

    def blob(self, sha: str | None) -> bytes | None:
        """The bytes a journal step names (for diffs in a UI)."""
        return self._get_blob(sha)

    def _collect_blobs(self) -> None:
        keep = {
            sha
            for entry in self._done + self._undone
            for step in entry.files.values()
            for sha in (step.before, step.after)
            if sha
        }
        with contextlib.suppress(OSError):  # an undo copy left over is harmless; the next run collects it
            for path in (self.state_dir / "blobs").iterdir():
                if path.name not in keep and not path.name.startswith("."):
                    with contextlib.suppress(FileNotFoundError):
                        path.unlink()

