"""The store and Claude Code's background consolidation ("auto dream") never write one memory dir
at once: a live `.consolidate-lock` (a PID, under an hour old) makes a lever wait, then refuse in
one line; the store holds the lock itself while it writes, and leaves it exactly as it found it."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from curator import fsio
from curator.change import Change
from curator.cli import main
from curator.store import SeatStore, consolidate_lock

INDEX = b"# Seat memory index\n\n## Craft hooks\n- first lesson: keep fixtures small\n"


@pytest.fixture
def seat(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(consolidate_lock, "CONSOLIDATE_WAIT_S", 0.2)  # "briefly", kept short for the test
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_bytes(INDEX)
    return memory


@pytest.fixture
def live_pid():
    """A process that stays alive for the test: the auto dream holding the lock."""
    child = subprocess.Popen(["sleep", "600"])
    yield child.pid
    child.kill()
    child.wait()


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def lock_at(memory, content: bytes, age_s: float):
    path = memory / consolidate_lock.LOCK_NAME
    path.write_bytes(content)
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_a_live_consolidation_makes_a_lever_refuse_in_one_line_and_write_nothing(seat, live_pid, capsys):
    lock = lock_at(seat, str(live_pid).encode(), age_s=10)
    before = (lock.read_bytes(), lock.stat().st_mtime_ns)
    code = main(["undo", str(seat)])  # any writing command; undo has nothing to do, so it must refuse first
    store = SeatStore.open(seat)
    with pytest.raises(Exception) as caught:
        store.apply(Change("edit", {"MEMORY.md": store.read("MEMORY.md") + b"- second\n"}))
    _out, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1 and "SEAT_BUSY" in err and f"PID {live_pid}" in err, err
    assert getattr(caught.value, "code", None) == "SEAT_BUSY"
    assert (seat / "MEMORY.md").read_bytes() == INDEX
    assert (lock.read_bytes(), lock.stat().st_mtime_ns) == before


@pytest.mark.parametrize("content, age_s", [("dead", 10), ("live", 2 * 3600), ("empty", 10)])
def test_a_lock_no_one_holds_lets_the_lever_write_and_is_left_as_it_was(seat, live_pid, content, age_s):
    data = {"dead": str(dead_pid()).encode(), "live": str(live_pid).encode(), "empty": b""}[content]
    lock = lock_at(seat, data, age_s)
    before = (lock.read_bytes(), lock.stat().st_mtime_ns)
    store = SeatStore.open(seat)
    store.apply(Change("edit", {"MEMORY.md": store.read("MEMORY.md") + b"- second\n"}))
    store.undo()
    assert (seat / "MEMORY.md").read_bytes() == INDEX
    assert (lock.read_bytes(), lock.stat().st_mtime_ns) == before  # "last consolidated" did not move


def test_the_store_holds_the_lock_while_it_writes_and_removes_one_it_created(seat, monkeypatch):
    seen = []
    real = fsio.write_temp

    def write_temp(path, data, mode, **how):
        if path.name == "MEMORY.md":
            seen.append(consolidate_lock.holder(seat) or (seat / consolidate_lock.LOCK_NAME).read_bytes())
        return real(path, data, mode, **how)

    monkeypatch.setattr(fsio, "write_temp", write_temp)
    store = SeatStore.open(seat)
    store.apply(Change("edit", {"MEMORY.md": store.read("MEMORY.md") + b"- second\n"}))
    assert seen == [str(os.getpid()).encode()]  # Claude Code would read this PID, alive: held
    assert not (seat / consolidate_lock.LOCK_NAME).exists()
