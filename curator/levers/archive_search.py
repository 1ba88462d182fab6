"""Fuzzy search over ARCHIVE.md's entries, best first, with the day each was archived."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rapidfuzz import fuzz, process, utils

from curator import caches
from curator.constants import ARCHIVE_NAME
from curator.index_model import Entry, parse_index
from curator.levers.archive_stamp import STAMP
from curator.levers.text import read_optional

SEARCH_CUTOFF = 50


@dataclass(frozen=True)
class Hit:
    entry_id: str  # the id in ARCHIVE.md (what `restore` takes)
    section: str
    line: int
    score: float
    text: str
    archived_on: str  # YYYY-MM-DD from the stamp, '' if none


# The app searches as the bearer types: one parse per archive version, not one per keystroke.
_parse_archive = caches.kept(maxsize=2, name="curator.levers.archive_search._parse_archive")(parse_index)


def search_archive(memory_dir: str | Path, query: str, *, limit: int = 20) -> list[Hit]:
    """Fuzzy search over ARCHIVE.md's entries (link texts and targets included), best first."""
    raw = read_optional(Path(memory_dir), ARCHIVE_NAME)
    if raw is None or not query.strip():
        return []
    archive = _parse_archive(raw)
    entries: list[Entry] = list(archive.entries)
    choices = {i: entry.text for i, entry in enumerate(entries)}
    hits = []
    for _text, score, i in process.extract(
        query, choices, scorer=fuzz.WRatio, processor=utils.default_process, limit=limit, score_cutoff=SEARCH_CUTOFF
    ):
        entry = entries[i]
        stamp = STAMP.search(entry.text.partition("\n")[0])
        hits.append(Hit(entry.id, entry.section, entry.line, round(score, 1), entry.text,
                        (stamp.group("day") or "") if stamp else ""))  # a found stamp always has its day
    return hits
