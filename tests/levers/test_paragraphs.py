"""Standalone paragraphs and the ``§`` blocks of Hermes files are entries: each lever acts on them,
keeps the markdown's blocks what they were in every file it writes, and gives back the same bytes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from curator.index_model import BOM, parse_index
from curator.levers.archive import ARCHIVE_NAME, ARCHIVE_POINTER, plan_archive, plan_restore, with_archive_pointer
from curator.levers.fit import plan_fit
from curator.levers.fit_checks import unkept_clauses
from curator.levers.merge import MergeRefused, dropped_words, merged_entry_text, plan_merge
from curator.levers.placement import removal_span
from curator.levers.similarity import words_of
from curator.levers.trim import plan_trim
from curator.pointers import check_pointers
from curator.store import SeatStore
from tests.support.paths import CORPUS

DAY = date(2026, 11, 29)
INDEX_NAMES = {"MEMORY.md", "memory-index.md", "activeContext.md", "progress.md", "CLAUDE.md"}
FILES = sorted(p for p in CORPUS.rglob("*.md") if p.name in INDEX_NAMES) if CORPUS.is_dir() else []
PROSE = ("paragraph", "hermes")
CORPUS_CASES = [(p, e.id) for p in FILES for e in parse_index(p.read_bytes()).entries if e.kind in PROSE]

NOTES = (
    "# Seat memory index\n"
    "\n"
    "## Decisions\n"
    "\n"
    "We ship on Tuesdays only; the release train waits for nobody.\n"
    "Hot fixes go through the same gate.\n"
    "\n"
    "- Keep the cache warm before benchmarks.\n"
    "- Flush the WAL before a snapshot.\n"
    "\n"
    "Deploys are logged in [the deploy notes](deploy.md), one line per deploy.\n"
    "\n"
    "## Lane anchors\n"
    "Ticket #4412: the WAL flush race.\n"
    "\n"
    "- Last lane entry.\n"
).encode()
HERMES = "The office is in Shaoxing; ask before assuming a trip ends in Beijing.\n§\nESPN's public API needs no key.\n§\nThe bearer dislikes over-reading small daily events.".encode()
FIXTURES = {
    "notes": NOTES,
    "notes-bom": BOM + NOTES,
    "notes-crlf": NOTES.replace(b"\n", b"\r\n"),
    "notes-bom-crlf": BOM + NOTES.replace(b"\n", b"\r\n"),
    "notes-no-final-newline": NOTES.rstrip(b"\n").replace(b"- Last lane entry.", b"The last word, a paragraph."),
    "hermes": HERMES,
    "hermes-crlf": HERMES.replace(b"\n", b"\r\n"),
    "hermes-bom-final-newline": BOM + HERMES + b"\n",
    # A paragraph whose neighbour is a row, with a code block between: restore counts lines from the row.
    "after-a-table": b"## H\n\n| a | b |\n|---|---|\n| r | s |\n\n```\ncode\n```\n\nPara after code.\n> quote\n",
    # A label over its table: taken out, it leaves the blank line, so the table never runs into the item.
    "label-over-table": b"## H\n- item two\n\nThe table below.\n| a | b |\n|---|---|\n| r | s |\n",
    # A banner with no word is no entry; the § block below it counts lines from the top (after the BOM).
    "hermes-banner-bom": BOM + "══════\n\nchunk one\n§\nchunk two\n§\nchunk three\n".encode(),
    # No heading: the first paragraph after the BOM counts its place from the first line.
    "no-heading-bom": BOM + b"First note,\nwrapped.\n\nSecond note.\n\n- an item\n",
}
FIXTURE_CASES = [(name, e.id) for name, raw in FIXTURES.items() for e in parse_index(raw).entries]


def _seat(tmp_path: Path, raw: bytes, source: Path | None = None) -> Path:
    memory = tmp_path / "memory"
    if source is not None:
        shutil.copytree(source.parent, memory)
        for path in memory.rglob("*"):
            path.chmod(0o700 if path.is_dir() else 0o600)
    else:
        memory.mkdir()
        (memory / "deploy.md").write_bytes(b"# Deploy\n")
    (memory / "MEMORY.md").write_bytes(raw)
    (memory / ARCHIVE_NAME).unlink(missing_ok=True)
    return memory


def _write(memory: Path, files: dict[str, bytes | None]) -> None:
    for name, data in files.items():
        (memory / name).write_bytes(data)


def _round_trip(memory: Path, entry_id: str) -> tuple[bytes, bytes, bytes]:
    """Archive ``entry_id``, then restore it: (MEMORY.md in between, ARCHIVE.md in between, MEMORY.md after)."""
    index = parse_index((memory / "MEMORY.md").read_bytes())
    change = plan_archive(memory, index, [entry_id], today=DAY)
    already = {d.target for d in check_pointers(memory).dangling}  # dangling in MEMORY.md before, too
    assert all(w.startswith("dangling pointer ARCHIVE.md: ") and w.split(": ", 1)[1] in already
               for w in change.warnings), change.warnings
    _write(memory, change.files)
    archive = parse_index(change.files[ARCHIVE_NAME])
    (archived,) = archive.entries
    assert archived.kind == index.entry(entry_id).kind  # still the same kind of entry where it landed
    restore = plan_restore(memory, parse_index(change.files["MEMORY.md"]), archived.id)
    assert parse_index(restore.files[ARCHIVE_NAME]).entries == ()
    return change.files["MEMORY.md"], change.files[ARCHIVE_NAME], restore.files["MEMORY.md"]


def _shape(raw: bytes) -> list[tuple[str, str]]:
    """The index's entries as (kind, text), stamps and the line that leads to ARCHIVE.md aside: what
    must survive a move unchanged."""
    return [(e.kind, e.text) for e in parse_index(raw).entries if ARCHIVE_POINTER not in e.text]


@pytest.fixture(scope="module")
def corpus_seats(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """One copy of each corpus seat for the whole sweep, its MEMORY.md put back and ARCHIVE.md taken
    away before each case: the sweep writes only those two, and its detail files stay the files the
    pointer check has already read (a copy per case re-read every one of them, most of its time)."""
    copies: dict[Path, Path] = {}

    def seat(source: Path) -> Path:
        if source not in copies:
            copies[source] = _seat(tmp_path_factory.mktemp("seat"), source.read_bytes(), source)
        memory = copies[source]
        (memory / "MEMORY.md").write_bytes(source.read_bytes())
        (memory / ARCHIVE_NAME).unlink(missing_ok=True)
        return memory
    return seat


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS_CASES, reason="corpus not available")
@pytest.mark.parametrize(("source", "entry_id"), CORPUS_CASES,
                         ids=[f"{p.relative_to(CORPUS)}-{i}" for p, i in CORPUS_CASES])
def test_archiving_a_real_paragraph_then_restoring_it_gives_back_the_bytes(corpus_seats: Callable[[Path], Path],
                                                                           source: Path, entry_id: str) -> None:
    raw = source.read_bytes()
    memory = corpus_seats(source)
    entry = parse_index(raw).entry(entry_id)
    left, _archive, back = _round_trip(memory, entry_id)
    others = [t for t in _shape(raw) if t != (entry.kind, entry.text)]
    assert _shape(left) == others  # every other entry is still the entry it was
    assert back == raw


@pytest.mark.parametrize(("fixture", "entry_id"), FIXTURE_CASES, ids=[f"{n}-{i}" for n, i in FIXTURE_CASES])
def test_archive_then_restore_of_any_entry_beside_paragraphs_gives_back_the_bytes(tmp_path: Path, fixture: str,
                                                                                  entry_id: str) -> None:
    raw = FIXTURES[fixture]
    memory = _seat(tmp_path, raw)
    entry = parse_index(raw).entry(entry_id)
    left, archive, back = _round_trip(memory, entry_id)
    assert _shape(left) == [t for t in _shape(raw) if t != (entry.kind, entry.text)]
    assert back == raw
    assert archive.startswith(b"# Archive") and (not raw.startswith(BOM) or BOM not in archive)


# -- merge -------------------------------------------------------------------------------------

LABELS = CORPUS / "merge-labels.json"


def _labelled_prose_groups() -> list[tuple[Path, tuple[int, ...]]]:
    """The labelled merge groups of the shared corpus that hold a paragraph or a § block."""
    if not LABELS.is_file():
        return []
    out = []
    for labelled in json.loads(LABELS.read_text(encoding="utf-8"))["indexes"]:
        path = CORPUS / labelled["path"]
        starts = {e.line: e for e in parse_index(path.read_bytes()).entries}
        for candidate in labelled["candidates"]:
            lines = tuple(candidate["lines"])
            if any(line in starts and starts[line].kind in PROSE for line in lines):
                out.append((path, lines))
    return out


MERGE_CASES = _labelled_prose_groups()


@pytest.mark.skipif(not MERGE_CASES, reason="corpus not available")
@pytest.mark.parametrize(("source", "lines"), MERGE_CASES, ids=[f"{p.relative_to(CORPUS)}-{l}" for p, l in MERGE_CASES])
def test_a_labelled_merge_with_a_paragraph_gives_one_entry_in_the_first_ones_place_and_undo_gives_the_bytes(
        tmp_path: Path, source: Path, lines: tuple[int, ...]) -> None:
    raw = source.read_bytes()
    memory = _seat(tmp_path, raw, source)
    index = parse_index(raw)
    starts = {e.line: e for e in index.entries}
    group = [starts[line] for line in lines]  # every labelled line is an entry now
    try:
        change = plan_merge(memory, index, [e.id for e in group])
    except MergeRefused as refused:  # it would lose a pointer: forcing shows the same text
        change = refused.change
    merged = parse_index(change.files["MEMORY.md"])
    assert len(merged.entries) == len(index.entries) - len(group) + 1
    gone = {(e.kind, e.text) for e in group}
    kept = [(e.kind, e.text) for e in index.entries if (e.kind, e.text) not in gone]
    new = [(e.kind, e.text) for e in merged.entries]
    (position,) = [i for i, e in enumerate(index.entries) if e.id == group[0].id]
    assert new[:position] + new[position + 1:] == kept  # the others are the entries they were
    assert merged.entries[position].kind == group[0].kind and merged.entries[position].line == group[0].line
    for entry in group:  # every word of each merged entry is still said
        assert words_of(entry.text) <= words_of(merged.entries[position].text) | set(dropped_words(index, group, merged_entry_text(index, group)))
    store = SeatStore.open(memory, state_dir=tmp_path / "state")
    store.apply(change)
    store.undo()
    assert (memory / "MEMORY.md").read_bytes() == raw


@pytest.mark.parametrize("fixture", ["notes", "notes-bom", "notes-crlf", "notes-bom-crlf"])
def test_merging_paragraphs_with_items_keeps_the_blocks_apart(tmp_path: Path, fixture: str) -> None:
    raw = FIXTURES[fixture]
    memory = _seat(tmp_path, raw)
    index = parse_index(raw)
    ship, cache, wal, deploys, ticket, last = index.entries
    assert [e.kind for e in index.entries] == ["paragraph", "item", "item", "paragraph", "paragraph", "item"]
    nl = index.newline

    # A paragraph kept: the item's clause follows its last line; it stays one paragraph.
    change = plan_merge(memory, index, [ship.id, wal.id])
    new = change.files["MEMORY.md"]
    assert (b"Hot fixes go through the same gate. Flush the WAL before a snapshot." + nl + nl + b"- Keep the cache") in new
    assert [e.kind for e in parse_index(new).entries] == ["paragraph", "item", "paragraph", "paragraph", "item"]

    # A paragraph merged away takes its blank line with it: the list and the heading stay apart.
    change = plan_merge(memory, index, [wal.id, deploys.id])
    new = change.files["MEMORY.md"]
    assert (b"- Flush the WAL before a snapshot. Deploys are logged in [the deploy notes](deploy.md), one line per "
            b"deploy." + nl + nl + b"## Lane anchors") in new
    assert [e.kind for e in parse_index(new).entries] == ["paragraph", "item", "item", "paragraph", "item"]
    assert new.startswith(BOM) == raw.startswith(BOM) and new.count(BOM) == raw.count(BOM)

    # The first paragraph merged into a later item: the BOM stays at the top.
    change = plan_merge(memory, index, [last.id, ship.id])
    new = change.files["MEMORY.md"]
    assert new.startswith(raw[: raw.index(b"## Decisions")] + b"## Decisions" + nl + nl + b"- Keep the cache")
    assert b"- Last lane entry. We ship on Tuesdays only" in new

    # A text given for a paragraph keeps it a paragraph.
    change = plan_merge(memory, index, [ticket.id, last.id], text="Ticket #4412 was the WAL flush race; last lane entry.")
    entries = parse_index(change.files["MEMORY.md"]).entries
    assert (entries[-1].kind, entries[-1].text) == ("paragraph", "Ticket #4412 was the WAL flush race; last lane entry.")

    store = SeatStore.open(memory, state_dir=tmp_path / "state")
    store.apply(change)
    store.undo()
    assert (memory / "MEMORY.md").read_bytes() == raw


@pytest.mark.parametrize("fixture", ["hermes", "hermes-crlf", "hermes-bom-final-newline"])
def test_merging_hermes_blocks_takes_one_section_sign_line(tmp_path: Path, fixture: str) -> None:
    raw = FIXTURES[fixture]
    memory = _seat(tmp_path, raw)
    index = parse_index(raw)
    office, espn, dislikes = index.entries
    for ids in ([office.id, espn.id], [espn.id, office.id], [office.id, dislikes.id], [dislikes.id, espn.id]):
        new = plan_merge(memory, index, ids).files["MEMORY.md"]
        entries = parse_index(new).entries
        assert [e.kind for e in entries] == ["hermes", "hermes"]
        assert new.count("§".encode()) == 1 and new.startswith(raw[:3] if raw.startswith(BOM) else b"")
        assert new.endswith(b"\n") == raw.endswith(b"\n")


# -- trim and fit ------------------------------------------------------------------------------

EPIC = ("E-227 (Closure Workflow Structural Remediation) COMPLETED 2026-04-25 -- archived at\n"
        "`.project/archive/E-227/`. " + " ".join(f"Story {n} moved the closure gate into step {n}." for n in range(1, 40))
        + "\n")
EPICS = (
    "# Product manager memory\n"
    "\n"
    "## Identity & seat\n"
    "\n"
    "- [Identity](identity.md) — who this seat is; 2020-01-01 is the day it was named.\n"
    "\n"
    "## Active epics\n"
    "\n"
    "- E-230 (Scoring) ACTIVE since 2026-05-02.\n"
    "\n"
    + EPIC +
    "\n"
    "E-231 (Ingest) READY 2026-06-01 -- waiting on the schema review.\n"
)


EPIC_FIXTURES = {"lf": EPICS.encode(), "crlf": EPICS.replace("\n", "\r\n").encode(), "bom": BOM + EPICS.encode()}


def _epics_seat(tmp_path: Path, fixture: str):
    """(bytes, memory dir, parsed index, the 1.5 KB epic paragraph) of a seat holding EPICS."""
    raw = EPIC_FIXTURES[fixture]
    memory = _seat(tmp_path, raw)
    (memory / "identity.md").write_text("# Identity\n", encoding="utf-8")
    index = parse_index(raw)
    return raw, memory, index, next(e for e in index.entries if e.text.startswith("E-227"))


@pytest.mark.parametrize("fixture", list(EPIC_FIXTURES))
def test_trimming_a_paragraph_keeps_its_lesson_as_a_paragraph_and_moves_the_rest(tmp_path: Path, fixture: str) -> None:
    raw, memory, index, epic = _epics_seat(tmp_path, fixture)
    assert epic.kind == "paragraph" and epic.nbytes > 1_500
    change = plan_trim(memory, index, epic.id, kind="split")
    after = parse_index(change.files["MEMORY.md"])
    kept = next(e for e in after.entries if e.text.startswith("E-227"))
    assert kept.kind == "paragraph" and kept.lines == 1 and "→ [details](" in kept.text
    assert [e.kind for e in after.entries] == [e.kind for e in index.entries]
    assert unkept_clauses(raw, {**change.files}) == []  # every clause is in a live file, verbatim
    store = SeatStore.open(memory, state_dir=tmp_path / "state")
    store.apply(change)
    store.undo()
    assert (memory / "MEMORY.md").read_bytes() == raw and {p.name for p in memory.iterdir()} == {
        "MEMORY.md", "deploy.md", "identity.md"}


@pytest.mark.parametrize("fixture", list(EPIC_FIXTURES))
def test_fit_asks_about_a_long_finished_paragraph_and_never_the_identity_lines(tmp_path: Path, fixture: str) -> None:
    raw, memory, index, epic = _epics_seat(tmp_path, fixture)
    needed = plan_fit(memory, index, target=len(raw) - 1_000, today=DAY)
    assert needed.steps and "archive" not in [s.kind for s in needed.steps]  # fit never archives on its own
    assert needed.change is not None and ARCHIVE_NAME not in needed.change.files
    plan = plan_fit(memory, index, target=len(raw), today=DAY)  # nothing to do: what looks finished is asked
    (question,) = [q for q in plan.questions if q.kind == "archive"]
    assert question.entry_ids == (epic.id,)  # the one entry its own words mark COMPLETED (E-230, E-231 are open)
    assert question.evidence == ("COMPLETED",) and question.texts[0].startswith("E-227")
    # The bearer's answer, the archive lever on that id, moves the paragraph whole and leaves the rest.
    change = plan_archive(memory, index, list(question.entry_ids), today=DAY)
    start, end = removal_span(index, epic)
    assert len(change.files["MEMORY.md"]) == len(with_archive_pointer(raw[:start] + raw[end:]))
    assert unkept_clauses(raw, change.files) == []
    left = parse_index(change.files["MEMORY.md"])
    assert [(e.kind, e.text) for e in left.entries if ARCHIVE_POINTER not in e.text] == [
        (e.kind, e.text) for e in index.entries if e.id != epic.id]
    store = SeatStore.open(memory, state_dir=tmp_path / "state")
    store.apply(change)
    archived = parse_index((memory / ARCHIVE_NAME).read_bytes()).entries
    assert [e.kind for e in archived] == ["paragraph"]
    store.undo()
    assert (memory / "MEMORY.md").read_bytes() == raw and not (memory / ARCHIVE_NAME).exists()
