"""Crash safety of the seat store: fault injection and a real SIGKILL in the middle of a save."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from curator import fsio
from curator.analysis import analyze
from curator.change import Change
from curator.errors import CuratorError
from curator.fsio import TEMP_STALE_S, leftover_temps
from curator.index_model import parse_index
from curator.store import SeatStore, interrupted_change

pytestmark = pytest.mark.crash

OLD_INDEX = b"# Seat memory index\n\n## Craft hooks\n- keep this lesson\n"
OLD_NOTES = b"# Notes\n\nold detail\n"


@pytest.fixture
def seat(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_bytes(OLD_INDEX)
    (memory / "notes.md").write_bytes(OLD_NOTES)
    return memory, tmp_path / "state"


def failing_replace(monkeypatch, memory, *, fail_on: int):
    """Renames (os.replace, or the store's atomic exchange) that raise on the n-th rename into the
    memory dir (1-based); others pass."""
    calls = {"n": 0}

    def failing(real):
        def rename(src, dst, *args, **kwargs):
            if os.path.dirname(os.fspath(dst)) == str(memory):
                calls["n"] += 1
                if calls["n"] == fail_on:
                    raise OSError(28, "No space left on device")
            return real(src, dst, *args, **kwargs)

        return rename

    monkeypatch.setattr(os, "replace", failing(os.replace))
    monkeypatch.setattr(fsio, "swap", failing(fsio.swap))
    return calls


def leftovers(memory):
    return sorted(p.name for p in memory.iterdir() if p.name.endswith(".tmp"))


def test_rename_failure_leaves_old_file_and_no_journal_entry(seat, monkeypatch):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    store.read("MEMORY.md")
    failing_replace(monkeypatch, memory, fail_on=1)
    with pytest.raises(CuratorError) as err:
        store.apply(Change("grow", {"MEMORY.md": OLD_INDEX + b"- new\n"}))
    assert err.value.code == "SAVE_FAILED"
    assert (memory / "MEMORY.md").read_bytes() == OLD_INDEX
    assert leftovers(memory) == []
    assert not store.can_undo
    assert not SeatStore.open(memory, state_dir=state).can_undo


def test_second_file_failing_rolls_back_the_first(seat, monkeypatch):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    failing_replace(monkeypatch, memory, fail_on=2)  # MEMORY.md is written first, notes.md fails
    change = Change("both", {"MEMORY.md": OLD_INDEX + b"- new\n", "notes.md": OLD_NOTES + b"new\n"})
    with pytest.raises(CuratorError):
        store.apply(change)
    assert (memory / "MEMORY.md").read_bytes() == OLD_INDEX
    assert (memory / "notes.md").read_bytes() == OLD_NOTES
    assert leftovers(memory) == []
    assert not SeatStore.open(memory, state_dir=state).can_undo


# The child applies a change through the store and stalls in the fsync of the N-th temp file it
# writes into the memory dir (after the bytes are written, before the rename), announcing it on
# stdout; the parent then SIGKILLs it. No cleanup code can run.
CHILD = textwrap.dedent(
    """
    import os, sys, time
    from curator.change import Change
    from curator.store import SeatStore

    memory, state, stall_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
    real_fsync = os.fsync
    seen = {"n": 0}

    def slow_fsync(fd):
        target = os.readlink(f"/proc/self/fd/{fd}")
        if os.path.dirname(target) == memory and target.endswith(".tmp"):
            seen["n"] += 1
            if seen["n"] == stall_at:
                print("STALLED", flush=True)
                time.sleep(60)
        return real_fsync(fd)

    os.fsync = slow_fsync
    store = SeatStore.open(memory, state_dir=state)
    base = store.read("MEMORY.md")
    big = base + b"- " + b"x" * (8 * 1024 * 1024) + b"\\n"
    store.apply(Change("big save", {"MEMORY.md": big, "notes.md": b"# Notes\\n\\nnew detail\\n"}))
    print("DONE", flush=True)
    """
)


def run_and_kill(memory, state, stall_at: int) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(memory), str(state), str(stall_at)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        line = child.stdout.readline()
        assert line == b"STALLED\n", child.stderr.read()
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
        child.stderr.close()


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc to find the temp file")
def test_sigkill_between_write_and_rename_leaves_old_file_intact(seat):
    memory, state = seat
    run_and_kill(memory, state, stall_at=1)  # killed while the 8 MB MEMORY.md temp is being synced
    raw = (memory / "MEMORY.md").read_bytes()
    assert raw == OLD_INDEX
    assert parse_index(raw).entries[0].text == "- keep this lesson"
    assert (memory / "notes.md").read_bytes() == OLD_NOTES
    # The killed save was journalled as pending; reopening sees nothing reached the disk and drops it.
    store = SeatStore.open(memory, state_dir=state)
    assert not store.can_undo
    assert store.read("MEMORY.md") == OLD_INDEX
    # The temp file the killed save left is reported by the seat's analysis (once it is clearly stale),
    # never deleted: it holds the bytes that were being saved.
    [temp] = leftovers(memory)
    assert leftover_temps(memory, now=time.time() + TEMP_STALE_S) == [(temp, "MEMORY.md")]
    os.utime(memory / temp, (time.time() - 3600, time.time() - 3600))
    warnings = analyze(memory).warnings
    assert any(temp in w and "interrupted save of MEMORY.md" in w for w in warnings), warnings
    assert leftovers(memory) == [temp]


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc to find the temp file")
def test_sigkill_between_two_files_is_undoable_after_restart(seat):
    memory, state = seat
    run_and_kill(memory, state, stall_at=2)  # MEMORY.md renamed into place, notes.md not yet
    assert (memory / "MEMORY.md").read_bytes().startswith(OLD_INDEX + b"- xxx")
    assert (memory / "notes.md").read_bytes() == OLD_NOTES
    store = SeatStore.open(memory, state_dir=state)
    # Half-way: the journal keeps the change as interrupted (reported, not silently called applied).
    assert [h.state for h in store.history()] == ["pending"]
    found = interrupted_change(memory, state_dir=state)
    assert (found.at_after, found.at_before, found.changed) == (("MEMORY.md",), ("notes.md",), ())
    assert "big save" in found.message and "seat-curator undo" in found.message
    store.undo()  # rolls it back: MEMORY.md comes back; notes.md was never touched and is left alone
    assert (memory / "MEMORY.md").read_bytes() == OLD_INDEX
    assert (memory / "notes.md").read_bytes() == OLD_NOTES


def test_interrupt_right_after_a_rename_puts_that_file_back_too(seat, monkeypatch):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    real = fsio.swap
    calls = {"n": 0}

    def swap_then_interrupt(tmp, path):
        result = real(tmp, path)
        calls["n"] += 1
        if calls["n"] == 1:  # Ctrl-C lands just after the first file is in place
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(fsio, "swap", swap_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        store.apply(Change("both", {"MEMORY.md": OLD_INDEX + b"- new\n", "notes.md": OLD_NOTES + b"new\n"}))
    assert (memory / "MEMORY.md").read_bytes() == OLD_INDEX
    assert (memory / "notes.md").read_bytes() == OLD_NOTES
    assert leftovers(memory) == []
    assert not SeatStore.open(memory, state_dir=state).can_undo
