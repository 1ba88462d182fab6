"""Where one MCP ``str_replace`` spends its time in the server process (bench/bench_mcp.md).

``python -m bench.mcp_breakdown [rounds] [dir]`` runs the memory tool's ``str_replace`` in process on the
bench's 18 KB MEMORY.md (a new text every round, as in bench_mcp) with timers wrapped around the
steps, and prints wall and CPU milliseconds per call for each. CPU (thread time) is what a busy
machine changes least; the wall time of the fsyncs is the disk's. Nested rows are part of the row
above them. ``dir`` (e.g. /dev/shm) holds the seat instead of the temp dir. The SDK and stdio
transport are not in process: bench_mcp's echo row is their cost.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench.bench_mcp import _index
from curator.mcp import memory_tool
from curator.mcp.seat import Seat

WALL: dict[str, float] = defaultdict(float)
CPU: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)

# (module, class or None, function, label): indented labels are part of the one above.
STEPS = [
    ("curator.mcp.memory_tool", None, "str_replace", "str_replace, in process"),
    ("curator.mcp.seat", "Seat", "store", "  SeatStore.open (lock, journal, settle)"),
    ("curator.mcp.pointer_cache", "PointerCache", "current", "  pointer report before (reused)"),
    ("curator.mcp.pointer_cache", "PointerCache", "proposed", "  pointer report after"),
    ("curator.mcp.report", None, "parse_cached", "    MEMORY.md parse (markdown-it), 1 of 2 cached"),
    ("curator.mcp.report", None, "check_pointers", "    pointer check"),
    ("curator.mcp.pointer_cache", None, "dir_state", "    dir state (x2)"),
    ("curator.mcp.seat", "Seat", "meter", "  meter line (3 harness profiles)"),
    ("curator.store.seat_store", "SeatStore", "apply", "  SeatStore.apply"),
    ("curator.store.seat_store", "SeatStore", "_load_journal", "    journal read (x2: open, apply)"),
    ("curator.store.seat_store", "SeatStore", "_current", "    file reads + sha256"),
    ("curator.store.seat_store", "SeatStore", "_put_blobs", "    undo copies (new text)"),
    ("curator.store.seat_store", "SeatStore", "_save_journal", "    journal writes (pending, applied)"),
    ("curator.store.seat_store", "SeatStore", "_carry_out", "    MEMORY.md guarded replace"),
    ("curator.store.seat_store", "SeatStore", "_collect_blobs", "    undo copies collected"),
]


def _timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            WALL[label] += time.perf_counter() - wall
            CPU[label] += time.thread_time() - cpu
            CALLS[label] += 1
    return run


@contextlib.contextmanager
def _timers() -> Iterator[None]:
    undo: list[tuple[object, str, object]] = []
    for module, owner, name, label in STEPS:
        target = getattr(importlib.import_module(module), owner) if owner else importlib.import_module(module)
        undo.append((target, name, getattr(target, name)))
        setattr(target, name, _timed(label, getattr(target, name)))
    undo.append((os, "fsync", os.fsync))
    os.fsync = _timed("    fsync (all, by the store)", os.fsync)  # type: ignore[assignment]  # the same call, timed
    try:
        yield
    finally:
        for target, name, original in reversed(undo):
            setattr(target, name, original)


def main(rounds: int, where: str | None = None) -> None:
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        memory = Path(tmp) / "memory"
        memory.mkdir()
        (memory / "MEMORY.md").write_text(_index())
        seat = Seat(memory, state_dir=Path(tmp) / "state")

        def edit(n: int) -> None:
            old = "lesson 100:" if n == 0 else f"lesson 100 r{n - 1:03d}:"
            memory_tool.str_replace(seat, "/memories/MEMORY.md", old, f"lesson 100 r{n:03d}:")

        for n in range(5):  # warm: imports, the state dir, the first undo copies
            edit(n)
        with _timers():
            for n in range(5, 5 + rounds):
                edit(n)
    labels = [label for *_rest, label in STEPS] + ["    fsync (all, by the store)"]
    print(f"{'step':<52} {'wall ms':>8} {'cpu ms':>8} {'calls':>6}")
    for label in labels:
        print(f"{label:<52} {WALL[label] / rounds * 1e3:8.2f} {CPU[label] / rounds * 1e3:8.2f} "
              f"{CALLS[label] / rounds:6.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40, sys.argv[2] if len(sys.argv) > 2 else None)
