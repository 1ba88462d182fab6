"""Move-to-archive: cold entries leave MEMORY.md for ARCHIVE.md, and can come back.

ARCHIVE.md sits beside MEMORY.md, so an archived entry's relative links still resolve and its
detail files stay reachable (the pointer graph treats ARCHIVE.md as a root). It is created on first
need with a short header; entries go under the same section heading they had in the index, each
stamped ``· archived YYYY-MM-DD`` at the end of its first line, followed, in an HTML comment, by where
it sat: the ids of the entries just before and after it in its section
(``<!-- after 1a2b3c, before 4d5e6f -->``; stamps written before in the form
``· after 1a2b3c · before 4d5e6f`` still read). Restore
removes the stamp and puts the entry back right after that earlier neighbour if it is still there,
else right before the later one, else (and for stamps without the record) at the end of its section;
a heading left empty in ARCHIVE.md goes too. Where beside a neighbour is not exactly where it sat
(lines between them, a neighbour archived with it, separator lines its cut took) the stamp records
the cut as well (``cut G:H:AB``, see docs/entries.md), so restore puts back the very bytes at the
very place. Archiving every entry of a section reports the section
as emptied; asked to, it drops the heading as well and the stamp says so (``heading dropped before
<id of the next heading>``), so restore re-creates the heading where it stood.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import date
from pathlib import Path

from curator.change import Change, digest
from curator.constants import ARCHIVE_NAME, INDEX_NAME
from curator.errors import InputError
from curator.index_model import BOM, HotIndex, Section, parse_index
from curator.levers.archive_layout import UNSECTIONED, Part, append_to_section, section_block, table_head, with_newline
from curator.levers.archive_pointer import (
    ARCHIVE_POINTER,
    POINTER_SECTION,
    SECTION_SIGN_BYTES,
    links_archive,
    with_archive_pointer,
    without_archive_pointer,
)
from curator.levers.archive_restore import plan_restore
from curator.levers.archive_search import SEARCH_CUTOFF, Hit, search_archive
from curator.levers.archive_stamp import STAMP, StampFound, StampPattern, cut_record, heading_id, new_stamp
from curator.levers.merge import IDENTITY_SECTION
from curator.levers.placement import removal_cuts, removal_spans
from curator.levers.pointer_delta import pointer_warnings
from curator.levers.relink import move_bytes
from curator.levers.text import content_end, entries_by_id, entry_source, entry_start, read_optional

# Every name the archive lever had before its parts moved to sibling modules is still imported from here.
__all__ = [
    "ARCHIVE_HEADER", "ARCHIVE_NAME", "ARCHIVE_POINTER", "POINTER_SECTION", "SEARCH_CUTOFF", "SECTION_SIGN_BYTES",
    "STAMP", "UNSECTIONED", "Hit", "Part", "StampFound", "StampPattern", "append_to_section", "emptied_sections",
    "heading_id", "links_archive", "plan_archive", "plan_restore", "refuse_identity_lines", "search_archive", "section_block",
    "table_head", "with_archive_pointer", "without_archive_pointer",
]

ARCHIVE_HEADER = (
    "# Archive\n"
    "\n"
    "> Cold entries moved out of the hot index (MEMORY.md) by move-to-archive. This file is not\n"
    "> loaded with the index: grep it (or run `seat-curator archive-search`) when you need it.\n"
    "> Links still work, so detail files stay reachable; `seat-curator restore` moves an entry back.\n"
)


def refuse_identity_lines(index: HotIndex, entry_ids: list[str] | tuple[str, ...]) -> None:
    """Refuse, naming the first one, entries that are the template's identity lines: the section
    fit and merge leave alone (``IDENTITY_SECTION``) is never archived by id either. (The template's
    header is a heading and a blockquote: no entry, so no id reaches it.)"""
    for entry in entries_by_id(index, entry_ids):
        if entry.section == IDENTITY_SECTION:
            raise InputError(f"entry {entry.id} (line {entry.line}) is one of the template's identity lines "
                             f"(section '{IDENTITY_SECTION}'): it is never archived", path=INDEX_NAME)


def _neighbours(index: HotIndex) -> dict[str, tuple[str | None, str | None]]:
    """entry id -> (id of the entry before it, id of the entry after it) within its section."""
    out: dict[str, tuple[str | None, str | None]] = {}
    for section in index.sections:
        ids = section.entry_ids
        for i, this in enumerate(ids):
            out[this] = (ids[i - 1] if i else None, ids[i + 1] if i + 1 < len(ids) else None)
    return out


def emptied_sections(index: HotIndex, entry_ids: Iterable[str]) -> list[Section]:
    """Sections with a heading that archiving ``entry_ids`` leaves with nothing but blank lines and
    the heads of tables whose rows all go."""
    going = set(entry_ids)
    out = []
    for section in index.sections:
        if section.level == 0 or not section.entry_ids or not set(section.entry_ids) <= going:
            continue
        spans = removal_spans(index, [index.entry(i) for i in section.entry_ids])  # separators go too
        kept = {i for i in range(section.start + 1, section.end)
                if not any(start <= index.lines[i].offset < end for start, end in spans)}
        for block in index.blocks:
            if block.kind == "table" and section.start < block.start < section.end:
                kept -= set(range(block.start, block.start + 2))
        if all(index.lines[i].is_blank for i in kept):
            out.append(section)
    return out


def _dropped_span(index: HotIndex, section: Section) -> tuple[int, int]:
    """Byte range that removes ``section`` from its heading on; the last section of the file also
    takes the blank line before its heading, so the file does not end in a blank line."""
    first = section.start
    if section.end == len(index.lines) and first > 0 and index.lines[first - 1].is_blank:
        first -= 1
    last = index.lines[section.end - 1]
    return max(index.lines[first].offset, len(BOM) if index.has_bom else 0), last.offset + len(last.raw)


def plan_archive(memory_dir: str | Path, index: HotIndex, entry_ids: list[str] | tuple[str, ...], *, today: date,
                 drop_empty_sections: bool | Collection[str] = False) -> Change:
    """``drop_empty_sections``: also remove the heading of a section the archive leaves empty (True:
    every such section; a collection of headings: only those). ``Change.emptied_sections`` names
    those sections either way."""
    on_disk = index
    unpointed = without_archive_pointer(index.raw)  # the line leading to ARCHIVE.md is no entry's neighbour
    index = parse_index(unpointed) if unpointed is not None else index
    for wanted in entry_ids:
        if unpointed is not None and not index.has_entry(wanted) and on_disk.has_entry(wanted):
            raise InputError(f"entry {wanted} is the line that leads to ARCHIVE.md: it stays while the archive "
                             "holds entries", path=INDEX_NAME)
    entries = entries_by_id(index, entry_ids)
    if not entries:
        raise InputError("name at least one entry to archive", path=INDEX_NAME)
    refuse_identity_lines(index, entry_ids)  # whoever asks: the CLI, the app, a script
    old_archive = read_optional(Path(memory_dir), ARCHIVE_NAME)
    archive_raw = old_archive if old_archive is not None else ARCHIVE_HEADER.encode().replace(b"\n", index.newline)
    archive = parse_index(archive_raw)
    neighbours = _neighbours(index)
    emptied = emptied_sections(index, [e.id for e in entries])
    dropped: dict[str, tuple[str | None]] = {}  # heading -> (id of the next heading or None)
    if drop_empty_sections:
        for section in emptied:
            if drop_empty_sections is not True and section.heading not in drop_empty_sections:
                continue
            later = [s for s in index.sections if s.start >= section.end]
            dropped[section.heading] = (heading_id(later[0].heading) if later else None,)

    levels = {s.heading: s.level for s in index.sections}
    moving: dict[str, list[Part]] = {}  # section -> the entries that go there
    cuts = {cut.entry.id: cut for cut in removal_cuts(index, [e for e in entries if e.section not in dropped])}
    going = {e.id for e in entries}
    for entry in sorted(entries, key=lambda e: e.offset):
        entry_source(index, entry)  # refuses an entry with bytes that are not UTF-8
        start = entry_start(index, entry)  # the file's BOM stays with the file
        cut = content_end(index, entry.line) - start
        raw = index.raw[start : entry.end_offset]
        if entry.kind == "row" and raw[:cut].rstrip().endswith(b"|"):  # the stamp goes inside the last cell
            cut = raw[:cut].rstrip().rfind(b"|")
            cut -= len(raw[:cut]) - len(raw[:cut].rstrip())
        after, before = neighbours.get(entry.id, (None, None))
        stamp = new_stamp(today, after, before, dropped.get(entry.section), cut_record(index, cuts.get(entry.id), after, before, going))
        moved = move_bytes(raw[:cut] + stamp + raw[cut:], INDEX_NAME, ARCHIVE_NAME)
        moving.setdefault(entry.section, []).append(
            (with_newline(moved, index.newline), table_head(index, entry), entry.kind))

    # Sections already in ARCHIVE.md get their block spliced in; new ones are appended in order.
    edits, appended = [], b""
    for heading, parts in moving.items():
        if heading and archive.section_named(heading) is not None:
            edits.append(append_to_section(archive, heading, levels.get(heading, 2), parts))
    tail = parse_index(archive_raw)
    for heading, parts in moving.items():
        if not (heading and archive.section_named(heading) is not None):
            at, data = append_to_section(tail, heading, levels.get(heading, 2), parts)
            appended += data
            tail = parse_index(tail.raw + data)
    new_archive = archive.splice([(at, at, data) for at, data in edits]) + appended

    spans = removal_spans(index, [e for e in entries if e.section not in dropped])
    spans += [_dropped_span(index, s) for s in emptied if s.heading in dropped]
    # ARCHIVE.md is not loaded with the index: the index keeps one line that leads to it.
    new_index = with_archive_pointer(index.splice([(start, end, b"") for start, end in _union(spans)]))
    files = {INDEX_NAME: new_index, ARCHIVE_NAME: new_archive}
    return Change(
        description=f"archive {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} ({', '.join(e.id for e in entries)})",
        files=files,
        bytes_saved=len(on_disk.raw) - len(new_index),
        entry_ids=tuple(e.id for e in entries),
        warnings=tuple(pointer_warnings(memory_dir, on_disk, files)),
        kind="archive",
        base={INDEX_NAME: digest(on_disk.raw), ARCHIVE_NAME: digest(old_archive)},
        emptied_sections=tuple(s.heading for s in emptied),
    )


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte ranges merged where they overlap (an entry's separator may touch a dropped section)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out
