"""Trim a selection: each entry's safe trim (split or tighten) in ONE change; the entries with none
named with the reason; splits sharing a detail file, or a new file's name, follow one another."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.index_model import parse_index
from curator.levers.trim_selection import plan_selection_trim
from curator.pointers import check_pointers
from curator.store import SeatStore

WAL_FLUSH = ("- [WAL flush race](wal.md) — flush before fsync or replicas diverge; found in the July "
             "migration when two writers raced on `wal.flush()`, see #4412 and the notes in the runbook.")
WAL_REPLAY = ("- [WAL replay order](wal.md) — replay segments in LSN order; found when the replica restarted "
              "mid-checkpoint and applied segment 12 before 11, see the incident notes from April.")
FILLER = "- In order to rotate the keys run `rotate.sh` first"
SHORT = "- short one"
TWICE_A = ("- Never run the migration twice in one deploy; the second run re-applies step 3 and "
           "duplicates every row of the ledger table (it happened twice in March).")
TWICE_B = ("- Never run the migration twice in one deploy; the staging copy breaks as well because the seed "
           "job replays its fixtures and the counters drift apart.")
INDEX = "\n".join(["# Seat memory index", "", "## Hard rules", WAL_FLUSH, WAL_REPLAY, FILLER, SHORT,
                   TWICE_A, TWICE_B]) + "\n"


@pytest.fixture
def seat(tmp_path: Path) -> tuple[Path, SeatStore]:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "wal.md").write_text("# WAL\n\nold detail\n")
    return memory, SeatStore.open(memory, state_dir=tmp_path / "state")


def snapshot(memory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(memory.iterdir()) if p.is_file()}


def test_the_selection_is_trimmed_in_one_change_that_one_undo_gives_back(seat):
    memory, store = seat
    before = snapshot(memory)
    index = parse_index(store.read("MEMORY.md"))
    plan = plan_selection_trim(memory, index, [e.id for e in index.entries])
    kinds = {index.entry(t.entry_id).text: t.kind for t in plan.trimmed}
    assert kinds == {WAL_FLUSH: "split", WAL_REPLAY: "split", FILLER: "tighten", TWICE_A: "split", TWICE_B: "split"}
    assert [index.entry(u.entry_id).text for u in plan.untrimmed] == [SHORT]
    (reason,) = [u.reason for u in plan.untrimmed]
    assert "split:" in reason and "tighten:" in reason and index.entries[3].id not in reason
    assert plan.change is not None and plan.change.kind == "trim"
    assert plan.change.bytes_saved == sum(t.bytes_saved for t in plan.trimmed) > 0
    store.apply(plan.change)
    wal = (memory / "wal.md").read_text()
    # Both stories went to wal.md, each under its own heading, after what was there.
    assert wal.startswith("# WAL\n\nold detail\n") and "## WAL flush race" in wal and "## WAL replay order" in wal
    assert "`wal.flush()`" in wal and "segment 12 before 11" in wal
    # The same lesson twice: two new detail files, never one overwriting the other.
    new_files = sorted(set(snapshot(memory)) - set(before))
    assert len(new_files) == 2, new_files
    texts = "".join((memory / name).read_text() for name in new_files)
    assert "ledger table" in texts and "seed job replays" in texts
    hot = (memory / "MEMORY.md").read_text()
    assert "In order to" not in hot and "`rotate.sh`" in hot and SHORT in hot
    report = check_pointers(memory)
    assert report.dangling == [] and report.orphans == []
    store.undo()
    assert snapshot(memory) == before


def test_an_entry_with_no_safe_trim_alone_plans_no_change(seat):
    memory, store = seat
    index = parse_index(store.read("MEMORY.md"))
    short = next(e for e in index.entries if e.text == SHORT)
    plan = plan_selection_trim(memory, index, [short.id])
    assert plan.change is None and plan.trimmed == ()
    assert [u.entry_id for u in plan.untrimmed] == [short.id]
