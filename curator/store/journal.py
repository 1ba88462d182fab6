"""The undo journal's file: ``journal.json`` in the state dir, read and written whole (atomically)."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

from curator import fsio
from curator.errors import InputError, SaveError, from_os_error
from curator.store.base import JournalLists, StoreBase
from curator.store.records import AppliedChange
from curator.store.seat_files import absent

JOURNAL_VERSION = 1
MAX_HISTORY = 200  # oldest undo entries are forgotten beyond this; their blobs are collected

Parsed = tuple[tuple[AppliedChange, ...], tuple[AppliedChange, ...]]


class _JournalCache:
    """The last journal bytes read or written per (journal, memory dir), with their entries, and
    each entry's JSON text: a process that saves again and again (the MCP server) parses and
    encodes only what changed. Keyed by the exact bytes, so a journal another process wrote is
    always parsed afresh. Entries are frozen, so sharing them between stores is safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the MCP server runs tools in worker threads
        self._parsed: dict[tuple[Path, Path], tuple[bytes, Parsed]] = {}
        self._encoded: dict[int, tuple[AppliedChange, str]] = {}  # id(entry) -> (entry, its JSON)

    def parsed(self, raw: bytes, memory_dir: Path, path: Path) -> Parsed:
        with self._lock:
            found = self._parsed.get((path, memory_dir))
        if found is not None and found[0] == raw:
            return found[1]
        done, undone = parse_journal(raw, memory_dir, path)
        parsed = (tuple(done), tuple(undone))
        self.remember(raw, memory_dir, path, parsed)
        return parsed

    def remember(self, raw: bytes, memory_dir: Path, path: Path, parsed: Parsed) -> None:
        with self._lock:
            self._parsed[(path, memory_dir)] = (raw, parsed)

    def encode(self, entries: Sequence[AppliedChange]) -> list[str]:
        """Each entry's JSON text (json's C encoder; ``indent=`` would take its pure-Python one),
        reusing the text of an entry already encoded; forgets the entries no longer given."""
        with self._lock:
            texts = []
            for entry in entries:
                known = self._encoded.get(id(entry))
                if known is None or known[0] is not entry:
                    known = (entry, json.dumps(entry.to_json()))
                    self._encoded[id(entry)] = known
                texts.append(known[1])
            if len(self._encoded) > 4 * MAX_HISTORY:  # mostly entries no journal holds any more
                kept = {id(entry) for entry in entries}
                self._encoded = {key: value for key, value in self._encoded.items() if key in kept}
            return texts


_CACHE = _JournalCache()


def encode_journal(memory_dir: Path, done: Sequence[AppliedChange], undone: Sequence[AppliedChange]) -> bytes:
    """The journal file: one entry per line. A path is bytes on Linux: one that is not UTF-8
    reaches here with lone surrogates, which only the ASCII escapes (\\udcxx) carry through JSON
    and back to the same str."""
    texts = _CACHE.encode([*done, *undone])

    def listed(entries: list[str]) -> str:
        return "[" + ",".join(f"\n  {text}" for text in entries) + ("\n ]" if entries else "]")

    text = (f'{{"version": {JOURNAL_VERSION}, "memory_dir": {json.dumps(str(memory_dir))},\n'
            f' "done": {listed(texts[:len(done)])},\n "undone": {listed(texts[len(done):])}}}\n')
    return text.encode("ascii")


def parse_journal(raw: bytes, memory_dir: Path, path: Path) -> JournalLists:
    try:
        data = json.loads(raw)
        if data.get("version") != JOURNAL_VERSION:
            raise ValueError(f"unknown journal version {data.get('version')!r}")
        owner = data.get("memory_dir")
        if owner == str(memory_dir):
            return ([AppliedChange.from_json(e) for e in data["done"]],
                    [AppliedChange.from_json(e) for e in data["undone"]])
    except (ValueError, KeyError, TypeError, AttributeError, InputError) as err:
        raise InputError(
            f"the undo journal is unreadable ({err}); move it aside to start a new one", path=path
        ) from None
    # Readable, but another seat's: moving it aside would lose that seat's undo.
    raise InputError(f"this state dir holds the undo journal of another memory dir ({owner!r}); "
                     "give this seat its own --state-dir", path=path)


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
        done, undone = _CACHE.parsed(raw, self.memory_dir, self.journal_path)
        self._done, self._undone = list(done), list(undone)

    def _save_journal(self, *, written: bool = False) -> None:
        if len(self._done) > MAX_HISTORY:
            del self._done[: len(self._done) - MAX_HISTORY]
        raw = encode_journal(self.memory_dir, self._done, self._undone)
        try:
            fsio.atomic_write(self.journal_path, raw, mode=0o600)
        except OSError as err:
            done = ("the files were written, but the undo journal could not be updated; the next start "
                    "settles it" if written else "cannot write the undo journal, nothing changed")
            raise from_os_error(err, done, path=self.journal_path, cls=SaveError) from None
        _CACHE.remember(raw, self.memory_dir, self.journal_path, (tuple(self._done), tuple(self._undone)))
