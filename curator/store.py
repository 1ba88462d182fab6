"""The seat store: the only writer of a seat's memory files.

It applies a ``Change`` atomically per file (curator.fsio), keeps file modes, refuses to overwrite a
file that changed on disk since it last read or wrote it (the agent may be writing its own memory at
the same moment), and keeps a journal of applied changes outside the memory dir, so undo and redo
restore byte-identical files, also after a restart.

Journal layout (in the state dir, one per memory dir): ``journal.json`` (entries with the sha256 of
every file before and after) and ``blobs/<sha256>`` (the bytes). Every journal write is atomic.
An entry is journalled as ``pending`` before any file is touched and marked ``applied`` after the
last one, so a crash in between leaves a record the next ``open`` reconciles with the disk.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import hashlib
import json
import os
import secrets
import stat
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Iterator, Mapping

from curator import fsio
from curator.change import Change, check_name, digest
from curator.errors import ConflictError, CuratorError, InputError

INDEX_NAME = "MEMORY.md"
JOURNAL_VERSION = 1
MAX_HISTORY = 200  # oldest undo entries are forgotten beyond this; their blobs are collected
LOCK_TIMEOUT_S = 10.0
NEW_FILE_MODE = 0o600  # bearer files are private; a new file copies MEMORY.md's mode when there is one


def default_state_dir(memory_dir: Path) -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    key = hashlib.sha256(str(memory_dir).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path(base) / "seat-curator" / key


@dataclass(frozen=True)
class Fingerprint:
    """What the store last saw of a file. ``sha256`` None = the file did not exist."""

    size: int
    mtime_ns: int
    sha256: str | None


ABSENT = Fingerprint(0, 0, None)


@dataclass(frozen=True)
class FileStep:
    before: str | None  # sha256 of the bytes before (None = absent)
    after: str | None
    mode: int  # permission bits to give the file when it is (re)created


@dataclass(frozen=True)
class AppliedChange:
    """One journal entry: a change as applied, with enough to restore either side byte for byte."""

    id: str
    description: str
    kind: str
    applied_at: str  # ISO 8601, UTC
    files: Mapping[str, FileStep]
    bytes_saved: int
    entry_ids: tuple[str, ...]
    warnings: tuple[str, ...]
    state: str  # pending | applied | undone

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "description": self.description,
            "kind": self.kind,
            "applied_at": self.applied_at,
            "files": {n: {"before": s.before, "after": s.after, "mode": s.mode} for n, s in self.files.items()},
            "bytes_saved": self.bytes_saved,
            "entry_ids": list(self.entry_ids),
            "warnings": list(self.warnings),
            "state": self.state,
        }

    @classmethod
    def from_json(cls, data: dict) -> "AppliedChange":
        files = {check_name(n): FileStep(s["before"], s["after"], int(s["mode"])) for n, s in data["files"].items()}
        return cls(
            id=str(data["id"]),
            description=str(data["description"]),
            kind=str(data.get("kind", "")),
            applied_at=str(data["applied_at"]),
            files=MappingProxyType(files),
            bytes_saved=int(data.get("bytes_saved", 0)),
            entry_ids=tuple(data.get("entry_ids", ())),
            warnings=tuple(data.get("warnings", ())),
            state=str(data["state"]),
        )

    def with_state(self, state: str) -> "AppliedChange":
        return dataclasses.replace(self, state=state)


class SeatStore:
    """Open with ``SeatStore.open(memory_dir)``; read files through it, then ``apply`` changes."""

    def __init__(self, memory_dir: Path, state_dir: Path):
        self.memory_dir = memory_dir
        self.state_dir = state_dir
        self._seen: dict[str, Fingerprint] = {}
        self._done: list[AppliedChange] = []  # oldest first; the last is what undo reverts
        self._undone: list[AppliedChange] = []  # the last is what redo re-applies

    # -- opening -------------------------------------------------------------------------------
    @classmethod
    def open(cls, memory_dir: str | Path, *, state_dir: str | Path | None = None) -> "SeatStore":
        path = Path(memory_dir).expanduser()
        try:
            resolved = path.resolve(strict=True)
        except (FileNotFoundError, RuntimeError):
            raise InputError("no such memory directory", path=path) from None
        if not resolved.is_dir():
            raise InputError("is not a directory", path=path)
        state = Path(state_dir).expanduser() if state_dir is not None else default_state_dir(resolved)
        try:
            state.mkdir(parents=True, exist_ok=True, mode=0o700)
            (state / "blobs").mkdir(exist_ok=True, mode=0o700)
        except OSError as err:
            raise InputError(f"cannot create the curator state dir: {err.strerror}", path=state) from None
        store = cls(resolved, state)
        with store._locked():
            store._load_journal()
            store._reconcile_pending()
        return store

    @property
    def journal_path(self) -> Path:
        return self.state_dir / "journal.json"

    # -- reading -------------------------------------------------------------------------------
    def path_of(self, name: str) -> Path:
        """The file's path, refusing names that leave the memory dir or pass through a symlink."""
        check_name(name)
        path = self.memory_dir / name
        walk = self.memory_dir
        for part in Path(name).parts:
            walk = walk / part
            if walk.is_symlink():
                raise InputError("is a symlink; the curator never writes through one", path=walk)
        return path

    def read(self, name: str) -> bytes:
        """The file's bytes; remembered as the version a later ``apply`` may overwrite."""
        data, fingerprint = self._current(name)
        if data is None:
            raise InputError("no such file", path=self.memory_dir / name)
        self._seen[name] = fingerprint
        return data

    def exists(self, name: str) -> bool:
        return self._current(name)[0] is not None

    def reload(self) -> None:
        """Forget what was read (the next read is the new baseline) and re-read the journal."""
        self._seen.clear()
        with self._locked():
            self._load_journal()
            self._reconcile_pending()

    def _current(self, name: str) -> tuple[bytes | None, Fingerprint]:
        path = self.path_of(name)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return None, ABSENT
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise InputError("is a symlink; the curator never writes through one", path=path) from None
            raise InputError(f"cannot read: {err.strerror}", path=path) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise InputError("is not a regular file", path=path)
            if info.st_size > fsio.MAX_READ_BYTES:
                raise InputError(f"is {info.st_size:,} bytes, over the safety limit", path=path)
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
        finally:
            os.close(fd)
        # The fd keeps the inode it opened, so size, mtime and bytes all describe one version.
        return data, Fingerprint(len(data), info.st_mtime_ns, digest(data))

    # -- applying ------------------------------------------------------------------------------
    def apply(self, change: Change) -> AppliedChange:
        """Write every file of ``change`` or none; journal it for undo. Raises ConflictError."""
        with self._locked():
            self._load_journal()
            current: dict[str, bytes | None] = {}
            conflicts: list[str] = []
            for name in change.names:
                data, fingerprint = self._current(name)
                current[name] = data
                problem = self._conflict(name, fingerprint, change.base)
                if problem:
                    conflicts.append(problem)
            if conflicts:
                raise ConflictError(
                    "changed on disk since it was loaded; nothing was written: " + "; ".join(conflicts),
                    path=self.memory_dir / change.names[0] if len(conflicts) == 1 else None,
                )
            files = {n: b for n, b in change.files.items() if b != current[n]}
            if not files:
                raise CuratorError("the change would not alter any file", code="NOTHING_TO_CHANGE")

            steps = {}
            for name, new in files.items():
                old = current[name]
                self._put_blob(old)
                self._put_blob(new)
                steps[name] = FileStep(digest(old), digest(new), self._mode_for(name))
            entry = AppliedChange(
                id=secrets.token_hex(6),
                description=change.description,
                kind=change.kind,
                applied_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                files=MappingProxyType(steps),
                bytes_saved=change.bytes_saved,
                entry_ids=change.entry_ids,
                warnings=change.warnings,
                state="pending",
            )
            self._done.append(entry)
            self._undone.clear()
            self._save_journal()

            written: list[str] = []
            try:
                for name in sorted(files):
                    self._write(name, files[name], steps[name].mode)
                    written.append(name)
            except BaseException as err:
                self._roll_back(entry, written, current, err)
                raise
            entry = entry.with_state("applied")
            self._done[-1] = entry
            self._save_journal()
            self._collect_blobs()
            return entry

    def _conflict(self, name: str, now: Fingerprint, base: Mapping[str, str | None]) -> str | None:
        # Size and hash decide: a file rewritten with the same bytes (only its mtime moved) loses
        # nothing if overwritten, so it is not a conflict.
        seen = self._seen.get(name)
        if seen is not None and (seen.sha256 != now.sha256 or seen.size != now.size):
            return f"{name} ({_describe(seen)} when loaded, {_describe(now)} now)"
        if name in base and base[name] != now.sha256:
            then = "absent" if base[name] is None else "another version"
            return f"{name} (the change was planned on {then}, it is {_describe(now)} now)"
        return None

    def _roll_back(self, entry: AppliedChange, written: list[str], current: dict, err: BaseException) -> None:
        """Put back the files already written, then drop the pending entry; if that fails, keep it."""
        try:
            for name in reversed(written):
                self._write(name, current[name], entry.files[name].mode)
        except BaseException:
            raise CuratorError(
                f"saving failed ({err}) and the files already written could not be put back; "
                "the journal keeps the change, so `undo` restores them",
                code="SAVE_FAILED",
            ) from err
        self._done.pop()
        self._save_journal()
        if isinstance(err, OSError):
            raise CuratorError(f"saving failed, nothing changed: {err}", code="SAVE_FAILED") from err

    def _mode_for(self, name: str) -> int:
        try:
            return stat.S_IMODE(os.lstat(self.memory_dir / name).st_mode)
        except FileNotFoundError:
            pass
        try:
            return stat.S_IMODE(os.lstat(self.memory_dir / INDEX_NAME).st_mode)
        except FileNotFoundError:
            return NEW_FILE_MODE

    def _write(self, name: str, data: bytes | None, mode: int) -> None:
        path = self.path_of(name)
        if data is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            fsio.fsync_dir(path.parent)
            self._seen[name] = ABSENT
            return
        exists = path.exists()
        fsio.atomic_write(path, data, mode=None if exists else mode)
        info = os.lstat(path)
        self._seen[name] = Fingerprint(len(data), info.st_mtime_ns, digest(data))

    # -- undo / redo ---------------------------------------------------------------------------
    # These re-read the journal (atomically replaced, so always whole): another curator window on
    # the same seat may have applied or undone something since.
    @property
    def can_undo(self) -> bool:
        self._load_journal()
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        self._load_journal()
        return bool(self._undone)

    def history(self) -> list[AppliedChange]:
        """Applied changes oldest first, then undone ones (the next redo first)."""
        self._load_journal()
        return list(self._done) + list(reversed(self._undone))

    def undo(self) -> AppliedChange:
        return self._step(undo=True)

    def redo(self) -> AppliedChange:
        return self._step(undo=False)

    def _step(self, *, undo: bool) -> AppliedChange:
        with self._locked():
            self._load_journal()  # another curator on this seat may have moved the history
            source, target = (self._done, self._undone) if undo else (self._undone, self._done)
            if not source:
                word = "undo" if undo else "redo"
                raise CuratorError(f"nothing to {word}", code=f"NOTHING_TO_{word.upper()}")
            entry = source[-1]
            self._restore(entry, to_before=undo)
            source.pop()
            entry = entry.with_state("undone" if undo else "applied")
            target.append(entry)
            self._save_journal()
            return entry

    def _restore(self, entry: AppliedChange, *, to_before: bool) -> None:
        """Bring every file of ``entry`` to one side; files already there are left alone."""
        plan: list[tuple[str, str | None]] = []
        conflicts = []
        for name, step in sorted(entry.files.items()):
            want, other = (step.before, step.after) if to_before else (step.after, step.before)
            _, now = self._current(name)
            if now.sha256 == want:
                continue
            if now.sha256 != other:
                conflicts.append(name)
                continue
            plan.append((name, want))
        if conflicts:
            raise ConflictError(
                f"changed on disk since the curator wrote it, so {'undo' if to_before else 'redo'} "
                f"would overwrite someone's edit; nothing was written: {', '.join(conflicts)}",
                path=self.memory_dir / conflicts[0],
            )
        # Read every blob before writing anything, so a missing blob cannot leave half a restore.
        payload = [(name, self._get_blob(sha)) for name, sha in plan]
        for name, data in payload:
            self._write(name, data, entry.files[name].mode)

    # -- journal -------------------------------------------------------------------------------
    def _load_journal(self) -> None:
        try:
            raw = self.journal_path.read_bytes()
        except FileNotFoundError:
            self._done, self._undone = [], []
            return
        try:
            data = json.loads(raw)
            if data.get("version") != JOURNAL_VERSION:
                raise ValueError(f"unknown journal version {data.get('version')!r}")
            if data.get("memory_dir") != str(self.memory_dir):
                raise ValueError(f"journal belongs to {data.get('memory_dir')!r}")
            self._done = [AppliedChange.from_json(e) for e in data["done"]]
            self._undone = [AppliedChange.from_json(e) for e in data["undone"]]
        except (ValueError, KeyError, TypeError, AttributeError, InputError) as err:
            raise InputError(
                f"the undo journal is unreadable ({err}); move it aside to start a new one",
                path=self.journal_path,
            ) from None

    def _save_journal(self) -> None:
        if len(self._done) > MAX_HISTORY:
            del self._done[: len(self._done) - MAX_HISTORY]
        data = {
            "version": JOURNAL_VERSION,
            "memory_dir": str(self.memory_dir),
            "done": [e.to_json() for e in self._done],
            "undone": [e.to_json() for e in self._undone],
        }
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        fsio.atomic_write(self.journal_path, text.encode("utf-8"), mode=0o600)

    def _reconcile_pending(self) -> None:
        """A crash between journalling and the last file write leaves a pending entry: settle it."""
        if not self._done or self._done[-1].state != "pending":
            return
        entry = self._done[-1]
        at_before = all(self._current(n)[1].sha256 == s.before for n, s in entry.files.items())
        if at_before:  # nothing reached the disk: the change never happened
            self._done.pop()
        else:  # all or part of it did: keep it applied, undo brings every file back
            self._done[-1] = entry.with_state("applied")
        self._save_journal()
        self._collect_blobs()

    def _blob_path(self, sha: str) -> Path:
        return self.state_dir / "blobs" / sha

    def _put_blob(self, data: bytes | None) -> None:
        if data is None:
            return
        path = self._blob_path(digest(data))
        if not path.exists():
            fsio.atomic_write(path, data, mode=0o600)

    def _get_blob(self, sha: str | None) -> bytes | None:
        if sha is None:
            return None
        try:
            data = self._blob_path(sha).read_bytes()
        except FileNotFoundError:
            raise InputError("the undo journal lost a saved version", path=self._blob_path(sha)) from None
        if digest(data) != sha:
            raise InputError("a saved version in the undo journal is damaged", path=self._blob_path(sha))
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
        for path in (self.state_dir / "blobs").iterdir():
            if path.name not in keep and not path.name.startswith("."):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer per seat across processes (two curator windows on the same seat)."""
        fd = os.open(self.state_dir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            deadline = time.monotonic() + LOCK_TIMEOUT_S
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise CuratorError(
                            "another curator is saving this seat; try again", path=self.state_dir, code="STORE_BUSY"
                        ) from None
                    time.sleep(0.05)
            yield
        finally:
            os.close(fd)  # closing releases the lock


def _describe(fingerprint: Fingerprint) -> str:
    if fingerprint.sha256 is None:
        return "absent"
    return f"{fingerprint.size:,} bytes, sha256 {fingerprint.sha256[:12]}"
