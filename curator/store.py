"""The seat store: the only writer of a seat's memory files.

It applies a ``Change`` atomically per file (curator.fsio), keeps file modes, refuses to overwrite a
file that changed on disk since it last read or wrote it (the agent may be writing its own memory at
the same moment), and keeps a journal of applied changes outside the memory dir, so undo and redo
restore byte-identical files, also after a restart.

Journal layout (in the state dir, one per memory dir): ``journal.json`` (entries with the sha256 of
every file before and after) and ``blobs/<sha256>`` (the bytes). Every journal write is atomic.
An entry is journalled as ``pending`` (``undoing``, ``redoing``) before any file is touched and
marked ``applied`` (``undone``) after the last one. A crash in between leaves a record the next
``open`` settles when no file or every file was reached; a change left half-way is *interrupted*:
``interrupted_change()`` describes it (``seat-curator check`` reports it), ``undo`` rolls it back,
``redo`` finishes it, and no new change is applied until one of them has run.

Every file is written so that nothing anyone else writes to it meanwhile is dropped (``_settle``):
the file is re-checked right before the rename, and what the rename replaced is compared with what
the change was based on afterwards; if it differs, the replaced file is put back and the change is
refused (FILE_CHANGED_ON_DISK). Files that receive text are written before files that give it up
(``write_order``), so a crash between two files leaves moved text in two places, never in none.
"""

from __future__ import annotations

import contextlib
import dataclasses
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
from curator.errors import ConflictError, CuratorError, InputError, from_os_error

INDEX_NAME = "MEMORY.md"
JOURNAL_VERSION = 1
MAX_HISTORY = 200  # oldest undo entries are forgotten beyond this; their blobs are collected
LOCK_TIMEOUT_S = 10.0
NEW_FILE_MODE = 0o600  # bearer files are private; a new file copies MEMORY.md's mode when there is one
IN_TRANSITION = ("pending", "undoing", "redoing")  # journalled before the first file is written


def default_state_dir(memory_dir: Path) -> Path:
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):  # XDG: a relative path is invalid (it would follow the cwd): ignore it
        base = str(Path.home() / ".local" / "state")
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


@dataclass(frozen=True)
class InterruptedChange:
    """A change the journal shows half-way between its two sides: the store was killed (or could
    not put files back) after writing some of its files and before the last."""

    entry: AppliedChange
    at_before: tuple[str, ...]  # files still as they were before the change
    at_after: tuple[str, ...]  # files already as the change makes them
    changed: tuple[str, ...]  # files at neither side (someone wrote to them since)
    memory_dir: Path

    @property
    def verb(self) -> str:
        return {"undoing": "undo", "redoing": "redo"}.get(self.entry.state, "save")

    @property
    def message(self) -> str:
        """One line for people: what was interrupted, where each file stands, what to run. undo
        always brings the files to before the change and redo to after it, so for an interrupted
        undo, undo is what finishes it."""
        parts = [f"{', '.join(names)} {label}" for names, label in (
            (self.at_after, "changed"), (self.at_before, "not yet changed"), (self.changed, "edited since"))
            if names]
        finish, back = ("undo", "redo") if self.verb == "undo" else ("redo", "undo")
        return (f"an interrupted {self.verb} of change {self.entry.id} ({self.entry.description}): "
                f"{'; '.join(parts)}; finish it with `seat-curator {finish} {self.memory_dir}` or roll it back "
                f"with `seat-curator {back} {self.memory_dir}`")

    def to_json(self) -> dict:
        return {"id": self.entry.id, "description": self.entry.description, "kind": self.entry.kind,
                "interrupted": self.verb, "at_before": list(self.at_before), "at_after": list(self.at_after),
                "changed": list(self.changed), "message": self.message}


def interrupted_change(memory_dir: str | Path, *, state_dir: str | Path | None = None) -> InterruptedChange | None:
    """The seat's interrupted change, or None. Reads the journal and the files, writes nothing, and
    says None while a store operation holds the seat's lock (a save under way is not interrupted).
    Raises InputError for an unreadable journal."""
    memory, state = _locate(memory_dir, state_dir)
    journal = state / "journal.json"
    if _absent(journal) or _lock_is_held(state):
        return None
    done, _undone = _parse_journal(fsio.read_bytes(journal), memory, journal)
    if not done or done[-1].state not in IN_TRANSITION:
        return None
    return _where_files_stand(memory, done[-1])


def _where_files_stand(memory: Path, entry: AppliedChange) -> InterruptedChange | None:
    """``entry`` (in transition) as an InterruptedChange, or None if no file or every file was reached."""
    sides = {name: _side(step, _read_current(memory, name)[1].sha256) for name, step in entry.files.items()}
    if len(set(sides.values())) == 1 and "changed" not in sides.values():
        return None  # no file or every file reached: the next store operation settles it silently
    group = lambda side: tuple(sorted(n for n, s in sides.items() if s == side))  # noqa: E731
    return InterruptedChange(entry, group("before"), group("after"), group("changed"), memory)


def state_leftovers(memory_dir: str | Path, *, state_dir: str | Path | None = None) -> list[tuple[Path, int]]:
    """(path, size) of the temp files a killed store operation left in the seat's state dir (undo
    copies and journal writes that never reached their rename). They hold nothing the journal
    needs; the next store operation removes them under the lock."""
    _memory, state = _locate(memory_dir, state_dir)
    stale = time.time() - fsio.TEMP_STALE_S
    return [(directory / name, size) for directory in (state, state / "blobs")
            for name, _target, size in fsio.temp_files(directory, older_than=stale)]


@dataclass(frozen=True)
class SeatState:
    """What the curator's own state says about a seat, for `check` and the app: an interrupted
    change, temp files a killed operation left in the state dir, or a journal that cannot be read."""

    interrupted: InterruptedChange | None = None
    leftovers: tuple[tuple[Path, int], ...] = ()
    problem: str | None = None  # the journal or state dir could not be read

    @property
    def warnings(self) -> tuple[str, ...]:
        found = [self.interrupted.message] if self.interrupted else []
        if self.leftovers:
            total = sum(size for _path, size in self.leftovers)
            names = ", ".join(f"{path} ({size:,} B)" for path, size in self.leftovers)
            found.append(f"{len(self.leftovers)} temp file(s), {total:,} B, left in the curator's state dir by an "
                         f"interrupted operation (no bearer text; the next save or undo removes them): {names}")
        if self.problem:
            found.append(self.problem)
        return tuple(found)


def seat_state(memory_dir: str | Path, *, state_dir: str | Path | None = None) -> SeatState:
    """Read-only: ``interrupted_change`` and ``state_leftovers`` together, problems as a warning."""
    try:
        return SeatState(interrupted_change(memory_dir, state_dir=state_dir),
                         tuple(state_leftovers(memory_dir, state_dir=state_dir)))
    except CuratorError as err:
        return SeatState(problem=str(err))


def write_order(moves: list[tuple[str, bytes | None, bytes | None]]) -> list[tuple[str, bytes | None, bytes | None]]:
    """(name, old, new) moves in the order to write them: the files that grow first, the files
    that shrink (or go) last. A change that moves text moves it from a file that shrinks to one
    that grows, so a crash between two renames leaves the text in both, never in neither: trim
    writes the detail file before MEMORY.md, archive ARCHIVE.md before MEMORY.md, restore and the
    undo of an archive or a trim MEMORY.md first."""
    size = lambda data: 0 if data is None else len(data)  # noqa: E731
    return sorted(moves, key=lambda move: (size(move[1]) - size(move[2]), move[0]))


def _locate(memory_dir: str | Path, state_dir: str | Path | None) -> tuple[Path, Path]:
    path = Path(memory_dir).expanduser()
    try:
        resolved = path.resolve(strict=True)
    except FileNotFoundError:
        raise InputError("no such memory directory", path=path) from None
    except RuntimeError:  # Python 3.11 reports a symlink loop so
        raise InputError("cannot open the memory directory: a symlink loop (ELOOP)", path=path) from None
    except OSError as err:
        raise from_os_error(err, "cannot open the memory directory", path=path) from None
    state = Path(state_dir).expanduser() if state_dir is not None else default_state_dir(resolved)
    return resolved, state


def _lock_is_held(state_dir: Path) -> bool:
    try:
        fd = os.open(state_dir / "lock", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False  # no lock file: no store has ever run here
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _absent(path: Path) -> bool:
    """True only if ``path`` does not exist. os.path.lexists says False for any error, so a file
    behind a directory without search permission would pass for a missing (or empty) journal."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError as err:
        raise from_os_error(err, "cannot look up", path=path) from None
    return False


def _side(step: FileStep, now: str | None) -> str:
    return "after" if now == step.after else "before" if now == step.before else "changed"


def _read_current(memory_dir: Path, name: str) -> tuple[bytes | None, Fingerprint]:
    """A memory file's bytes and fingerprint (None, ABSENT when it does not exist); only regular
    files, never through a symlink, at most MAX_READ_BYTES."""
    path = _safe_path(memory_dir, name)
    handle = fsio.open_regular(path)
    if handle is None:
        return None, ABSENT
    with handle:
        mtime = os.fstat(handle.fileno()).st_mtime_ns
        data = fsio.read_open(handle, path)
    # The handle keeps the inode it opened, so size, mtime and bytes all describe one version.
    return data, Fingerprint(len(data), mtime, digest(data))


def _safe_path(memory_dir: Path, name: str) -> Path:
    """The file's path, refusing names that leave the memory dir or pass through a symlink."""
    check_name(name)
    walk = memory_dir
    for part in Path(name).parts:
        walk = walk / part
        try:
            linked = walk.is_symlink()
        except OSError as err:  # e.g. a directory without search permission
            raise from_os_error(err, "cannot look up", path=walk) from None
        if linked:
            raise InputError("is a symlink; the curator never writes through one", path=walk)
    return memory_dir / name


def _parse_journal(raw: bytes, memory_dir: Path, path: Path) -> tuple[list[AppliedChange], list[AppliedChange]]:
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


def _appended(base: bytes | None, now: bytes | None) -> bytes | None:
    """What was appended to ``base`` to make ``now``; None if ``now`` is not ``base`` plus more."""
    if base is None or now is None or len(now) <= len(base) or not now.startswith(base):
        return None
    return now[len(base):]


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
        resolved, state = _locate(memory_dir, state_dir)
        if not resolved.is_dir():
            raise InputError("is not a directory", path=memory_dir)
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

    @property
    def journal_path(self) -> Path:
        return self.state_dir / "journal.json"

    # -- reading -------------------------------------------------------------------------------
    def path_of(self, name: str) -> Path:
        """The file's path, refusing names that leave the memory dir or pass through a symlink."""
        return _safe_path(self.memory_dir, name)

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
        with self._locked() as started:
            self._load_journal()
            self._reconcile_pending()
            self._remove_leftover_temps(started)

    def _current(self, name: str) -> tuple[bytes | None, Fingerprint]:
        return _read_current(self.memory_dir, name)

    @property
    def interrupted(self) -> InterruptedChange | None:
        """The interrupted change this store sees in its journal (see ``interrupted_change``)."""
        self._load_journal()
        if not self._done or self._done[-1].state not in IN_TRANSITION:
            return None
        return _where_files_stand(self.memory_dir, self._done[-1])

    # -- applying ------------------------------------------------------------------------------
    def apply(self, change: Change) -> AppliedChange:
        """Write every file of ``change`` or none; journal it for undo. Raises ConflictError."""
        with self._locked():
            self._load_journal()
            self._reconcile_pending()
            self._refuse_if_interrupted()
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
            history = (list(self._done), list(self._undone))
            self._done.append(entry)
            self._undone.clear()
            try:
                self._save_journal()
            except CuratorError:
                self._done, self._undone = history
                raise
            self._carry_out(entry, write_order([(n, current[n], files[n]) for n in files]), history)
            entry = entry.with_state("applied")
            self._done[-1] = entry
            self._save_journal(written=True)
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

    def _refuse_if_interrupted(self) -> None:
        if self._done and self._done[-1].state in IN_TRANSITION:
            found = _where_files_stand(self.memory_dir, self._done[-1])  # (under our own lock)
            what = found.message if found else f"change {self._done[-1].id} was interrupted"
            raise CuratorError(f"{what}; nothing new is saved until then", path=self.memory_dir,
                               code="CHANGE_INTERRUPTED")

    def _carry_out(self, entry: AppliedChange, moves: list, history: tuple[list, list],
                   *, carry_appends: bool = False) -> dict[str, tuple[bytes | None, bytes | None]]:
        """Write each (name, old, new) move in order. If one fails, put back the files already
        written (last first, keeping anything appended to them since) and the journal as it was
        (``history``); if that fails too, the journal keeps the entry in transition, which is
        reported as an interrupted change. Returns name -> (replaced, written) as on disk."""
        written: dict[str, tuple[bytes | None, bytes | None]] = {}
        name = old = new = None
        try:
            for name, old, new in moves:
                written[name] = self._settle(name, old, new, entry.files[name].mode, carry_appends=carry_appends)
                self._seen[name] = self._fingerprint(name, written[name][1])  # ours is the new baseline
        except BaseException as err:
            failure = self._save_error(err, name)
            try:
                if name is not None and name not in written and new is not None:
                    # Interrupted after its rename (Ctrl-C, say): it is ours now, so it goes back too.
                    if self._current(name)[1].sha256 == digest(new):
                        written[name] = (old, new)
                for back, (replaced, wrote) in reversed(list(written.items())):
                    _, put = self._settle(back, wrote, replaced, entry.files[back].mode, carry_appends=True)
                    self._seen[back] = self._fingerprint(back, put)
            except BaseException as second:
                raise CuratorError(
                    f"{failure}; the files already written could not be put back ({second}); the journal keeps "
                    f"the change as interrupted: `seat-curator check` describes it, undo rolls it back, redo finishes it",
                    code="SAVE_FAILED",
                ) from err
            self._done, self._undone = history
            with contextlib.suppress(CuratorError):  # if this fails, the next open settles the entry
                self._save_journal()
            if failure is err:
                raise
            raise failure from err
        return written

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
                                 code="SAVE_FAILED")
        return err

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
                extra = _appended(expect, now) if carry_appends and want is not None else None
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
            late = _read_quietly(tmp) if exchanged else fsio.read_open(held, path)
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
        if _read_quietly(swapped_out) == ours:
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
        if _read_quietly(aside) != expect:
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
        return bool(self._undone) or bool(self._done and self._done[-1].state in IN_TRANSITION)

    def history(self) -> list[AppliedChange]:
        """Applied changes oldest first, then undone ones (the next redo first)."""
        self._load_journal()
        return list(self._done) + list(reversed(self._undone))

    def undo(self) -> AppliedChange:
        """Revert the last change; an interrupted one is rolled back (its files put as before)."""
        return self._step(undo=True)

    def redo(self) -> AppliedChange:
        """Re-apply the last undone change; an interrupted one is finished."""
        return self._step(undo=False)

    def settle_as_is(self) -> AppliedChange:
        """Settle an interrupted change as its files stand now, writing no file: it becomes an
        applied change whose "after" is what is on disk, so undo still brings back the version
        from before it. The way out when a file was edited since (undo and redo both refuse)."""
        with self._locked():
            self._load_journal()
            self._reconcile_pending()
            if not self._done or self._done[-1].state not in IN_TRANSITION:
                raise CuratorError("no interrupted change to settle", code="NOTHING_TO_SETTLE")
            entry = self._done[-1]
            steps = {}
            for name, step in entry.files.items():
                data, now = self._current(name)
                self._put_blob(data)
                steps[name] = FileStep(step.before, now.sha256, step.mode)
            entry = dataclasses.replace(entry, files=MappingProxyType(steps), state="applied")
            self._done[-1] = entry
            self._save_journal()
            self._collect_blobs()
            return entry

    def _step(self, *, undo: bool) -> AppliedChange:
        with self._locked():
            self._load_journal()  # another curator on this seat may have moved the history
            self._reconcile_pending()
            interrupted = bool(self._done) and self._done[-1].state in IN_TRANSITION
            if interrupted:
                entry = self._done[-1]
            else:
                source = self._done if undo else self._undone
                if not source:
                    word = "undo" if undo else "redo"
                    raise CuratorError(f"nothing to {word}", code=f"NOTHING_TO_{word.upper()}")
                entry = source[-1]
            moves = self._plan_restore(entry, to_before=undo, interrupted=interrupted)
            history = (list(self._done), list(self._undone))
            if not interrupted:  # journal the transition before the first file is touched
                if undo:
                    self._done[-1] = entry.with_state("undoing")
                else:
                    self._undone.pop()
                    self._done.append(entry.with_state("redoing"))
                self._save_journal()
            written = self._carry_out(entry, moves, history, carry_appends=interrupted)
            entry = self._with_written(entry, written, to_before=undo)
            self._done.pop()
            if undo:
                entry = entry.with_state("undone")
                self._undone.append(entry)
            else:
                entry = entry.with_state("applied")
                self._done.append(entry)
            self._save_journal(written=True)
            self._collect_blobs()
            return entry

    def _plan_restore(self, entry: AppliedChange, *, to_before: bool, interrupted: bool) -> list:
        """The (name, old, new) moves that bring every file of ``entry`` to one side, in write
        order; files already there are left alone. A file at neither side is refused, except, for
        an interrupted change, one that is a side plus text appended since (the append is kept)."""
        moves, conflicts = [], []
        for name, step in entry.files.items():
            want, other = (step.before, step.after) if to_before else (step.after, step.before)
            data, now = self._current(name)
            if now.sha256 == want:
                continue
            if now.sha256 == other:
                moves.append((name, data, want))
                continue
            if interrupted and _appended(self._get_blob(want), data) is not None:
                continue  # already as wanted, plus an append since: nothing to write
            if interrupted and _appended(self._get_blob(other), data) is not None:
                moves.append((name, self._get_blob(other), want))  # _settle carries the append over
                continue
            conflicts.append(name)
        if conflicts:
            since = "the interrupted change began" if interrupted else "the curator wrote it"
            way_out = (f"; to keep the files as they are, settle it with `seat-curator redo {self.memory_dir} "
                       "--as-is` (undo then returns to before the change)") if interrupted else ""
            raise ConflictError(
                f"changed on disk since {since}, so {'undo' if to_before else 'redo'} "
                f"would overwrite someone's edit; nothing was written: {', '.join(sorted(conflicts))}{way_out}",
                path=self.memory_dir / sorted(conflicts)[0],
            )
        # Read every blob before writing anything, so a missing blob cannot leave half a restore.
        return write_order([(name, old, self._get_blob(sha)) for name, old, sha in moves])

    def _with_written(self, entry: AppliedChange, written: dict, *, to_before: bool) -> AppliedChange:
        """``entry`` with its steps following what was really written when appends were carried."""
        steps = dict(entry.files)
        for name, (replaced, wrote) in written.items():
            before, after = (wrote, replaced) if to_before else (replaced, wrote)
            if (digest(before), digest(after)) != (steps[name].before, steps[name].after):
                self._put_blob(before)
                self._put_blob(after)
                steps[name] = FileStep(digest(before), digest(after), steps[name].mode)
        return dataclasses.replace(entry, files=MappingProxyType(steps))

    # -- journal -------------------------------------------------------------------------------
    def _load_journal(self) -> None:
        try:
            raw = fsio.read_bytes(self.journal_path)
        except InputError:
            if _absent(self.journal_path):
                self._done, self._undone = [], []
                return
            raise
        self._done, self._undone = _parse_journal(raw, self.memory_dir, self.journal_path)

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
            raise from_os_error(err, done, path=self.journal_path, code="SAVE_FAILED") from None

    def _reconcile_pending(self) -> None:
        """A crash between journalling and the last file write leaves an entry in transition: if no
        file or every file was reached, settle it; a change left half-way stays (interrupted)."""
        if not self._done or self._done[-1].state not in IN_TRANSITION:
            return
        entry = self._done[-1]
        sides = {_side(step, self._current(name)[1].sha256) for name, step in entry.files.items()}
        if sides == {"after"}:  # every file reached (or, for an undo, none): it is applied
            self._done[-1] = entry.with_state("applied")
        elif sides == {"before"}:
            self._done.pop()
            if entry.state != "pending":  # an undo that finished, or a redo that never began
                self._undone.append(entry.with_state("undone"))
        else:
            return
        self._save_journal()
        self._collect_blobs()

    def _remove_leftover_temps(self, started: float) -> None:
        """Temp files in the state dir that a killed store operation left behind (undo copies and
        journal writes that never reached their rename). Only files of the store's own temp naming,
        older than this operation: under the lock no other operation is writing here."""
        for directory in (self.state_dir, self.state_dir / "blobs"):
            for name, _target, _size in fsio.temp_files(directory, older_than=started - 0.001):
                with contextlib.suppress(OSError):
                    os.unlink(directory / name)

    def _blob_path(self, sha: str) -> Path:
        return self.state_dir / "blobs" / sha

    def _put_blob(self, data: bytes | None) -> None:
        if data is None:
            return
        path = self._blob_path(digest(data))
        try:
            if not os.path.lexists(path):
                fsio.atomic_write(path, data, mode=0o600)
        except OSError as err:
            raise from_os_error(err, "cannot save the undo copy, nothing changed", path=path,
                                code="SAVE_FAILED") from None

    def _get_blob(self, sha: str | None) -> bytes | None:
        if sha is None:
            return None
        path = self._blob_path(sha)
        try:
            data = fsio.read_bytes(path)
        except InputError:
            if _absent(path):
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

    @contextlib.contextmanager
    def _locked(self) -> Iterator[float]:
        """One writer per seat across processes (two curator windows on the same seat). Yields the
        time the lock was taken."""
        try:
            fd = os.open(self.state_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as err:
            raise from_os_error(err, "cannot open the curator's lock file", path=self.state_dir / "lock") from None
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
            yield time.time()
        finally:
            os.close(fd)  # closing releases the lock


def _read_quietly(path) -> bytes | object:
    """A file's bytes, or a marker equal to nothing when it cannot be read as a regular file."""
    try:
        handle = fsio.open_regular(path)
        if handle is None:
            return _UNREADABLE
        with handle:
            return fsio.read_open(handle, path)
    except CuratorError:
        return _UNREADABLE


_UNREADABLE = object()


def _describe(fingerprint: Fingerprint) -> str:
    if fingerprint.sha256 is None:
        return "absent"
    return f"{fingerprint.size:,} bytes, sha256 {fingerprint.sha256[:12]}"
