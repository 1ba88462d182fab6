"""Seat store benchmarks, each measured side by side with its baseline in the same run.

- A save of an 18 KB MEMORY.md (one entry edited) through ``SeatStore.apply`` with its guards
  against a concurrent writer (the re-check right before the rename, the atomic exchange, the read
  of what the rename replaced, the write order) against the save path as it was before those
  guards: ``BaselineStore`` below, a copy of that apply path kept here only as the baseline. Both
  pay the same undo copies, journal writes and fsyncs, which are most of a save.
  Goal: <= 1.2x. And the same on tmpfs (fsync next to free), no goal: the guards' own cost.
"""

from __future__ import annotations

import secrets
import statistics
import tempfile
import time
from datetime import datetime, UTC
from pathlib import Path
from types import MappingProxyType

from curator import fsio
from curator.change import Change, digest
from curator.errors import ConflictError, CuratorError
from curator.store import ABSENT, AppliedChange, FileStep, Fingerprint, SeatStore

ROUNDS = 31


class BaselineStore(SeatStore):
    """BASELINE ONLY: ``SeatStore.apply`` as it was before the concurrent-writer guards (one
    ``fsio.atomic_write`` per file in name order, no re-check, nothing compared after the rename).
    Never use it to write a seat."""

    def apply(self, change: Change) -> AppliedChange:
        with self._locked():
            self._load_journal()
            current, conflicts = {}, []
            for name in change.names:
                data, fingerprint = self._current(name)
                current[name] = data
                problem = self._conflict(name, fingerprint, change.base)
                if problem:
                    conflicts.append(problem)
            if conflicts:
                raise ConflictError("changed on disk since it was loaded; nothing was written: " + "; ".join(conflicts))
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
                id=secrets.token_hex(6), description=change.description, kind=change.kind,
                applied_at=datetime.now(UTC).isoformat(timespec="seconds"),
                files=MappingProxyType(steps), bytes_saved=change.bytes_saved, entry_ids=change.entry_ids,
                warnings=change.warnings, state="pending",
            )
            self._done.append(entry)
            self._undone.clear()
            self._save_journal()
            for name in sorted(files):
                self._baseline_write(name, files[name])
            entry = entry.with_state("applied")
            self._done[-1] = entry
            self._save_journal()
            self._collect_blobs()
            return entry

    def _baseline_write(self, name: str, data: bytes | None) -> None:
        path = self.path_of(name)
        if data is None:
            path.unlink()
            fsio.fsync_dir(path.parent)
            self._seen[name] = ABSENT
            return
        fsio.atomic_write(path, data, mode=None)
        info = path.lstat()
        self._seen[name] = Fingerprint(len(data), info.st_mtime_ns, digest(data))


def index_18kb() -> bytes:
    lines = [b"# Seat memory index", b"", b"## Craft hooks"]
    n = 0
    while sum(len(line) + 1 for line in lines) < 18_000:
        lines.append(b"- lesson %03d: keep the fixture small and the assertion honest, see notes-%03d.md" % (n, n))
        n += 1
    return b"\n".join(lines) + b"\n"


def _saver(root: Path, store_class: type[SeatStore]):
    """A seat and a function that saves one edit to it (alternating between two versions)."""
    memory = root / "memory"
    memory.mkdir(parents=True)
    raw = index_18kb()
    (memory / "MEMORY.md").write_bytes(raw)
    store = store_class.open(memory, state_dir=root / "state")
    versions = [raw.replace(b"- lesson 050:", b"- lesson 050 (edited):", 1), raw]
    turn = {"n": 0}

    def save() -> None:
        store.read("MEMORY.md")
        store.apply(Change("edit one entry", {"MEMORY.md": versions[turn["n"] % 2]}))
        turn["n"] += 1

    return save


def _side_by_side(where: str | None) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        guarded = _saver(Path(tmp) / "guarded", SeatStore)
        baseline = _saver(Path(tmp) / "baseline", BaselineStore)
        guarded(), baseline()  # warm: state dirs, first undo copies
        ms, bs = [], []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            guarded()
            ms.append(time.perf_counter() - start)
            start = time.perf_counter()
            baseline()
            bs.append(time.perf_counter() - start)
    return statistics.median(ms), statistics.median(bs)


def bench_save_18kb_vs_unguarded_save() -> dict:
    measured, base = _side_by_side(None)
    return {"name": "store: 18 KB save, guarded vs unguarded apply", "measured_s": measured, "baseline_s": base,
            "ratio": measured / base, "goal": "<= 1.2x",
            "note": f"medians of {ROUNDS} interleaved saves on the temp dir's disk, fsyncs included on both sides"}


def bench_save_18kb_vs_unguarded_save_in_memory() -> dict:
    """The same on tmpfs, where an fsync costs next to nothing: what the guards cost beside the
    store's own work rather than beside the disk. No goal; for honesty about the overhead."""
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None
    measured, base = _side_by_side(shm)
    return {"name": "store: 18 KB save, guarded vs unguarded, tmpfs", "measured_s": measured, "baseline_s": base,
            "ratio": measured / base, "goal": "-",
            "note": f"medians of {ROUNDS} interleaved saves on {shm or 'the temp dir (no /dev/shm)'}"}


ROWS = [bench_save_18kb_vs_unguarded_save, bench_save_18kb_vs_unguarded_save_in_memory]
