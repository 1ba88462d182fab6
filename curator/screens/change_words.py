"""A change in the words a person reads: line numbers and entry titles, never entry ids.

A lever names entries by id (``merge 2 entries into dc56b0``): stable for the machine, meaningless to
the bearer. The app re-words a change from the index it was planned on before previewing, applying and
journalling it, so the preview, the status line and the history all say
``merge lines 12–13 'Title A' + 'Title B'``. Pure: no textual import.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from curator.change import Change

if TYPE_CHECKING:
    from curator.index_model import Entry, HotIndex

TITLE_WIDTH = 32  # characters of an entry's words in a title; the detail line shows it whole
TITLES_SHOWN = 3  # titles named in one description; the rest are counted
LINK_TEXT = re.compile(r"\[([^\]]+)\]\([^)]*\)")
MARKUP = re.compile(r"[*_`|]+")


def title_of(entry: Entry) -> str:
    """An entry's title: its first link's text when the line starts with one, else its first words."""
    first = entry.body.split("\n", 1)[0].strip()
    found = LINK_TEXT.match(first.lstrip("*_ "))
    words = found.group(1) if found else LINK_TEXT.sub(r"\1", first)
    words = " ".join(MARKUP.sub(" ", words).split())
    return words if len(words) <= TITLE_WIDTH else words[: TITLE_WIDTH - 1].rstrip() + "…"


def line_spans(entries: Sequence[Entry]) -> str:
    """``line 12``, ``lines 12–13``, ``lines 4, 12–18``: entries next to each other in the file
    (nothing but their separators between) make one span, from the first's first line to the
    last's last."""
    spans: list[list[int]] = []
    for entry in sorted(entries, key=lambda e: e.line):
        if spans and entry.line <= spans[-1][1] + 2:
            spans[-1][1] = entry.end_line
        else:
            spans.append([entry.line, entry.end_line])
    text = ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in spans)
    return ("lines " if len(spans) > 1 or spans[0][0] != spans[0][1] else "line ") + text if spans else "no line"


def titles(entries: Sequence[Entry], joiner: str = ", ") -> str:
    named = [f"'{title_of(e)}'" for e in entries[:TITLES_SHOWN]]
    more = len(entries) - len(named)
    return joiner.join(named) + (f" +{more} more" if more else "")


def whole_sections(index: HotIndex, entries: Sequence[Entry]) -> list[str]:
    """Headings every entry of which is among ``entries``."""
    ids = {e.id for e in entries}
    return [s.heading for s in index.sections if s.heading and s.entry_ids and set(s.entry_ids) <= ids]


def describe(change: Change, index: HotIndex) -> str:
    """The change in lines and titles (the lever's own words when it names no entry of ``index``)."""
    entries = [index.entry(i) for i in change.entry_ids if index.has_entry(i)]
    if not entries:
        return change.description
    entries.sort(key=lambda e: e.line)
    where = line_spans(entries)
    if change.kind == "merge":
        return f"merge {where} {titles(entries, ' + ')}"
    if change.kind in ("archive", "fold"):
        sections = whole_sections(index, entries)
        count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
        if sections:
            words = (f"{change.kind} section{'s' if len(sections) > 1 else ''} "
                     + ", ".join(f"'{s}'" for s in sections) + f" ({where}, {count})")
        else:
            words = f"{change.kind} {where} {titles(entries)}" + (f" ({count})" if len(entries) > TITLES_SHOWN else "")
        into = [name for name in change.names if name not in ("MEMORY.md", "ARCHIVE.md")]
        return words + (f" into {into[0]}" if change.kind == "fold" and into else "")
    verb = change.kind.split("-")[0] if change.kind else "change"
    return f"{verb} {where} {titles(entries)}"


def reworded(change: Change, index: HotIndex, archive: HotIndex | None = None) -> Change:
    """``change`` with its description in lines and titles (``archive``: ARCHIVE.md parsed, for a
    restore, whose entry lives there)."""
    if change.kind == "restore" and archive is not None:
        entries = [archive.entry(i) for i in change.entry_ids if archive.has_entry(i)]
        if entries:
            where = change.description.rpartition(" to section ")[2]
            return dataclasses.replace(change, description=f"restore {titles(entries)} to section {where}")
        return change
    return dataclasses.replace(change, description=describe(change, index))


def emptied_by(change: Change, index: HotIndex) -> list[str]:
    """Headings that had entries before ``change`` and have none after it (an archive says so itself,
    through ``Change.emptied_sections``; a merge pulling the last entry out of a section does not)."""
    from curator.index_model import parse_index

    new = change.files.get("MEMORY.md")
    if new is None:
        return []
    after = parse_index(new)
    return [s.heading for s in index.sections if s.heading and s.entry_ids
            and not ((found := after.section_named(s.heading)) is not None and found.entry_ids)]


def with_emptied_warning(change: Change, index: HotIndex) -> Change:
    """A merge (or any change but archive, which asks about the heading) that leaves a section with no
    entry carries a warning naming it, shown in its preview."""
    if change.kind == "archive":
        return change
    emptied = emptied_by(change, index)
    if not emptied:
        return change
    words = ", ".join(f"'{h}'" for h in emptied)
    return dataclasses.replace(change, warnings=change.warnings + (
        f"section{'s' if len(emptied) > 1 else ''} {words} left with no entry: only the heading stays",))
