"""Every lever on every real memory file of the shared corpus: no crash, untouched bytes identical."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from curator.index_model import parse_index
from curator.levers.archive import plan_archive, with_archive_pointer
from curator.levers.merge import MergeRefused, find_candidates, plan_merge
from curator.levers.placement import removal_span
from curator.levers.text import entry_start
from curator.levers.trim import suggestions
from tests.support.paths import CORPUS

INDEX_NAMES = {"MEMORY.md", "memory-index.md", "activeContext.md", "progress.md", "CLAUDE.md"}  # the indexes
FILES = sorted(p for p in CORPUS.rglob("*.md") if p.name in INDEX_NAMES) if CORPUS.is_dir() else []
INDEXES = [p for p in FILES if len(parse_index(p.read_bytes()).entries) >= 2]


@pytest.mark.slow
@pytest.mark.skipif(not INDEXES, reason="corpus not available")
@pytest.mark.parametrize("source", INDEXES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_levers_on_real_files(source: Path, tmp_path: Path):
    memory = tmp_path / "memory"
    shutil.copytree(source.parent, memory)
    for path in memory.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)
    raw = source.read_bytes()
    (memory / "MEMORY.md").write_bytes(raw)
    index = parse_index(raw)

    for candidate in find_candidates(index, limit=5):
        assert len(candidate.entry_ids) >= 2 and 0 <= candidate.score <= 100
        try:
            change = plan_merge(memory, index, candidate.entry_ids)
        except MergeRefused as refused:
            assert refused.lost  # a refusal always says what would be lost
            continue
        new = parse_index(change.files["MEMORY.md"])
        # Every pointer of the merged entries is still in the file.
        assert {l.target for l in index.links} <= {l.target for l in new.links}

    first = index.entries[0]
    change = plan_archive(memory, index, [first.id], today=date(2026, 11, 29))
    start, end = removal_span(index, first)  # a paragraph or a § block takes its separator with it
    # Nothing but the entry goes; the line that leads to ARCHIVE.md comes (unless one was there).
    assert change.files["MEMORY.md"] == with_archive_pointer(raw[:start] + raw[end:])
    begin = entry_start(index, first)
    assert start <= begin and first.end_offset <= end
    assert (raw[start:begin] + raw[first.end_offset : end]).strip(b"\r\n") in (b"", "§".encode())
    assert b"archived 2026-11-29" in change.files["ARCHIVE.md"]

    for suggestion in suggestions(memory, index, threshold_bytes=150, top=3):
        new = suggestion.change.files["MEMORY.md"]
        entry = index.entry(suggestion.entry_id)
        assert new[: entry.offset] == raw[: entry.offset]  # bytes before the entry are untouched
        assert suggestion.bytes_saved == len(raw) - len(new) > 0
        if suggestion.kind == "split":
            detail = suggestion.change.files[suggestion.detail_file]
            old = (memory / suggestion.detail_file).read_bytes() if (memory / suggestion.detail_file).exists() else b""
            assert detail.startswith(old)  # the detail file only grows
