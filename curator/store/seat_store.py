"""The seat store itself: opening a seat, reading its files, applying a change (see the package doc)."""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager
import os
import secrets
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from curator import fsio
from curator.change import Change, digest
from curator.errors import (ChangeInterruptedError, ConflictError, CuratorError, InputError, NothingToChangeError,
                             SaveError, from_os_error)
from curator.store import consolidate_lock, lock
from curator.store.blobs import BlobKeeping
from curator.store.carrying import CarryingOut
from curator.store.history import History
from curator.store.inspection import InterruptedChange, where_files_stand
from curator.store.journal import JournalKeeping
from curator.store.records import ABSENT, IN_TRANSITION, AppliedChange, FileStep, Fingerprint, JournalState
from curator.store.seat_files import describe, locate, read_current, safe_path, write_order
from curator.store.writing import FileWriting


class SeatStore(History, CarryingOut, FileWriting, JournalKeeping, BlobKeeping):
    """Open with ``SeatStore.open(memory_dir)``; read files through it, then ``apply`` changes."""

    def __init__(self, memory_dir: Path, state_dir: Path):
        self.memory_dir = memory_dir
        self.state_dir = state_dir
        self._seen: dict[str, Fingerprint] = {}
        self._done: list[AppliedChange] = []  # oldest first; the last is what undo reverts
        self._undone: list[AppliedChange] = []  # the last is what redo re-applies

    # -- opening -------------------------------------------------------------------------------
    @classmethod
    def open(cls, memory_dir: str | Path, *, state_dir: str | Path | None = None,
             read_only: bool = False) -> "SeatStore":
        """The seat's store, its journal settled. ``read_only``: for reading the seat's files only
        (a command that plans and prints): the state dir is neither created nor touched, so it may
        be missing or unwritable."""
        resolved, state = locate(memory_dir, state_dir)
        if not resolved.is_dir():
            raise InputError("is not a directory", path=memory_dir)
        if read_only:
            return cls(resolved, state)
        try:
            state.mkdir(parents=True, exist_ok=True, mode=0o700)
            (state / "blobs").mkdir(exist_ok=True, mode=0o700)
        except OSError as err:
            raise InputError(f"cannot create the curator state dir: {err.strerror}", path=state) from None
        store = cls(resolved, state)
        with store._locked() as started:
            store._load_journal()
            store._reconcile_pending()
            store._remove_leftover_temps(started)
        return store

    # -- reading -------------------------------------------------------------------------------
    def path_of(self, name: str) -> Path:
        """The file's path, refusing names that leave the memory dir or pass through a symlink."""
        return safe_path(self.memory_dir, name)

    def read(self, name: str) -> bytes:
        """The file's bytes; remembered as the version a later ``apply`` may overwrite."""
        data, fingerprint = self._current(name)
        if data is None:
            raise InputError("no such file", path=self.memory_dir / name)
        self._seen[name] = fingerprint
        return data

    def read_if_exists(self, name: str) -> bytes | None:
        """``read``, or None (remembered as absent) when the file does not exist: one read, where
        ``exists`` then ``read`` make two."""
        data, fingerprint = self._current(name)
        self._seen[name] = fingerprint
        return data

    def exists(self, name: str) -> bool:
        return self._current(name)[0] is not None

    def reload(self) -> None:
        """Forget what was read (the next read is the new baseline) and re-read the journal."""
        self._seen.clear()
        with self._locked() as started:
            self._load_journal()
            self._reconcile_pending()
            self._remove_leftover_temps(started)

    def _current(self, name: str) -> tuple[bytes | None, Fingerprint]:
        return read_current(self.memory_dir, name)

    @property
    def interrupted(self) -> InterruptedChange | None:
        """The interrupted change this store sees in its journal (see ``interrupted_change``)."""
        self._load_journal()
        if not self._done or self._done[-1].state not in IN_TRANSITION:
            return None
        return where_files_stand(self.memory_dir, self._done[-1])

    # -- applying ------------------------------------------------------------------------------
    def apply(self, change: Change) -> AppliedChange:
        """Write every file of ``change`` or none; journal it for undo. Raises ConflictError."""
        with self._locked(), consolidate_lock.taken(self.memory_dir):
            self._load_journal()
            self._reconcile_pending()
            self._refuse_if_interrupted()
            current: dict[str, bytes | None] = {}
            conflicts: dict[str, str] = {}
            for name in change.names:
                data, fingerprint = self._current(name)
                current[name] = data
                problem = self._conflict(name, fingerprint, change.base)
                if problem:
                    conflicts[name] = problem
            if conflicts:
                raise ConflictError(
                    "changed on disk since it was loaded; nothing was written: " + "; ".join(conflicts.values()),
                    path=self.memory_dir / next(iter(conflicts)) if len(conflicts) == 1 else None,
                )
            files = {n: b for n, b in change.files.items() if b != current[n]}
            if not files:
                raise NothingToChangeError("the change would not alter any file")

            # Both sides of every file, durable before the journal names them: undo and redo read them.
            self._put_blobs([data for name, new in files.items() for data in (current[name], new)])
            steps = {name: FileStep(digest(current[name]), digest(new), self._mode_for(name))
                     for name, new in files.items()}
            entry = AppliedChange(
                id=secrets.token_hex(6),
                description=change.description,
                kind=change.kind,
                applied_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                files=MappingProxyType(steps),
                bytes_saved=change.bytes_saved,
                entry_ids=change.entry_ids,
                warnings=change.warnings,
                state=JournalState.PENDING,
            )
            history = (list(self._done), list(self._undone))
            self._done.append(entry)
            self._undone.clear()
            try:
                # fsync + dir fsync before the first file is touched: once a new file's rename can
                # reach the disk, the record that lets undo bring the old text back must be there.
                self._save_journal()
            except CuratorError:
                self._done, self._undone = history
                raise
            # Each file: its temp file fsynced before the rename (never half a file), the memory dir
            # fsynced after it (the new text survives a power loss once the tool says it is saved).
            self._carry_out(entry, write_order([(n, current[n], files[n]) for n in files]), history)
            entry = entry.with_state(JournalState.APPLIED)
            self._done[-1] = entry
            # fsync: a journal torn by a power loss would lose every undo. Dir fsync: without it a
            # power loss could bring back "pending", and an append made since would then pass for
            # an interrupted change that blocks every save until it is settled.
            self._save_journal(written=True)
            self._collect_blobs()
            return entry

    def _conflict(self, name: str, now: Fingerprint, base: Mapping[str, str | None]) -> str | None:
        # Size and hash decide: a file rewritten with the same bytes (only its mtime moved) loses
        # nothing if overwritten, so it is not a conflict.
        seen = self._seen.get(name)
        if seen is not None and (seen.sha256 != now.sha256 or seen.size != now.size):
            return f"{name} ({describe(seen)} when loaded, {describe(now)} now)"
        if name in base and base[name] != now.sha256:
            then = "absent" if base[name] is None else "another version"
            return f"{name} (the change was planned on {then}, it is {describe(now)} now)"
        return None

    def _refuse_if_interrupted(self) -> None:
        if self._done and self._done[-1].state in IN_TRANSITION:
            found = where_files_stand(self.memory_dir, self._done[-1])  # (under our own lock)
            what = found.message if found else f"change {self._done[-1].id} was interrupted"
            raise ChangeInterruptedError(f"{what}; nothing new is saved until then", path=self.memory_dir)

    def _fingerprint(self, name: str, data: bytes | None) -> Fingerprint:
        if data is None:
            return ABSENT
        try:
            mtime = os.lstat(self.memory_dir / name).st_mtime_ns
        except OSError:
            mtime = 0  # size and hash decide a conflict; the mtime is only informative
        return Fingerprint(len(data), mtime, digest(data))

    def _save_error(self, err: BaseException, name: str | None) -> BaseException:
        if isinstance(err, OSError):
            return from_os_error(err, "saving failed, nothing changed", path=self.memory_dir / (name or ""),
                                 cls=SaveError)
        return err

    def _remove_leftover_temps(self, started: float) -> None:
        """Temp files in the state dir that a killed store operation left behind (undo copies and
        journal writes that never reached their rename). Only files of the store's own temp naming,
        older than this operation: under the lock no other operation is writing here."""
        for directory in (self.state_dir, self.state_dir / "blobs"):
            for name, _target, _size in fsio.temp_files(directory, older_than=started - 0.001):
                with contextlib.suppress(OSError):
                    os.unlink(directory / name)


    def _locked(self) -> AbstractContextManager[float]:
        """One writer per seat across processes; yields the time the lock was taken."""
        return lock.locked(self.state_dir)
