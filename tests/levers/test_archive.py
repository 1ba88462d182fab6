"""Move-to-archive: ARCHIVE.md on first need, detail files stay reachable, restore round-trips."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from curator.errors import InputError
from curator.index_model import parse_index
from curator.levers.archive import ARCHIVE_HEADER, STAMP, plan_archive, plan_restore, search_archive
from curator.pointers import check_pointers
from curator.store import SeatStore

INDEX = (
    "# Seat memory index\n"
    "\n"
    "## Craft hooks\n"
    "- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays.\n"
    "- Keep the cache warm before benchmarks.\n"
    "\n"
    "## Lane anchors (highest drift — re-verify live)\n"
    "- Ticket #4412: the WAL flush race, head `a1b2c3d`.\n"
    "- [Field notes](field-notes.md) — what broke in the July migration.\n"
)
DAY = date(2026, 11, 29)


@pytest.fixture
def seat(tmp_path: Path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "deploy.md").write_text("# Deploy\n")
    (memory / "field-notes.md").write_text("# Field notes\n")
    store = SeatStore.open(memory, state_dir=tmp_path / "state")
    return memory, store


def load(store):
    return parse_index(store.read("MEMORY.md"))


def test_archive_creates_archive_md_and_keeps_detail_files_reachable(seat):
    memory, store = seat
    index = load(store)
    deploy, cache, ticket, field = (e.id for e in index.entries)
    change = plan_archive(memory, index, [field, deploy], today=DAY)
    assert change.warnings == ()
    store.apply(change)
    archive = (memory / "ARCHIVE.md").read_text()
    assert archive == (
        ARCHIVE_HEADER
        + "\n## Craft hooks\n"
        f"- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays. · archived 2026-11-29 <!-- before {cache} -->\n"
        "\n## Lane anchors (highest drift — re-verify live)\n"
        f"- [Field notes](field-notes.md) — what broke in the July migration. · archived 2026-11-29 <!-- after {ticket} -->\n"
    )
    assert "grep" in ARCHIVE_HEADER and "MEMORY.md" in ARCHIVE_HEADER
    index_now = (memory / "MEMORY.md").read_text()
    assert "deploy.md" not in index_now and "field-notes.md" not in index_now
    report = check_pointers(memory)
    assert report.orphans == [] and report.dangling == []
    assert change.bytes_saved == len(INDEX.encode()) - len(index_now.encode())


def test_second_archive_goes_under_the_existing_heading(seat):
    memory, store = seat
    index = load(store)
    deploy, cache, *_ = (e.id for e in index.entries)
    store.apply(plan_archive(memory, index, [deploy], today=DAY))
    store.apply(plan_archive(memory, load(store), [cache], today=date(2026, 12, 1)))
    archive = parse_index((memory / "ARCHIVE.md").read_bytes())
    section = archive.section_named("Craft hooks")
    days = [STAMP.search(archive.entry(i).text).group("day") for i in section.entry_ids]
    assert days == ["2026-11-29", "2026-12-01"]
    assert (memory / "ARCHIVE.md").read_text().count("## Craft hooks") == 1


def test_restore_round_trips(seat):
    memory, store = seat
    index = load(store)
    field = index.entries[-1].id  # last entry of its section: restore puts it back in the same place
    store.apply(plan_archive(memory, index, [field], today=DAY))
    hits = search_archive(memory, "july migration field notes")
    assert hits and hits[0].archived_on == "2026-11-29" and hits[0].section.startswith("Lane anchors")
    store.apply(plan_restore(memory, load(store), hits[0].entry_id))
    assert (memory / "MEMORY.md").read_text() == INDEX
    assert (memory / "ARCHIVE.md").read_text() == ARCHIVE_HEADER  # the emptied heading went too


def test_restore_of_a_middle_entry_goes_back_to_its_old_place(seat):
    memory, store = seat
    index = load(store)
    deploy = index.entries[0].id  # first of two: it used to come back after the cache entry
    store.apply(plan_archive(memory, index, [deploy], today=DAY))
    archived = parse_index((memory / "ARCHIVE.md").read_bytes()).entries[0].id
    store.apply(plan_restore(memory, load(store), archived))
    assert (memory / "MEMORY.md").read_text() == INDEX
    assert (memory / "ARCHIVE.md").read_text() == ARCHIVE_HEADER


def test_restore_goes_before_the_recorded_next_entry_despite_edits_elsewhere(seat):
    memory, store = seat
    index = load(store)
    ticket, field = index.entries[2].id, index.entries[3].id
    store.apply(plan_archive(memory, index, [ticket], today=DAY))  # first of its section: before `field`
    edited = load(store).raw.replace(b"## Lane anchors (highest drift \xe2\x80\x94 re-verify live)\n",
                                     b"## Lane anchors (highest drift \xe2\x80\x94 re-verify live)\n- A new anchor.\n")
    (memory / "MEMORY.md").write_bytes(edited)
    archived = parse_index((memory / "ARCHIVE.md").read_bytes()).entries[0].id
    restored = parse_index(plan_restore(memory, load(store), archived).files["MEMORY.md"])
    lane = restored.section_named("Lane anchors (highest drift — re-verify live)")
    assert [restored.entry(i).text for i in lane.entry_ids][0] == "- A new anchor."
    assert [restored.entry(i).id for i in lane.entry_ids][1:] == [ticket, field]


def test_an_old_stamp_without_a_record_still_restores_at_the_section_end(seat):
    memory, store = seat
    index = load(store)
    deploy = index.entries[0].id
    store.apply(plan_archive(memory, index, [deploy], today=DAY))
    legacy = STAMP.sub(" · archived 2026-11-29", (memory / "ARCHIVE.md").read_text())
    assert "<!--" not in legacy
    (memory / "ARCHIVE.md").write_text(legacy)
    archived = parse_index(legacy.encode()).entries[0].id
    restored = parse_index(plan_restore(memory, load(store), archived).files["MEMORY.md"])
    section = restored.section_named("Craft hooks")
    assert [restored.entry(i).text for i in section.entry_ids] == [
        "- Keep the cache warm before benchmarks.",
        "- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays.",
    ]


def test_search_and_restore_errors(seat):
    memory, store = seat
    assert search_archive(memory, "anything") == []
    with pytest.raises(InputError):
        plan_restore(memory, load(store), "abcdef")
    with pytest.raises(InputError):
        plan_archive(memory, load(store), ["abcdef"], today=DAY)


def test_search_sees_every_new_version_of_the_archive(seat):
    """The search keeps its last parses; a changed ARCHIVE.md must still be searched as it is now."""
    memory, store = seat
    deploy, cache, *_ = (e.id for e in load(store).entries)
    store.apply(plan_archive(memory, load(store), [deploy], today=DAY))
    assert [h.text.split(" — ")[0] for h in search_archive(memory, "deploy fridays")] == ["- [Deploy notes](deploy.md)"]
    assert search_archive(memory, "cache warm benchmarks") == []
    store.apply(plan_archive(memory, load(store), [cache], today=DAY))
    hits = search_archive(memory, "cache warm benchmarks")
    assert [h.text for h in hits][:1] == ["- Keep the cache warm before benchmarks. · archived 2026-11-29"]
