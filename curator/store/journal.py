"""The undo journal's file: ``journal.json`` in the state dir, read and written whole (atomically)."""

from __future__ import annotations

import json
from pathlib import Path

from curator import fsio
from curator.errors import InputError, SaveError, from_os_error
from curator.store.base import JournalLists, StoreBase
from curator.store.records import AppliedChange
from curator.store.seat_files import absent

JOURNAL_VERSION = 1
MAX_HISTORY = 200  # oldest undo entries are forgotten beyond this; their blobs are collected


def parse_journal(raw: bytes, memory_dir: Path, path: Path) -> JournalLists:
    try:
        data = json.loads(raw)
        if data.get("version") != JOURNAL_VERSION:
            raise ValueError(f"unknown journal version {data.get('version')!r}")
        if data.get("memory_dir") != str(memory_dir):
            raise ValueError(f"journal belongs to {data.get('memory_dir')!r}")
        return ([AppliedChange.from_json(e) for e in data["done"]],
                [AppliedChange.from_json(e) for e in data["undone"]])
    except (ValueError, KeyError, TypeError, AttributeError, InputError) as err:
        raise InputError(
            f"the undo journal is unreadable ({err}); move it aside to start a new one", path=path
        ) from None




class JournalKeeping(StoreBase):
    """The store's journal: the applied changes (``_done``) and the undone ones (``_undone``)."""

    @property
    def journal_path(self) -> Path:
        return self.state_dir / "journal.json"

    def _load_journal(self) -> None:
        try:
            raw = fsio.read_bytes(self.journal_path)
        except InputError:
            if absent(self.journal_path):
                self._done, self._undone = [], []
                return
            raise
        self._done, self._undone = parse_journal(raw, self.memory_dir, self.journal_path)

    def _save_journal(self, *, written: bool = False) -> None:
        if len(self._done) > MAX_HISTORY:
            del self._done[: len(self._done) - MAX_HISTORY]
        data = {
            "version": JOURNAL_VERSION,
            "memory_dir": str(self.memory_dir),
            "done": [e.to_json() for e in self._done],
            "undone": [e.to_json() for e in self._undone],
        }
        # A path is bytes on Linux: one that is not UTF-8 reaches here with lone surrogates, which
        # only the ASCII escapes (\udcxx) carry through JSON and back to the same str.
        text = json.dumps(data, indent=1) + "\n"
        try:
            fsio.atomic_write(self.journal_path, text.encode("ascii"), mode=0o600)
        except OSError as err:
            done = ("the files were written, but the undo journal could not be updated; the next start "
                    "settles it" if written else "cannot write the undo journal, nothing changed")
            raise from_os_error(err, done, path=self.journal_path, cls=SaveError) from None

