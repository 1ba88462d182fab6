"""Restore: an archived entry goes back to MEMORY.md where its stamp says it sat, without the stamp."""

from __future__ import annotations

from pathlib import Path

from curator.change import Change, digest
from curator.constants import ARCHIVE_NAME, INDEX_NAME
from curator.errors import InputError
from curator.index_model import BOM, LIST_MARKER, Entry, HotIndex, entry_id, parse_index
from curator.levers.archive_layout import (
    UNSECTIONED,
    append_to_section,
    heading_end,
    section_end,
    table_head,
    with_newline,
)
from curator.levers.archive_pointer import with_archive_pointer, without_archive_pointer
from curator.levers.archive_stamp import STAMP, StampFound, heading_id
from curator.levers.placement import END_OF_FILE, placed, removal_spans, separated, skip_lines, with_separators
from curator.levers.pointer_delta import pointer_warnings
from curator.levers.relink import move_bytes
from curator.levers.text import content_end, entry_source, entry_start, read_optional

def _newline_of(data: bytes) -> bytes:
    """The line ending an entry's bytes end with (``\n`` if none)."""
    return b"\r\n" if data.endswith(b"\r\n") else b"\n"


def plan_restore(memory_dir: str | Path, index: HotIndex, archive_entry_id: str) -> Change:
    archive_raw = read_optional(Path(memory_dir), ARCHIVE_NAME)
    if archive_raw is None:
        raise InputError("no ARCHIVE.md yet: nothing has been archived", path=Path(memory_dir) / ARCHIVE_NAME)
    archive = parse_index(archive_raw)
    if not archive.has_entry(archive_entry_id):
        raise InputError(f"no archived entry with id {archive_entry_id} (see `seat-curator archive-search`)",
                         path=ARCHIVE_NAME)
    entry = archive.entry(archive_entry_id)
    entry_source(archive, entry)
    start = entry_start(archive, entry)
    raw = archive.raw[start : entry.end_offset]
    cut = content_end(archive, entry.line) - start
    first_line = raw[:cut].decode("utf-8")
    found = STAMP.search(first_line)
    restored = STAMP.sub("", first_line, count=1).encode("utf-8") + raw[cut:]
    restored = with_newline(move_bytes(restored, ARCHIVE_NAME, INDEX_NAME), index.newline)

    # The entry leaves with its separator (a blank line, a § line); a table left without rows goes
    # with its last row (and the blank line before it).
    start, end = removal_spans(archive, [entry])[0]
    table = next((b for b in archive.blocks if b.kind == "table" and b.start < entry.line - 1 < b.end), None)
    head_lines: set[int] = set()
    if entry.kind == "row" and table is not None and table.end - table.start == 3:
        head_lines = {table.start + 1, table.start + 2}
        top = table.start - 1 if table.start > 0 and archive.lines[table.start - 1].is_blank else table.start
        start = max(archive.lines[top].offset, len(BOM) if archive.has_bom else 0)
    # Leave the heading in ARCHIVE.md only if other entries still sit under it.
    section = archive.section_named(entry.section)
    if section is not None and section.level > 0 and section.entry_ids == (entry.id,):
        at_end = section.end == len(archive.lines)  # then the blank line before the heading goes too
        first = section.start - 1 if at_end and archive.lines[section.start - 1].is_blank else section.start
        body = [line for line in archive.lines[section.start + 1 : section.end] if not line.is_blank]
        if all(start <= line.offset < end or line.number in head_lines for line in body):
            start = max(archive.lines[first].offset, len(BOM) if archive.has_bom else 0)
            end = archive.lines[section.end - 1].offset + len(archive.lines[section.end - 1].raw)
    new_archive = archive.splice([(start, end, b"")])
    on_disk = index
    unpointed = without_archive_pointer(index.raw)  # placed as if the line leading to ARCHIVE.md were not there
    index = parse_index(unpointed) if unpointed is not None else index
    # ... and it comes back unless the archive is empty again: then it goes with the last entry.
    repoint = unpointed is not None and bool(parse_index(new_archive).entries)

    heading = entry.section
    level = section.level if section is not None else 2
    if heading == UNSECTIONED and index.section_named(UNSECTIONED) is None:
        heading = ""  # it sat above the first heading: put it back at the end of the top part
    place = _old_place(index, archive, entry, found, restored)
    if place is None and heading and index.section_named(heading) is None:
        place = _old_heading_place(index, archive, entry, found, heading, level, restored)
    if place is not None:
        at, data = place
    elif heading:
        at, data = append_to_section(index, heading, level, [(restored, table_head(archive, entry), entry.kind)])
    else:
        at, data = _top_insert(index, restored, entry.kind)
    new_index = index.splice([(at, at, data)])
    new_index = with_archive_pointer(new_index) if repoint else new_index
    files = {INDEX_NAME: new_index, ARCHIVE_NAME: new_archive}
    # The entry may be back in MEMORY.md already (typed or pasted back, or an editor undo): a restore
    # would then make a second copy. Say so where the restore is previewed.
    text = " ".join(restored.decode("utf-8", "replace").split())
    copies = [e.line for e in index.entries if " ".join(e.text.split()) == text]
    twice = [f"this entry is already in MEMORY.md (line {', '.join(map(str, copies))}): restoring it adds a "
             "second copy"] if copies else []
    return Change(
        description=f"restore archived entry {entry.id} to section '{heading or '(top)'}'",
        files=files,
        bytes_saved=len(on_disk.raw) - len(new_index),
        entry_ids=(entry.id,),
        warnings=tuple(twice + pointer_warnings(memory_dir, on_disk, files)),
        kind="restore",
        base={INDEX_NAME: digest(on_disk.raw), ARCHIVE_NAME: digest(archive_raw)},
    )


def _old_place(index: HotIndex, archive: HotIndex, entry: Entry, found: StampFound | None,
               restored: bytes) -> tuple[int, bytes] | None:
    """(offset, bytes) that put the entry back beside the neighbour its stamp names, or None.
    A neighbour of the same kind (a row: of the same table) comes first; a row lands only beside a
    row of its table, any other entry beside any other entry that is not a row (with what parts
    them), so the entry lands where it is still the same kind of entry."""
    if found is None:
        return None
    head = table_head(archive, entry)

    def fits(entry_id: str | None, same_kind: bool) -> Entry | None:
        if not entry_id or not index.has_entry(entry_id):
            return None
        other = index.entry(entry_id)
        if entry.kind == "row" or other.kind == "row":
            same = other.kind == entry.kind and table_head(index, other) == head
        else:
            same = other.kind == entry.kind or not same_kind
        return other if same else None

    if found.group("sep_above") is not None:  # the place is recorded: any kind of neighbour anchors it
        after, before = (index.entry(i) if i and index.has_entry(i) else None
                         for i in (found.group("after"), found.group("before")))
        return _recorded_place(index, entry, found, restored, after, before)
    for same_kind in (True, False):
        after, before = fits(found.group("after"), same_kind), fits(found.group("before"), same_kind)
        if after is not None:
            return after.end_offset, placed(index, after.end_offset, entry.kind, restored)
        if before is not None:
            at = entry_start(index, before)
            return at, placed(index, at, entry.kind, restored)
    return None


def _recorded_place(index: HotIndex, entry: Entry, found: StampFound, restored: bytes, after: Entry | None,
                    before: Entry | None) -> tuple[int, bytes] | None:
    """(offset, bytes) from a stamp that records its cut: the same separator lines, as many lines
    after the entry before it (or after its heading, if it came first) or before the entry after it."""
    # An index left without a single line ending cannot say which one it writes; the archived
    # entry, written with the index's, can.
    newline = index.newline if b"\n" in index.raw else _newline_of(restored)
    sep_above, sep_below = found.group("sep_above"), found.group("sep_below")
    gap_after, gap_before = found.group("gap_after"), found.group("gap_before")
    # A recorded cut writes its four fields together (the caller found sep_above).
    assert sep_above is not None and sep_below is not None and gap_after is not None and gap_before is not None
    data = with_separators(newline, sep_above, sep_below, restored)
    heading = heading_end(index, entry) if entry.section != UNSECTIONED else None
    after_end = after.end_offset if after is not None else _prose_end(index, found.group("after"))
    if after_end is not None:
        at = skip_lines(index, after_end, int(gap_after))
    elif not found.group("after") and heading is not None:  # it came first in its section
        at = skip_lines(index, heading, int(gap_after))
    elif not found.group("after") and entry.section == UNSECTIONED and index.section_named(UNSECTIONED) is None:
        at = skip_lines(index, len(BOM) if index.has_bom else 0, int(gap_after))  # first on top
    elif before is not None:
        at = skip_lines(index, entry_start(index, before), int(gap_before), back=True)
    elif not found.group("before") and (end := section_end(index, _index_heading(index, entry))) is not None:
        at = skip_lines(index, end, int(gap_before), back=True)  # it came last in its section
    else:
        return None
    return at, placed(index, at, entry.kind, data, as_cut=True, ended_file=sep_below == END_OF_FILE,
                      newline=newline)


def _index_heading(index: HotIndex, entry: Entry) -> str:
    """The heading in MEMORY.md of an archived entry's section ('' for the part above every heading)."""
    if entry.section == UNSECTIONED and index.section_named(UNSECTIONED) is None:
        return ""
    return entry.section


def _prose_end(index: HotIndex, wanted: str | None) -> int | None:
    """Where the paragraph ends that was the entry ``wanted`` and is prose now (the last ``§`` block
    archived out of a preamble leaves the block before it as the file's header): None if none."""
    if not wanted:
        return None
    base = wanted.split("-")[0]
    for block in index.blocks:
        if block.kind != "paragraph":
            continue
        lines = index.lines[block.start : block.end]
        text = "\n".join(line.text for line in lines)
        first = text.partition("\n")[0]
        body = LIST_MARKER.sub("", first, count=1) + text[len(first):]
        section = next((s.heading for s in index.sections if s.start <= block.start < s.end), "")
        if entry_id(section, body, {}) == base:
            return lines[-1].offset + len(lines[-1].raw)
    return None


def _old_heading_place(index: HotIndex, archive: HotIndex, entry: Entry, found: StampFound | None, heading: str, level: int,
                       restored: bytes) -> tuple[int, bytes] | None:
    """(offset, bytes) that re-create a dropped heading, with the entry under it, before the
    heading that followed it (None: not recorded, or that heading is gone too)."""
    wanted = found.group("next_heading") if found is not None else None
    following = next((s for s in index.sections if s.level > 0 and heading_id(s.heading) == wanted), None)
    if following is None:
        return None
    nl = index.newline
    title = ("#" * max(level, 2) + " " + heading).encode("utf-8") + nl
    head = table_head(archive, entry)
    if head:  # a table sits after a blank line under its heading
        title += nl + (head if head.endswith(b"\n") else head + nl)
        return index.lines[following.start].offset, title + restored + nl
    return index.lines[following.start].offset, title + separated(nl, "heading", None, entry.kind, restored) + nl


def _top_insert(index: HotIndex, block: bytes, kind: str = "item") -> tuple[int, bytes]:
    top = index.sections[0] if index.sections and index.sections[0].level == 0 else None
    if top is not None and top.entry_ids:
        at = index.entry(top.entry_ids[-1]).end_offset
    else:
        at = len(BOM) if index.has_bom else 0  # after the file's BOM, never before it
    return at, placed(index, at, kind, block)
