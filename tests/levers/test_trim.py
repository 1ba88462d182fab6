"""Trim hooks: split moves text into the detail file and keeps the link; tighten keeps the lesson."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.errors import InputError
from curator.index_model import parse_index
from curator.levers.trim import plan_trim, suggestions
from curator.pointers import check_pointers
from curator.store import SeatStore

LINKED = (
    "- [WAL flush race](wal.md) — flush before fsync or replicas diverge; found in the July "
    "migration when two writers raced on `wal.flush()`, see #4412 and the notes in the runbook."
)
UNLINKED = (
    "- Never run the migration twice in one deploy; the second run re-applies step 3 and "
    "duplicates every row of the ledger table (it happened twice in March)."
)
INDEX = f"# Seat memory index\n\n## Hard rules\n{LINKED}\n{UNLINKED}\n- short one\n"


@pytest.fixture
def seat(tmp_path: Path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "wal.md").write_text("# WAL\n\nold detail\n")
    return memory, SeatStore.open(memory, state_dir=tmp_path / "state")


def test_split_moves_the_rest_into_the_linked_detail_file_and_keeps_the_link(seat):
    memory, store = seat
    index = parse_index(store.read("MEMORY.md"))
    linked = index.entries[0]
    change = plan_trim(memory, index, linked.id, kind="split")
    store.apply(change)
    new_line = parse_index((memory / "MEMORY.md").read_bytes()).entries[0].text
    assert new_line == "- [WAL flush race](wal.md) — flush before fsync or replicas diverge"
    assert (memory / "wal.md").read_text() == (
        "# WAL\n\nold detail\n\n## WAL flush race\n\n"
        "found in the July migration when two writers raced on `wal.flush()`, see #4412 and the notes in the runbook.\n"
    )
    assert change.bytes_saved == len(LINKED) - len(new_line)
    assert check_pointers(memory).dangling == [] and check_pointers(memory).orphans == []
    # Every word of the entry is still on disk, in one of the two files.
    for word in ("fsync", "#4412", "runbook", "`wal.flush()`"):
        assert word in (memory / "MEMORY.md").read_text() + (memory / "wal.md").read_text()


def test_split_without_a_link_creates_and_links_a_new_detail_file(seat):
    memory, store = seat
    index = parse_index(store.read("MEMORY.md"))
    unlinked = index.entries[1]
    change = plan_trim(memory, index, unlinked.id, kind="split")
    (detail,) = [name for name in change.files if name != "MEMORY.md"]
    assert detail == "never-run-the-migration-twice-in-one.md"
    store.apply(change)
    new_line = parse_index((memory / "MEMORY.md").read_bytes()).entries[1].text
    assert new_line == f"- Never run the migration twice in one deploy → [details]({detail})"
    body = (memory / detail).read_text()
    assert body.startswith("# Never run the migration twice in one deploy\n\n")
    assert "duplicates every row of the ledger table (it happened twice in March)." in body
    assert check_pointers(memory).orphans == []
    store.undo()
    assert (memory / "MEMORY.md").read_text() == INDEX
    assert not (memory / detail).exists()


def test_suggestions_cover_the_longest_entries_with_savings_and_meter(seat):
    memory, store = seat
    index = parse_index(store.read("MEMORY.md"))
    found = suggestions(memory, index, threshold_bytes=100, top=5)
    assert {s.entry_id for s in found} == {index.entries[0].id, index.entries[1].id}
    for s in found:
        assert s.bytes_saved > 0
        assert s.meter.bytes == len(index.raw) - s.bytes_saved
    assert suggestions(memory, index, threshold_bytes=10_000) == []


def test_tighten_is_mechanical_and_leaves_code_and_links_alone(tmp_path):
    line = "- In order to  deploy , basically run the the `make  ship` target (target) via [the  docs](d.md)."
    (tmp_path / "MEMORY.md").write_text(f"# Index\n{line}  \n")
    (tmp_path / "d.md").write_text("# D\n")
    index = parse_index((tmp_path / "MEMORY.md").read_bytes())
    change = plan_trim(tmp_path, index, index.entries[0].id, kind="tighten")
    # The parenthetical stays even though it repeats a word: a parenthetical is a fact, never filler.
    assert change.files["MEMORY.md"] == b"# Index\n- To deploy, run the `make  ship` target (target) via [the  docs](d.md).\n"
    with pytest.raises(InputError):
        plan_trim(tmp_path, parse_index(change.files["MEMORY.md"]), index.entries[0].id, kind="tighten")


def test_split_of_an_entry_whose_link_sits_in_the_moved_tail_keeps_a_pointer(tmp_path):
    """The demo seat's long CI-only entry ends in `— [craft](craft.md#ci-only-failures)`: the split
    moves that tail into craft.md, and the kept line must still point there (at the new section)."""
    from curator.demo import example_memory

    for name, content in example_memory("wren").items():
        (tmp_path / name).write_bytes(content)
    index = parse_index((tmp_path / "MEMORY.md").read_bytes())
    entry = next(e for e in index.entries if e.text.startswith("- Reproduce a CI-only failure inside"))
    change = plan_trim(tmp_path, index, entry.id, kind="split")
    kept = parse_index(change.files["MEMORY.md"]).entries
    line = next(e for e in kept if e.text.startswith("- Reproduce a CI-only failure inside"))
    assert line.text.endswith(" → [details](craft.md#reproduce-a-ci-only-failure-inside-the-ci-image-locally)")
    assert [p.target for p in line.pointers if p.kind == "file"] == [
        "craft.md#reproduce-a-ci-only-failure-inside-the-ci-image-locally"]
    detail = change.files["craft.md"].decode("utf-8")
    heading = "## Reproduce a CI-only failure inside the CI image locally\n"
    assert heading in detail and "whether the network is reachable at all" in detail
    # The anchor the kept line uses really exists in the new craft.md (no dangling pointer).
    from curator.pointers import check_pointers

    assert check_pointers(tmp_path, overrides=change.files).dangling == check_pointers(tmp_path).dangling
