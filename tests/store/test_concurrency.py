"""An agent writing its own memory while the curator saves: no line it writes is ever lost.

The agent appends to MEMORY.md (or ARCHIVE.md) at the worst moments of a save: the moment the
store's temp file appears (while it is being synced), at a random moment, and in the instant
between the store's last re-check and its rename. After every run the agent's line is in the file,
or the save was refused with FILE_CHANGED_ON_DISK and the file holds the agent's version.
"""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest

from curator import fsio
from curator.change import Change
from curator.errors import ConflictError
from curator.store import SeatStore

RUNS = 100


def big_index() -> bytes:
    """About 18 KB of one-line entries, the size the issue measured the gap on."""
    lines = [b"# Seat memory index", b"", b"## Craft hooks"]
    n = 0
    while sum(len(line) + 1 for line in lines) < 18_000:
        lines.append(b"- lesson %03d: keep the fixture small and the assertion honest, see notes-%03d.md" % (n, n))
        n += 1
    return b"\n".join(lines) + b"\n"


INDEX = big_index()


def fresh_seat(root: Path) -> tuple[Path, Path]:
    memory = root / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_bytes(INDEX)
    return memory, root / "state"


def curator_change(store: SeatStore) -> Change:
    """Drop one entry in the middle, as a merge or an archive would."""
    base = store.read("MEMORY.md")
    return Change("drop lesson 050", {"MEMORY.md": base.replace(b"- lesson 050:", b"- (merged) 050:", 1)})


def append(path: Path, line: bytes) -> None:
    with open(path, "ab") as handle:  # the agent's own write: open, append, close
        handle.write(line)


class Tally:
    def __init__(self):
        self.kept_and_saved = self.refused = self.lost = self.no_append = 0

    def record(self, memory: Path, line: bytes, appended: bool, refused: bool) -> None:
        if not appended:
            self.no_append += 1
            return
        if line not in (memory / "MEMORY.md").read_bytes():
            self.lost += 1
        elif refused:
            self.refused += 1
        else:
            self.kept_and_saved += 1

    def __str__(self) -> str:
        runs = self.kept_and_saved + self.refused + self.lost + self.no_append
        return (f"runs {runs}: line kept and change saved {self.kept_and_saved}, change refused "
                f"{self.refused}, no append in time {self.no_append}, lines lost {self.lost}")


def save_racing(memory: Path, state: Path, agent) -> bool:
    """Apply a change while ``agent`` (started just before) runs in a thread; True if refused."""
    store = SeatStore.open(memory, state_dir=state)
    change = curator_change(store)
    done = threading.Event()
    thread = threading.Thread(target=agent, args=(done,))
    thread.start()
    try:
        store.apply(change)
        refused = False
    except ConflictError as err:
        assert err.code == "FILE_CHANGED_ON_DISK"
        refused = True
    finally:
        done.set()
        thread.join(timeout=10)
    return refused


def test_agent_appending_the_moment_the_temp_file_appears_loses_nothing(tmp_path):
    tally = Tally()
    for run in range(RUNS):
        memory, state = fresh_seat(tmp_path / str(run))
        line = b"- agent line %d\n" % run
        appended = threading.Event()

        def agent(done: threading.Event) -> None:
            while not done.is_set():
                if any(name.startswith(".MEMORY.md.") and name.endswith(".tmp") for name in os.listdir(memory)):
                    append(memory / "MEMORY.md", line)
                    appended.set()
                    return

        refused = save_racing(memory, state, agent)
        tally.record(memory, line, appended.is_set(), refused)
    print(tally)
    assert tally.lost == 0, tally
    assert tally.no_append < RUNS // 2, tally  # the race really was run


def test_agent_appending_at_a_random_moment_loses_nothing(tmp_path):
    # How long one save takes here, so the random moments fall inside it.
    memory, state = fresh_seat(tmp_path / "probe")
    store = SeatStore.open(memory, state_dir=state)
    start = time.perf_counter()
    store.apply(curator_change(store))
    span = time.perf_counter() - start

    tally, rng = Tally(), random.Random(11)
    for run in range(RUNS):
        memory, state = fresh_seat(tmp_path / str(run))
        line = b"- agent line %d\n" % run
        delay = rng.uniform(0, span * 1.5)

        def agent(done: threading.Event) -> None:
            time.sleep(delay)
            append(memory / "MEMORY.md", line)

        refused = save_racing(memory, state, agent)
        tally.record(memory, line, True, refused)
    print(tally)
    assert tally.lost == 0, tally


def write_in_the_last_instant(monkeypatch, target: Path, write) -> dict:
    """Make ``write(target)`` run inside the store's rename of ``target``: after its last
    re-check, right before the rename itself, the narrowest window the file system leaves."""
    real = fsio.swap
    fired = {"n": 0}

    def swap(tmp, path):
        if Path(path) == target and not fired["n"]:
            fired["n"] += 1
            write(target)
        return real(tmp, path)

    monkeypatch.setattr(fsio, "swap", swap)
    return fired


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "plain-rename"])
def test_agent_appending_between_the_recheck_and_the_rename_loses_nothing(tmp_path, monkeypatch, exchange):
    if not exchange:  # a file system that cannot exchange names: the kept descriptor catches it
        monkeypatch.setattr(fsio, "_renameat2", False)
    tally = Tally()
    for run in range(RUNS):
        memory, state = fresh_seat(tmp_path / str(run))
        line = b"- agent line %d\n" % run
        fired = write_in_the_last_instant(monkeypatch, memory / "MEMORY.md", lambda p: append(p, line))
        refused = save_racing(memory, state, lambda done: None)
        assert fired["n"] == 1
        tally.record(memory, line, True, refused)
        # Refused means untouched: the agent's version, byte for byte, and nothing to undo.
        if refused:
            assert (memory / "MEMORY.md").read_bytes() == INDEX + line
            assert not SeatStore.open(memory, state_dir=state).can_undo
        assert not [p for p in memory.iterdir() if p.name.endswith(".tmp")]
    print(tally)
    assert tally.lost == 0 and tally.refused == RUNS, tally


def test_agent_replacing_the_file_by_rename_in_the_last_instant_is_kept(tmp_path, monkeypatch):
    memory, state = fresh_seat(tmp_path)
    theirs = INDEX + b"- written by an agent that saves atomically\n"

    def rename_in(path: Path) -> None:
        (memory / "agent.tmp").write_bytes(theirs)
        os.replace(memory / "agent.tmp", path)

    write_in_the_last_instant(monkeypatch, memory / "MEMORY.md", rename_in)
    assert save_racing(memory, state, lambda done: None) is True
    assert (memory / "MEMORY.md").read_bytes() == theirs


ARCHIVE = b"# Archive\n\n## Craft hooks\n- old lesson \xc2\xb7 archived 2026-11-01\n"


@pytest.mark.parametrize("written", ["ARCHIVE.md", "MEMORY.md"])
def test_every_file_of_a_two_file_change_is_guarded(tmp_path, monkeypatch, written):
    """An archive writes ARCHIVE.md, then MEMORY.md; the agent appends to either while it is
    renamed: the change is refused and both files are as the agent left them."""
    memory, state = fresh_seat(tmp_path)
    (memory / "ARCHIVE.md").write_bytes(ARCHIVE)
    store = SeatStore.open(memory, state_dir=state)
    base = store.read("MEMORY.md")
    moved = b"- lesson 050: keep the fixture small and the assertion honest, see notes-050.md\n"
    change = Change("archive lesson 050", {"MEMORY.md": base.replace(moved, b""),
                                           "ARCHIVE.md": ARCHIVE + moved})
    line = b"- agent line\n"
    fired = write_in_the_last_instant(monkeypatch, memory / written, lambda p: append(p, line))
    with pytest.raises(ConflictError):
        store.apply(change)
    assert fired["n"] == 1
    expected = {"MEMORY.md": INDEX, "ARCHIVE.md": ARCHIVE}
    expected[written] += line
    assert {name: (memory / name).read_bytes() for name in expected} == expected
    assert not SeatStore.open(memory, state_dir=state).can_undo


def writer_open_across_the_rename(monkeypatch, target: Path, line: bytes, delay: float) -> list:
    """An agent that opened ``target`` for appending just before the store's rename and writes
    ``line`` ``delay`` seconds after it, then closes: its write lands in the replaced file."""
    real, threads = fsio.swap, []

    def swap(tmp, path):
        if Path(path) == target and not threads:
            handle = open(target, "ab")

            def late() -> None:
                time.sleep(delay)
                handle.write(line)
                handle.close()

            threads.append(threading.Thread(target=late))
            threads[0].start()
        return real(tmp, path)

    monkeypatch.setattr(fsio, "swap", swap)
    return threads


def test_a_writer_holding_the_file_open_across_the_rename_loses_nothing(tmp_path, monkeypatch):
    """The store waits until no one holds the replaced file open for writing before it compares,
    so a write that lands after the rename is seen and the file put back (on the old code the
    comparison ran at once, found nothing new, and the late line went with the replaced file)."""
    tally = Tally()
    for run in range(20):
        memory, state = fresh_seat(tmp_path / str(run))
        line = b"- agent line %d\n" % run
        threads = writer_open_across_the_rename(monkeypatch, memory / "MEMORY.md", line, delay=0.02)
        store = SeatStore.open(memory, state_dir=state)
        with pytest.raises(ConflictError):
            store.apply(curator_change(store))
        threads[0].join()
        tally.record(memory, line, True, True)
    print(tally)
    assert tally.lost == 0 and tally.refused == 20, tally


def test_a_writer_holding_the_file_open_past_the_wait_is_put_back_and_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(fsio, "WRITER_WAIT_S", 0.05)
    memory, state = fresh_seat(tmp_path)
    line = b"- written after the store stopped waiting\n"
    threads = writer_open_across_the_rename(monkeypatch, memory / "MEMORY.md", line, delay=0.3)
    store = SeatStore.open(memory, state_dir=state)
    with pytest.raises(ConflictError):
        store.apply(curator_change(store))
    threads[0].join()
    assert (memory / "MEMORY.md").read_bytes() == INDEX + line  # the agent's file, as it wrote it
