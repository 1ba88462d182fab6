"""Journal states are a JournalState, saved as their plain names: a journal written before they were
named (the same bytes) still loads, undoes and redoes, and one with a state nobody wrote is refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from curator.change import Change, digest
from curator.cli import main
from curator.errors import InputError
from curator.store import JournalState, SeatStore, interrupted_change

OLD = b"# Memory\n- first lesson\n- second lesson\n"
NEW = b"# Memory\n- first lesson\n"
ARCHIVE = b"# Archive\n- second lesson\n"


def _entry(state: str, files: dict[str, tuple[bytes | None, bytes | None]]) -> dict:
    """One journal entry as the store wrote it before its states were named."""
    return {"id": "a1b2c3d4e5f6", "description": "archive second", "kind": "archive",
            "applied_at": "2026-11-30T10:00:00+00:00",
            "files": {name: {"before": digest(before), "after": digest(after), "mode": 0o600}
                      for name, (before, after) in files.items()},
            "bytes_saved": len(OLD) - len(NEW), "entry_ids": [], "warnings": [], "state": state}


def _old_journal(tmp_path: Path, state: str, on_disk: dict[str, bytes | None],
                 done: bool = True) -> tuple[Path, Path]:
    """A seat whose journal.json holds one entry in ``state``, written as plain JSON text."""
    memory, state_dir = tmp_path / "memory", tmp_path / "state"
    (state_dir / "blobs").mkdir(parents=True)
    memory.mkdir()
    for name, data in on_disk.items():
        if data is not None:
            (memory / name).write_bytes(data)
            os.chmod(memory / name, 0o600)
    for data in (OLD, NEW, ARCHIVE):
        (state_dir / "blobs" / digest(data)).write_bytes(data)
    entry = _entry(state, {"MEMORY.md": (OLD, NEW), "ARCHIVE.md": (None, ARCHIVE)})
    journal = {"version": 1, "memory_dir": str(memory.resolve()),
               "done": [entry] if done else [], "undone": [] if done else [entry]}
    (state_dir / "journal.json").write_text(json.dumps(journal, indent=1) + "\n")
    return memory, state_dir


def _saved_states(state_dir: Path) -> tuple[list[str], list[str]]:
    journal = json.loads((state_dir / "journal.json").read_text())
    return [e["state"] for e in journal["done"]], [e["state"] for e in journal["undone"]]


def test_an_old_applied_journal_loads_undoes_and_redoes(tmp_path: Path) -> None:
    memory, state_dir = _old_journal(tmp_path, "applied", {"MEMORY.md": NEW, "ARCHIVE.md": ARCHIVE})
    store = SeatStore.open(memory, state_dir=state_dir)
    [entry] = store.history()
    assert entry.state is JournalState.APPLIED
    undone = store.undo()
    assert undone.state is JournalState.UNDONE
    assert (memory / "MEMORY.md").read_bytes() == OLD and not (memory / "ARCHIVE.md").exists()
    assert _saved_states(state_dir) == ([], ["undone"])
    assert b'"state": "undone"' in (state_dir / "journal.json").read_bytes()  # the plain name, as before
    SeatStore.open(memory, state_dir=state_dir).redo()
    assert (memory / "MEMORY.md").read_bytes() == NEW and (memory / "ARCHIVE.md").read_bytes() == ARCHIVE
    assert _saved_states(state_dir) == (["applied"], [])


def test_an_old_undone_journal_redoes(tmp_path: Path) -> None:
    memory, state_dir = _old_journal(tmp_path, "undone", {"MEMORY.md": OLD}, done=False)
    entry = SeatStore.open(memory, state_dir=state_dir).redo()
    assert entry.state is JournalState.APPLIED and (memory / "MEMORY.md").read_bytes() == NEW


def test_an_old_pending_entry_whose_files_all_arrived_is_settled_as_applied(tmp_path: Path) -> None:
    memory, state_dir = _old_journal(tmp_path, "pending", {"MEMORY.md": NEW, "ARCHIVE.md": ARCHIVE})
    [entry] = SeatStore.open(memory, state_dir=state_dir).history()
    assert entry.state is JournalState.APPLIED and _saved_states(state_dir) == (["applied"], [])


@pytest.mark.parametrize("state, verb", [("pending", "save"), ("undoing", "undo"), ("redoing", "redo")])
def test_an_old_half_way_entry_is_interrupted_and_undo_rolls_it_back(tmp_path: Path, state: str, verb: str) -> None:
    # ARCHIVE.md received its line, MEMORY.md has not given it up yet: half-way.
    memory, state_dir = _old_journal(tmp_path, state, {"MEMORY.md": OLD, "ARCHIVE.md": ARCHIVE})
    found = interrupted_change(memory, state_dir=state_dir)
    assert found is not None and found.verb == verb and found.at_after == ("ARCHIVE.md",)
    assert found.to_json()["interrupted"] == verb
    SeatStore.open(memory, state_dir=state_dir).undo()
    assert (memory / "MEMORY.md").read_bytes() == OLD and not (memory / "ARCHIVE.md").exists()


def test_a_state_no_store_ever_wrote_makes_the_journal_unreadable(tmp_path: Path) -> None:
    memory, state_dir = _old_journal(tmp_path, "half-done", {"MEMORY.md": NEW, "ARCHIVE.md": ARCHIVE})
    before = (state_dir / "journal.json").read_bytes()
    with pytest.raises(InputError, match="the undo journal is unreadable"):
        SeatStore.open(memory, state_dir=state_dir)
    assert (state_dir / "journal.json").read_bytes() == before


def test_undo_json_prints_the_state_as_its_plain_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory, state_dir = _old_journal(tmp_path, "applied", {"MEMORY.md": NEW, "ARCHIVE.md": ARCHIVE})
    assert main(["undo", str(memory), "--state-dir", str(state_dir), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["undone"]["state"] == "undone" and printed["undone"]["id"] == "a1b2c3d4e5f6"


def test_a_state_dir_shared_by_two_seats_is_named_as_such_and_nothing_is_written(tmp_path: Path, capsys) -> None:
    """Two seats given one --state-dir: the second is told the journal is another seat's (readable,
    to be kept), not that it is unreadable and should be moved aside."""
    state_dir = tmp_path / "state"
    seats = []
    for name in ("one", "two"):
        seat = tmp_path / name
        seat.mkdir()
        (seat / "MEMORY.md").write_bytes(b"# Index\n- a line\n")
        seats.append(seat)
    SeatStore.open(seats[0], state_dir=state_dir).apply(
        Change(description="edit", files={"MEMORY.md": b"# Index\n- a line, edited\n"}, kind="edit"))
    journal = (state_dir / "journal.json").read_bytes()
    assert main(["undo", str(seats[1]), "--state-dir", str(state_dir)]) != 0
    err = capsys.readouterr().err
    assert "holds the undo journal of another memory dir" in err and str(seats[0]) in err
    assert "unreadable" not in err and len(err.strip().splitlines()) == 1
    assert (state_dir / "journal.json").read_bytes() == journal
    assert (seats[1] / "MEMORY.md").read_bytes() == b"# Index\n- a line\n"
