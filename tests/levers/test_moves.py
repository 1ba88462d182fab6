"""Text that changes files: the BOM stays with its file, relative links still reach what they reached."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from curator.index_model import BOM, parse_index
from curator.levers.archive import ARCHIVE_NAME, plan_archive, plan_restore, search_archive
from curator.levers.merge import plan_merge
from curator.levers.relink import move_text, rebase
from curator.levers.trim import plan_trim
from curator.pointers import check_pointers
from curator.store import SeatStore

DAY = date(2026, 11, 29)


def _seat(tmp_path: Path, index: bytes, **files: str) -> tuple[Path, SeatStore]:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_bytes(index)
    for name, text in files.items():
        path = memory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return memory, SeatStore.open(memory, state_dir=tmp_path / "state")


# -- the BOM belongs to the file -------------------------------------------------------------------

BOM_INDEX = BOM + (
    "- First entry: keep the WAL flushed before a snapshot.\n"
    "- Second entry: snapshot the WAL only after the flush.\n"
    "\n"
    "## Craft hooks\n"
    "- Deploy with `make ship`.\n"
).encode()


def test_archiving_the_first_entry_leaves_the_bom_in_memory_md(tmp_path: Path) -> None:
    memory, store = _seat(tmp_path, BOM_INDEX)
    index = parse_index(BOM_INDEX)
    first = index.entries[0]
    change = plan_archive(memory, index, [first.id], today=DAY)
    assert change.files["MEMORY.md"].startswith(BOM + b"- Second entry")
    assert BOM not in change.files[ARCHIVE_NAME]
    store.apply(change)
    # The archived line is an entry of ARCHIVE.md again: search finds it and restore brings it back.
    hits = search_archive(memory, "First entry keep the WAL flushed")
    assert hits and hits[0].text.startswith("- First entry")
    store.apply(plan_restore(memory, parse_index(store.read("MEMORY.md")), hits[0].entry_id))
    restored = store.read("MEMORY.md")
    assert restored.startswith(BOM) and restored.count(BOM) == 1
    assert b"- First entry: keep the WAL flushed before a snapshot.\n" in restored


def test_merging_the_first_entry_into_another_keeps_the_bom(tmp_path: Path) -> None:
    memory, _store = _seat(tmp_path, BOM_INDEX)
    index = parse_index(BOM_INDEX)
    first, second = index.entries[0], index.entries[1]
    change = plan_merge(memory, index, [second.id, first.id])
    new = change.files["MEMORY.md"]
    assert new.startswith(BOM + b"- Second entry") and new.count(BOM) == 1
    assert change.bytes_saved == len(BOM_INDEX) - len(new)


def test_restoring_to_the_top_of_a_bom_file_inserts_after_the_bom(tmp_path: Path) -> None:
    only = BOM + "- Only entry, at the top of the file.\n".encode()
    memory, store = _seat(tmp_path, only + b"- Second one stays.\n")
    index = parse_index(store.read("MEMORY.md"))
    store.apply(plan_archive(memory, index, [index.entries[0].id], today=DAY))
    after = parse_index(store.read("MEMORY.md"))
    hit = search_archive(memory, "Only entry at the top")[0]
    store.apply(plan_restore(memory, after, hit.entry_id))
    data = store.read("MEMORY.md")
    assert data.startswith(BOM) and data.count(BOM) == 1


# -- relative links are rewritten when text moves ---------------------------------------------------

LINKED = (
    "# Seat memory index\n"
    "\n"
    "## Patterns\n"
    "- See [Patterns](#patterns) and [the log](notes/log.md#july); `[code](#not-a-link)` stays.\n"
    "- Another entry that stays.\n"
)


def test_archived_same_file_anchor_points_back_at_memory_md(tmp_path: Path) -> None:
    memory, store = _seat(tmp_path, LINKED.encode(), **{"notes/log.md": "# Log\n## July\n"})
    index = parse_index(LINKED.encode())
    before = check_pointers(memory, parsed_index=index)
    change = plan_archive(memory, index, [index.entries[0].id], today=DAY)
    archived = change.files[ARCHIVE_NAME].decode()
    assert "[Patterns](MEMORY.md#patterns)" in archived
    assert "[the log](notes/log.md#july)" in archived  # same directory: unchanged
    assert "`[code](#not-a-link)`" in archived  # inside a code span: not a link
    after = check_pointers(memory, overrides=dict(change.files))
    assert [d for d in after.dangling if d.file == ARCHIVE_NAME] == []
    assert len(after.dangling) <= len(before.dangling)
    assert change.warnings == ()
    # And back: the restored line is the original line again.
    store.apply(change)
    hit = search_archive(memory, "See Patterns and the log")[0]
    restore = plan_restore(memory, parse_index(store.read("MEMORY.md")), hit.entry_id)
    assert "- See [Patterns](#patterns) and [the log](notes/log.md#july)" in restore.files["MEMORY.md"].decode()


def test_split_into_a_detail_file_in_another_directory_rebases_links(tmp_path: Path) -> None:
    index_text = (
        "# Seat memory index\n"
        "- [Deploy](topics/deploy.md) — ship on Tuesdays; detail in [runbook](runbook.md), "
        "see [Patterns](#patterns), ![chart](img/chart.png) and [ops](topics/ops.md#pager).\n"
        "## Patterns\n"
    )
    memory, _store = _seat(tmp_path, index_text.encode(), **{
        "topics/deploy.md": "# Deploy\n", "topics/ops.md": "# Ops\n## Pager\n", "runbook.md": "# Runbook\n",
        "img/chart.png": "png",
    })
    index = parse_index(index_text.encode())
    change = plan_trim(memory, index, index.entries[0].id, kind="split")
    detail = change.files["topics/deploy.md"].decode()
    assert "[runbook](../runbook.md)" in detail
    assert "[Patterns](../MEMORY.md#patterns)" in detail
    assert "![chart](../img/chart.png)" in detail
    assert "[ops](ops.md#pager)" in detail
    report = check_pointers(memory, overrides=dict(change.files))
    assert report.dangling == [] and report.orphans == []


@pytest.mark.parametrize("destination, source, target, expected", [
    ("#patterns", "MEMORY.md", "ARCHIVE.md", "MEMORY.md#patterns"),
    ("MEMORY.md#patterns", "ARCHIVE.md", "MEMORY.md", "#patterns"),
    ("ARCHIVE.md", "ARCHIVE.md", "MEMORY.md", "ARCHIVE.md"),
    ("a.md", "MEMORY.md", "sub/x.md", "../a.md"),
    ("sub/b.md?plain#h", "MEMORY.md", "sub/x.md", "b.md?plain#h"),
    ("../c.md", "sub/x.md", "MEMORY.md", "c.md"),
    ("https://example.com/#x", "MEMORY.md", "sub/x.md", "https://example.com/#x"),
    ("/abs/path.md", "MEMORY.md", "sub/x.md", "/abs/path.md"),
    ("file:///abs/path.md", "MEMORY.md", "sub/x.md", "file:///abs/path.md"),
])
def test_rebase(destination: str, source: str, target: str, expected: str) -> None:
    assert rebase(destination, source, target) == expected


def test_move_text_keeps_brackets_reference_definitions_and_wikilinks() -> None:
    text = "- [a](<my notes.md>) [[name#h]] [b][r]\n\n[r]: #anchor \"title\"\n"
    moved = move_text(text, "MEMORY.md", "sub/x.md")
    assert moved == "- [a](<../my notes.md>) [[name#h]] [b][r]\n\n[r]: ../MEMORY.md#anchor \"title\"\n"
    assert move_text(text, "MEMORY.md", "MEMORY.md") == text
