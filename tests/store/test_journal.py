"""Seat store: apply, conflict refusal, undo/redo byte-identical, also across a new store instance."""

from __future__ import annotations

import json
import os
import stat

import pytest

from curator.change import Change, digest
from curator.errors import ConflictError, CuratorError, InputError
from curator.store import SeatStore
from curator.store.journal import parse_journal

INDEX = b"# Seat memory index\r\n\r\n## Craft hooks\r\n- first lesson \r\n- second lesson\r\n"


@pytest.fixture
def seat(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_bytes(INDEX)
    os.chmod(memory / "MEMORY.md", 0o600)
    (memory / "notes.md").write_bytes(b"# Notes\n")
    return memory, tmp_path / "state"


def test_apply_writes_keeps_mode_and_journals(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    old = store.read("MEMORY.md")
    new = old.replace(b"- second lesson\r\n", b"")
    applied = store.apply(Change("drop second", {"MEMORY.md": new}, bytes_saved=len(old) - len(new)))
    assert (memory / "MEMORY.md").read_bytes() == new
    assert stat.S_IMODE(os.stat(memory / "MEMORY.md").st_mode) == 0o600
    assert applied.state == "applied" and applied.bytes_saved == 17
    journal = json.loads((state / "journal.json").read_text())
    assert [e["description"] for e in journal["done"]] == ["drop second"]
    assert (state / "blobs" / digest(old)).read_bytes() == old
    assert store.can_undo and not store.can_redo


def test_undo_redo_byte_identical_across_new_instance(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    old = store.read("MEMORY.md")
    new = old + b"- third\r\n"
    created = b"# Archive\n"
    store.apply(Change("grow", {"MEMORY.md": new, "ARCHIVE.md": created}))
    assert (memory / "ARCHIVE.md").read_bytes() == created
    # A new file gets MEMORY.md's mode (bearer files are private).
    assert stat.S_IMODE(os.stat(memory / "ARCHIVE.md").st_mode) == 0o600

    restarted = SeatStore.open(memory, state_dir=state)
    assert [h.description for h in restarted.history()] == ["grow"]
    restarted.undo()
    assert (memory / "MEMORY.md").read_bytes() == old
    assert not (memory / "ARCHIVE.md").exists()  # undo of a creation removes the file

    again = SeatStore.open(memory, state_dir=state)
    assert again.can_redo and not again.can_undo
    again.redo()
    assert (memory / "MEMORY.md").read_bytes() == new
    assert (memory / "ARCHIVE.md").read_bytes() == created
    with pytest.raises(CuratorError) as err:
        again.redo()
    assert err.value.code == "NOTHING_TO_REDO"


def test_new_apply_clears_redo(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    old = store.read("MEMORY.md")
    store.apply(Change("a", {"MEMORY.md": old + b"- a\r\n"}))
    store.undo()
    store.apply(Change("b", {"MEMORY.md": old + b"- b\r\n"}))
    assert not store.can_redo
    assert [h.description for h in store.history()] == ["b"]
    # Blobs of the forgotten change are collected; the ones still needed remain.
    blobs = {p.name for p in (state / "blobs").iterdir()}
    assert blobs == {digest(old), digest(old + b"- b\r\n")}


def test_file_changed_on_disk_after_loading_is_refused(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    old = store.read("MEMORY.md")
    agent_version = old + b"- the agent wrote this meanwhile\r\n"
    (memory / "MEMORY.md").write_bytes(agent_version)
    ours = old.replace(b"- first lesson \r\n", b"")
    with pytest.raises(ConflictError) as err:
        store.apply(Change("ours", {"MEMORY.md": ours, "notes.md": b"# Notes\nmore\n"}))
    assert "MEMORY.md" in str(err.value)
    assert err.value.code == "FILE_CHANGED_ON_DISK"
    # Both versions intact: the agent's on disk, ours still in hand; nothing else written.
    assert (memory / "MEMORY.md").read_bytes() == agent_version
    assert (memory / "notes.md").read_bytes() == b"# Notes\n"
    assert not store.can_undo
    assert not (state / "journal.json").exists()
    # After a reload the agent's version is the baseline and a fresh plan applies.
    store.reload()
    base = store.read("MEMORY.md")
    store.apply(Change("ours again", {"MEMORY.md": base + b"- ours\r\n"}))
    assert (memory / "MEMORY.md").read_bytes() == agent_version + b"- ours\r\n"


def test_plan_base_mismatch_is_refused(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    # The lever planned a new ARCHIVE.md as absent, but someone created it meanwhile.
    (memory / "ARCHIVE.md").write_bytes(b"theirs\n")
    with pytest.raises(ConflictError):
        store.apply(Change("archive", {"ARCHIVE.md": b"ours\n"}, base={"ARCHIVE.md": None}))
    assert (memory / "ARCHIVE.md").read_bytes() == b"theirs\n"


def test_only_mtime_moved_is_not_a_conflict(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    old = store.read("MEMORY.md")
    os.utime(memory / "MEMORY.md", ns=(1, 1))
    store.apply(Change("x", {"MEMORY.md": old + b"- x\r\n"}))
    assert (memory / "MEMORY.md").read_bytes() == old + b"- x\r\n"


def test_undo_refuses_when_the_file_changed_since(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    old = store.read("MEMORY.md")
    store.apply(Change("x", {"MEMORY.md": old + b"- x\r\n"}))
    edited = old + b"- x\r\n- agent line\r\n"
    (memory / "MEMORY.md").write_bytes(edited)
    with pytest.raises(ConflictError):
        store.undo()
    assert (memory / "MEMORY.md").read_bytes() == edited
    assert store.can_undo


def test_noop_and_unsafe_names_are_refused(seat, tmp_path):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    with pytest.raises(CuratorError) as err:
        store.apply(Change("same", {"MEMORY.md": INDEX}))
    assert err.value.code == "NOTHING_TO_CHANGE"
    for bad in ("../escape.md", "/etc/passwd", "a/../../b.md", ""):
        with pytest.raises(InputError):
            Change("bad", {bad: b"x"})
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"keep\n")
    (memory / "link.md").symlink_to(outside)
    with pytest.raises(InputError):
        store.apply(Change("through a symlink", {"link.md": b"overwrite\n"}))
    assert outside.read_bytes() == b"keep\n"


def test_garbage_journal_is_named_and_left_alone(seat):
    memory, state = seat
    state.mkdir()
    (state / "journal.json").write_bytes(b"{not json")
    with pytest.raises(InputError) as err:
        SeatStore.open(memory, state_dir=state)
    assert "journal.json" in str(err.value)
    assert (state / "journal.json").read_bytes() == b"{not json"


def test_default_state_dir_is_outside_the_memory_dir(seat, monkeypatch, tmp_path):
    memory, _ = seat
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    store = SeatStore.open(memory)
    assert store.state_dir.parent == tmp_path / "xdg" / "seat-curator"
    assert not str(store.state_dir).startswith(str(memory))



def test_a_relative_xdg_state_home_is_ignored_so_the_journal_does_not_follow_the_cwd(seat, monkeypatch, tmp_path):
    """XDG: a relative path in XDG_STATE_HOME is invalid and ignored. Taken as is, the journal would
    sit under whatever directory the command ran in, and an undo (or check) run elsewhere would
    not find the change."""
    memory, _ = seat
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", "state")
    seen = set()
    for cwd in (tmp_path / "a", tmp_path / "b"):
        cwd.mkdir()
        monkeypatch.chdir(cwd)
        seen.add(SeatStore.open(memory).state_dir)
    assert seen == {tmp_path / "home" / ".local" / "state" / "seat-curator" / next(iter(seen)).name}

def test_two_stores_on_one_seat_do_not_overwrite_each_other(seat):
    memory, state = seat
    first = SeatStore.open(memory, state_dir=state)
    second = SeatStore.open(memory, state_dir=state)
    base = first.read("MEMORY.md")
    assert second.read("MEMORY.md") == base
    first.apply(Change("first", {"MEMORY.md": base + b"- from the first window\r\n"}))
    with pytest.raises(ConflictError):
        second.apply(Change("second", {"MEMORY.md": base + b"- from the second window\r\n"}))
    assert (memory / "MEMORY.md").read_bytes() == base + b"- from the first window\r\n"
    # Both share one journal: the second window sees and can undo what the first applied.
    assert second.can_undo
    assert second.undo().description == "first"
    assert (memory / "MEMORY.md").read_bytes() == base


def test_what_the_store_wrote_is_the_baseline_of_its_next_change(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    old = store.read("MEMORY.md")
    first = old + b"- a\r\n"
    store.apply(Change("a", {"MEMORY.md": first, "notes.md": b"# Notes\nmore\n"}))
    store.apply(Change("b", {"MEMORY.md": first + b"- b\r\n"}))  # no re-read: its own write is not a conflict
    store.undo()
    store.apply(Change("c", {"MEMORY.md": first + b"- c\r\n"}))  # nor is what its undo wrote
    (memory / "MEMORY.md").write_bytes(first + b"- the agent\r\n")
    with pytest.raises(ConflictError):
        store.apply(Change("d", {"MEMORY.md": first + b"- d\r\n"}))


def test_no_temp_file_is_left_behind_by_a_create_a_delete_or_a_replace(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    old = store.read("MEMORY.md")
    store.apply(Change("create", {"MEMORY.md": old + b"- x\r\n", "ARCHIVE.md": b"# Archive\n"}))
    store.undo()  # deletes ARCHIVE.md
    store.redo()  # creates it again
    store.apply(Change("replace", {"ARCHIVE.md": b"# Archive\n- y\n"}))
    assert sorted(p.name for p in memory.iterdir()) == ["ARCHIVE.md", "MEMORY.md", "notes.md"]
    assert not list(state.rglob("*.tmp"))


def test_a_refusal_names_the_file_that_changed_not_the_first_of_the_change(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    old = store.read("MEMORY.md")
    (memory / "MEMORY.md").write_bytes(old + b"- the agent wrote this meanwhile\r\n")
    change = Change("archive", {"ARCHIVE.md": b"# Archive\r\n- first lesson\r\n",
                                "MEMORY.md": old.replace(b"- first lesson \r\n", b"")})
    with pytest.raises(ConflictError) as caught:
        store.apply(change)
    assert caught.value.path == str(memory / "MEMORY.md")
    assert not (memory / "ARCHIVE.md").exists()


def test_the_journal_keeps_one_entry_per_line_and_reads_back_the_same(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    for n in range(3):
        store.apply(Change(f"edit {n}", {"MEMORY.md": store.read("MEMORY.md") + b"- more %d\r\n" % n}))
    store.undo()
    raw = (state / "journal.json").read_bytes()
    entries = [line.strip().rstrip(",") for line in raw.decode("ascii").splitlines() if line.startswith("  {")]
    assert [json.loads(line)["description"] for line in entries] == ["edit 0", "edit 1", "edit 2"]
    journal = json.loads(raw)
    assert [e["description"] for e in journal["done"]] == ["edit 0", "edit 1"]
    assert [e["description"] for e in journal["undone"]] == ["edit 2"]
    fresh = parse_journal(raw, store.memory_dir, state / "journal.json")
    assert fresh == (store._done, store._undone)


def test_a_journal_rewritten_by_another_process_is_read_afresh(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    store.apply(Change("mine", {"MEMORY.md": store.read("MEMORY.md") + b"- more\r\n"}))
    journal = json.loads((state / "journal.json").read_text())
    journal["done"][0]["description"] = "theirs"
    (state / "journal.json").write_text(json.dumps(journal, indent=1))
    assert [entry.description for entry in store.history()] == ["theirs"]


def test_a_file_read_as_absent_that_appears_before_the_save_is_a_conflict(seat):
    memory, state = seat
    store = SeatStore.open(memory, state_dir=state)
    assert store.read_if_exists("new.md") is None
    assert store.read_if_exists("notes.md") == b"# Notes\n"
    (memory / "new.md").write_bytes(b"someone else's\n")
    with pytest.raises(ConflictError):
        store.apply(Change("create", {"new.md": b"mine\n"}))
    assert (memory / "new.md").read_bytes() == b"someone else's\n"
