"""Standalone paragraphs and the ``§`` blocks of Hermes files are entries: each lever acts on them,
keeps the markdown's blocks what they were in every file it writes, and gives back the same bytes."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from curator.index_model import BOM, parse_index
from curator.levers.archive import ARCHIVE_NAME, plan_archive, plan_restore
from curator.pointers import check_pointers

DAY = date(2026, 11, 29)
CORPUS = Path("/work/shared/corpus")
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
    """The index's entries as (kind, text), stamps aside: what must survive a move unchanged."""
    return [(e.kind, e.text) for e in parse_index(raw).entries]


@pytest.mark.skipif(not CORPUS_CASES, reason="corpus not available")
@pytest.mark.parametrize(("source", "entry_id"), CORPUS_CASES,
                         ids=[f"{p.relative_to(CORPUS)}-{i}" for p, i in CORPUS_CASES])
def test_archiving_a_real_paragraph_then_restoring_it_gives_back_the_bytes(tmp_path: Path, source: Path,
                                                                           entry_id: str) -> None:
    raw = source.read_bytes()
    memory = _seat(tmp_path, raw, source)
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
