"""Restore puts an archived entry back where it was: after the entry that came before it, else before
the one that came after it, else (old stamps too) at the end of its section; byte for byte when
nothing else changed, with a BOM, with CRLF, and in tables."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from curator.index_model import BOM, parse_index
from curator.levers.archive import ARCHIVE_NAME, plan_archive, plan_restore
from tests.support.seats import seat
DAY = date(2026, 11, 29)
LISTS = (
    "# Seat memory index\n"
    "\n"
    "## Craft hooks\n"
    "- [Deploy notes](deploy.md) — deploy with `make ship`.\n"
    "- Keep the cache warm before benchmarks.\n"
    "- Flush the WAL before a snapshot.\n"
    "  (a continuation line, part of the entry)\n"
    "\n"
    "## Lane anchors\n"
    "- Ticket #4412: the WAL flush race, see [hooks](#craft-hooks).\n"
    "- Last lane entry.\n"
).encode()
TABLES = (
    "# Seat memory index\n"
    "\n"
    "## Decisions\n"
    "\n"
    "| Topic | Decision |\n"
    "|---|---|\n"
    "| Deploy | ship with `make ship` |\n"
    "| Cache | warm it, see [deploy](deploy.md) |\n"
    "| Deploy again | never on Fridays |\n"
    "\n"
    "- An item under the table.\n"
    "- Another item.\n"
    "\n"
    "## Craft hooks\n"
    "- Keep the WAL flushed.\n"
).encode()
FIXTURES = {
    "lists": LISTS,
    "lists-bom": BOM + LISTS,
    "lists-crlf": LISTS.replace(b"\n", b"\r\n"),
    "lists-bom-crlf": BOM + LISTS.replace(b"\n", b"\r\n"),
    "tables": TABLES,
    "tables-crlf": TABLES.replace(b"\n", b"\r\n"),
    "tables-bom": BOM + TABLES,
}
CASES = [(name, i) for name, raw in FIXTURES.items() for i in range(len(parse_index(raw).entries))]


def _archive(memory: Path, entry_id: str) -> bytes:
    change = plan_archive(memory, parse_index((memory / "MEMORY.md").read_bytes()), [entry_id], today=DAY)
    for name, data in change.files.items():
        (memory / name).write_bytes(data)
    return change.files[ARCHIVE_NAME]


def _restore(memory: Path) -> bytes:
    archived = parse_index((memory / ARCHIVE_NAME).read_bytes()).entries[0].id
    return plan_restore(memory, parse_index((memory / "MEMORY.md").read_bytes()), archived).files["MEMORY.md"]


@pytest.mark.parametrize(("fixture", "position"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_archive_then_restore_gives_back_the_original_bytes(tmp_path: Path, fixture: str, position: int) -> None:
    raw = FIXTURES[fixture]
    memory = seat(tmp_path, raw, **{"deploy.md": "# Deploy\n"})
    _archive(memory, parse_index(raw).entries[position].id)
    assert _restore(memory) == raw


def test_restore_follows_the_earlier_neighbour_when_entries_were_added_around_it(tmp_path: Path) -> None:
    memory = seat(tmp_path, LISTS, **{"deploy.md": "# Deploy\n"})
    deploy, cache, wal = (e.id for e in parse_index(LISTS).entries[:3])
    _archive(memory, cache)
    now = (memory / "MEMORY.md").read_bytes()  # a new entry at the top and one at the end of the section
    now = now.replace(b"## Craft hooks\n", b"## Craft hooks\n- A new first hook.\n")
    now = now.replace(b"part of the entry)\n", b"part of the entry)\n- A new last hook.\n")
    (memory / "MEMORY.md").write_bytes(now)
    restored = parse_index(_restore(memory))
    ids = restored.section_named("Craft hooks").entry_ids
    assert ids.index(cache) == ids.index(deploy) + 1 and ids.index(wal) == ids.index(cache) + 1
    assert len(ids) == 5


def test_restore_goes_before_the_later_neighbour_when_the_earlier_one_is_gone(tmp_path: Path) -> None:
    memory = seat(tmp_path, LISTS, **{"deploy.md": "# Deploy\n"})
    deploy, cache, wal = (e.id for e in parse_index(LISTS).entries[:3])
    _archive(memory, cache)
    now = (memory / "MEMORY.md").read_bytes().replace(b"- [Deploy notes](deploy.md) \xe2\x80\x94 deploy with `make ship`.\n", b"")
    (memory / "MEMORY.md").write_bytes(now)
    assert not parse_index(now).has_entry(deploy)
    restored = parse_index(_restore(memory))
    assert restored.section_named("Craft hooks").entry_ids[:2] == (cache, wal)


def test_a_row_never_lands_beside_an_item(tmp_path: Path) -> None:
    """The earlier neighbour of the first item under a table is a row: the item goes before the
    next item instead, outside the table."""
    memory = seat(tmp_path, TABLES, **{"deploy.md": "# Deploy\n"})
    entries = parse_index(TABLES).entries
    item = next(e for e in entries if e.kind == "item")
    _archive(memory, item.id)
    restored = _restore(memory)
    assert restored == TABLES
    assert [e.kind for e in parse_index(restored).entries] == [e.kind for e in entries]


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_two_neighbours_archived_together_come_back_in_either_order(tmp_path: Path, order) -> None:
    memory = seat(tmp_path, LISTS, **{"deploy.md": "# Deploy\n"})
    pair = [e.id for e in parse_index(LISTS).entries[1:3]]
    change = plan_archive(memory, parse_index(LISTS), pair, today=DAY)
    for name, data in change.files.items():
        (memory / name).write_bytes(data)
    archived = [e.id for e in parse_index((memory / ARCHIVE_NAME).read_bytes()).entries]
    for i in order:
        restore = plan_restore(memory, parse_index((memory / "MEMORY.md").read_bytes()), archived[i])
        for name, data in restore.files.items():
            (memory / name).write_bytes(data)
    assert (memory / "MEMORY.md").read_bytes() == LISTS


# -- a section archived empty ------------------------------------------------------------------

SECTION_CASES = [(name, heading) for name, raw in FIXTURES.items()
                 for heading in dict.fromkeys(e.section for e in parse_index(raw).entries)]


def _apply(memory: Path, change) -> None:
    for name, data in change.files.items():
        (memory / name).write_bytes(data)


def test_archiving_a_whole_section_reports_it_emptied_and_keeps_the_heading_by_default(tmp_path: Path) -> None:
    memory = seat(tmp_path, LISTS, **{"deploy.md": "# Deploy\n"})
    index = parse_index(LISTS)
    lane = [e.id for e in index.entries if e.section == "Lane anchors"]
    change = plan_archive(memory, index, lane, today=DAY)
    assert change.emptied_sections == ("Lane anchors",)
    assert change.summary()["emptied_sections"] == ["Lane anchors"]
    assert b"## Lane anchors" in change.files["MEMORY.md"]
    assert plan_archive(memory, index, lane[:1], today=DAY).emptied_sections == ()  # one entry still there


def test_a_section_with_prose_left_is_not_emptied(tmp_path: Path) -> None:
    raw = LISTS.replace(b"## Lane anchors\n", b"## Lane anchors\nA paragraph the bearer wrote.\n\n")
    memory = seat(tmp_path, raw, **{"deploy.md": "# Deploy\n"})
    index = parse_index(raw)
    lane = [e.id for e in index.entries if e.section == "Lane anchors" and e.kind == "item"]  # the paragraph stays
    change = plan_archive(memory, index, lane, today=DAY, drop_empty_sections=True)
    assert change.emptied_sections == () and b"A paragraph the bearer wrote." in change.files["MEMORY.md"]
    assert b"## Lane anchors" in change.files["MEMORY.md"]


@pytest.mark.parametrize(("fixture", "heading"), SECTION_CASES, ids=[f"{n}-{h}" for n, h in SECTION_CASES])
def test_dropping_an_emptied_heading_and_restoring_gives_back_the_original_bytes(
        tmp_path: Path, fixture: str, heading: str) -> None:
    raw = FIXTURES[fixture]
    memory = seat(tmp_path, raw, **{"deploy.md": "# Deploy\n"})
    index = parse_index(raw)
    ids = [e.id for e in index.entries if e.section == heading]
    change = plan_archive(memory, index, ids, today=DAY, drop_empty_sections=True)
    assert change.emptied_sections == (heading,)
    now = parse_index(change.files["MEMORY.md"])
    assert now.section_named(heading) is None and [s.heading for s in now.sections if s.heading]
    _apply(memory, change)
    for archived in [e.id for e in parse_index((memory / ARCHIVE_NAME).read_bytes()).entries]:
        _apply(memory, plan_restore(memory, parse_index((memory / "MEMORY.md").read_bytes()), archived))
    assert (memory / "MEMORY.md").read_bytes() == raw
    assert b"## " not in (memory / ARCHIVE_NAME).read_bytes()  # its archive heading went with the last entry


def test_the_cli_offers_and_drops_an_emptied_heading(tmp_path: Path, capsys) -> None:
    from curator.cli import main

    memory = seat(tmp_path / "memory", LISTS, **{"deploy.md": "# Deploy\n"})
    state = ["--state-dir", str(tmp_path / "state")]
    first = [e.id for e in parse_index(LISTS).entries if e.section == "Lane anchors"][0]
    assert main(["archive", str(memory), first, *state]) == 0
    assert "is now empty" not in capsys.readouterr().out
    # (The line the first archive added at the end, to lead to ARCHIVE.md, is no lane anchor.)
    last = [e.id for e in parse_index((memory / "MEMORY.md").read_bytes()).entries
            if e.section == "Lane anchors" and "](ARCHIVE.md)" not in e.text]
    assert main(["archive", str(memory), *last, *state]) == 0
    out = capsys.readouterr().out
    assert "section 'Lane anchors' is now empty" in out and "--drop-empty-section" in out
    assert b"## Lane anchors" in (memory / "MEMORY.md").read_bytes()
    assert main(["undo", str(memory), *state]) == 0
    assert main(["archive", str(memory), *last, "--drop-empty-section", "--json", *state]) == 0
    assert '"emptied_sections"' in capsys.readouterr().out
    assert b"Lane anchors" not in (memory / "MEMORY.md").read_bytes()


def test_restoring_an_entry_already_back_in_memory_md_warns_of_the_second_copy(tmp_path: Path) -> None:
    memory = seat(tmp_path, LISTS, **{"deploy.md": "# Deploy\n"})
    cache = parse_index(LISTS).entries[1]
    _archive(memory, cache.id)
    assert not [w for w in plan_restore(memory, parse_index((memory / "MEMORY.md").read_bytes()),
                                        parse_index((memory / ARCHIVE_NAME).read_bytes()).entries[0].id).warnings
                if "second copy" in w]
    now = (memory / "MEMORY.md").read_bytes() + cache.text.encode() + b"\n"  # written back by hand
    (memory / "MEMORY.md").write_bytes(now)
    archived = parse_index((memory / ARCHIVE_NAME).read_bytes()).entries[0].id
    change = plan_restore(memory, parse_index(now), archived)
    line = len(now.splitlines())
    assert f"this entry is already in MEMORY.md (line {line}): restoring it adds a second copy" in change.warnings
