"""An index written as a table: each body row is an entry, the header stays, the levers act on rows."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from curator.errors import InputError
from curator.index_model import parse_index
from curator.levers.archive import ARCHIVE_NAME, plan_archive, plan_restore, search_archive
from curator.levers.merge import merged_entry_text, plan_merge
from curator.levers.trim import plan_trim
from curator.store import SeatStore
from tests.support.seats import seat as core_seat
DAY = date(2026, 11, 29)
TABLE = (
    "# Seat memory index\n"
    "\n"
    "## Decisions\n"
    "\n"
    "| Topic | Decision |\n"
    "|---|---|\n"
    "| Deploy | ship with `make ship`; never on Fridays |\n"
    "| Cache | warm the cache before benchmarks, see [bench](bench.md) |\n"
    "| Deploy again | never on Fridays; ask ops first |\n"
    "\n"
    "## Craft hooks\n"
    "- Keep the WAL flushed before a snapshot.\n"
)


@pytest.fixture
def seat(tmp_path: Path):
    memory = core_seat(tmp_path / "memory", TABLE.encode(), **{"bench.md": "# Bench\n"})
    return memory, SeatStore.open(memory, state_dir=tmp_path / "state")


def test_rows_are_entries_and_the_header_is_not() -> None:
    index = parse_index(TABLE.encode())
    rows = [e for e in index.entries if e.kind == "row"]
    assert [e.line for e in rows] == [7, 8, 9]
    assert all(e.section == "Decisions" for e in rows)
    assert [e.kind for e in index.entries] == ["row", "row", "row", "item"]
    assert rows[1].pointers[0].target == "bench.md"
    assert index.render() == TABLE.encode()


def test_archiving_a_row_keeps_the_table_and_restore_puts_it_back(seat) -> None:
    memory, store = seat
    index = parse_index(store.read("MEMORY.md"))
    last_row = [e for e in index.entries if e.kind == "row"][-1]
    change = plan_archive(memory, index, [last_row.id], today=DAY)
    new_index = change.files["MEMORY.md"].decode()
    assert "| Topic | Decision |\n|---|---|\n| Deploy |" in new_index and "Deploy again" not in new_index
    archived = change.files[ARCHIVE_NAME].decode()
    before = [e for e in index.entries if e.kind == "row"][-2].id  # the stamp records the row above
    assert ("| Topic | Decision |\n|---|---|\n"
            f"| Deploy again | never on Fridays; ask ops first · archived 2026-11-29 <!-- after {before} --> |\n") in archived
    store.apply(change)
    (hit,) = [h for h in search_archive(memory, "Deploy again ask ops first") if "Deploy again" in h.text]
    assert parse_index(store.read(ARCHIVE_NAME)).entry(hit.entry_id).kind == "row"
    restore = plan_restore(memory, parse_index(store.read("MEMORY.md")), hit.entry_id)
    assert restore.files["MEMORY.md"] == TABLE.encode()  # back in its table, byte for byte
    assert "| Topic |" not in restore.files[ARCHIVE_NAME].decode()  # no empty table left behind


def test_archiving_two_rows_writes_one_head(seat) -> None:
    memory, store = seat
    index = parse_index(store.read("MEMORY.md"))
    first, second = [e for e in index.entries if e.kind == "row"][:2]
    archived = plan_archive(memory, index, [first.id, second.id], today=DAY).files[ARCHIVE_NAME].decode()
    assert archived.count("| Topic | Decision |") == 1
    assert [e.kind for e in parse_index(archived.encode()).entries] == ["row", "row"]


def test_rows_merge_cell_by_cell(seat) -> None:
    memory, store = seat
    index = parse_index(store.read("MEMORY.md"))
    deploy, _cache, again = [e for e in index.entries if e.kind == "row"]
    assert merged_entry_text(index, [deploy, again]) == (
        "| Deploy; Deploy again | ship with `make ship`; never on Fridays; ask ops first |")
    change = plan_merge(memory, index, [deploy.id, again.id])
    new = parse_index(change.files["MEMORY.md"])
    assert [e.kind for e in new.entries] == ["row", "row", "item"]
    assert "| Topic | Decision |" in change.files["MEMORY.md"].decode()


def test_a_row_is_never_split(seat) -> None:
    memory, store = seat
    index = parse_index(store.read("MEMORY.md"))
    row = [e for e in index.entries if e.kind == "row"][1]
    with pytest.raises(InputError, match="table row"):
        plan_trim(memory, index, row.id, kind="split")
