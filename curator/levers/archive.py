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

import posixpath
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz, process, utils

from curator.change import Change, digest
from curator.constants import ARCHIVE_NAME, INDEX_NAME
from curator.errors import InputError
from curator.index_model import BOM, LIST_MARKER, SECTION_SIGN, Entry, HotIndex, Section, entry_id, parse_index
from curator.levers.merge import IDENTITY_SECTION
from curator.levers.placement import (
    END_OF_FILE,
    SPACED,
    Cut,
    kinds_around,
    line_kinds,
    lines_between,
    parting,
    placed,
    removal_cuts,
    removal_spans,
    separated,
    skip_lines,
    with_separators,
)
from curator.levers.pointer_delta import aim
from curator.levers.relink import move_bytes
from curator.levers.text import content_end, entries_by_id, entry_source, entry_start, read_optional
from curator.pointers import check_pointers

UNSECTIONED = "Unsectioned"  # archive heading for entries that sat above the index's first heading
_ID = r"[0-9a-f]{6}(?:-\d+)?"
_DAY = r"\d{4}-\d{2}-\d{2}"
_CUT = (r"(?P<gap_after>\d+):(?P<gap_before>\d+):(?P<sep_above>[-b§]|x(?:[0-9A-F]{2})+)"
        r"(?P<sep_below>[-b§$]|x(?:[0-9A-F]{2})+)")
# The stamp as written since: the date for people, where it sat for restore in an HTML comment (hidden
# where markdown is rendered): " · archived 2026-12-02 <!-- after 1a2b3c, before 4d5e6f, cut 0:1:b- -->".
_SHORT = rf" · archived (?P<short_day>{_DAY})(?: <!-- (?P<place>[^<>]*?) -->)?"
# The stamp as first written (still read): " · archived 2026-12-02 · after 1a2b3c · before 4d5e6f · cut 0:1:b-".
_LONG = (rf" · archived (?P<day>{_DAY})(?: · after (?P<after>{_ID}))?(?: · before (?P<before>{_ID}))?"
         rf"(?: · cut {_CUT})?"
         rf"(?P<dropped> · heading dropped(?: before (?P<next_heading>{_ID}))?)?")
_STAMPS = re.compile(rf"(?:{_SHORT}|{_LONG})(?=\s*\|?\r?\n?$)")  # (in a row: before the last pipe)
_PLACE_PART = re.compile(rf"after (?P<after>{_ID})|before (?P<before>{_ID})|cut {_CUT}"
                         rf"|(?P<dropped>heading dropped)(?: before (?P<next_heading>{_ID}))?")
_FIELDS = ("day", "after", "before", "gap_after", "gap_before", "sep_above", "sep_below", "dropped", "next_heading")


class StampFound:
    """A stamp found in an entry's first line, either form, read as the same named fields (``day``,
    ``after``, ``before``, the cut's ``gap_after`` … ``sep_below``, ``dropped``, ``next_heading``)."""

    def __init__(self, match: re.Match):
        self.match = match
        if match.group("short_day") is None:
            self.fields = {name: match.group(name) for name in _FIELDS}
            return
        self.fields = dict.fromkeys(_FIELDS)
        self.fields["day"] = match.group("short_day")
        for part in (match.group("place") or "").split(", "):
            found = _PLACE_PART.fullmatch(part.strip())
            if found is not None:
                self.fields.update({k: v for k, v in found.groupdict().items() if v is not None})

    def group(self, name: str) -> str | None:
        return self.fields[name]

    def span(self) -> tuple[int, int]:
        return self.match.span()


class StampPattern:
    """``STAMP.search(line)`` → ``StampFound`` or None; ``STAMP.sub(repl, text)`` as ``re`` does."""

    def search(self, text: str) -> StampFound | None:
        found = _STAMPS.search(text)
        return StampFound(found) if found is not None else None

    def sub(self, repl: str, text: str, count: int = 0) -> str:
        return _STAMPS.sub(repl, text, count=count)


STAMP = StampPattern()
SEARCH_CUTOFF = 50
SECTION_SIGN_BYTES = SECTION_SIGN.encode()
# The line that keeps ARCHIVE.md within the bearer's reach when MEMORY.md links nowhere to it.
ARCHIVE_POINTER = "[Archive](ARCHIVE.md) — entries moved out of this index, verbatim; not loaded: grep it when you need one."
POINTER_SECTION = IDENTITY_SECTION  # the template's section of pointer lines (identity.md, seat-pointers.md)

ARCHIVE_HEADER = (
    "# Archive\n"
    "\n"
    "> Cold entries moved out of the hot index (MEMORY.md) by move-to-archive. This file is not\n"
    "> loaded with the index: grep it (or run `seat-curator archive-search`) when you need it.\n"
    "> Links still work, so detail files stay reachable; `seat-curator restore` moves an entry back.\n"
)


@dataclass(frozen=True)
class Hit:
    entry_id: str  # the id in ARCHIVE.md (what `restore` takes)
    section: str
    line: int
    score: float
    text: str
    archived_on: str  # YYYY-MM-DD from the stamp, '' if none


def _with_newline(data: bytes, newline: bytes) -> bytes:
    return data if not data or data.endswith(b"\n") else data + newline


def table_head(doc: HotIndex, entry: Entry) -> bytes:
    """The header and delimiter lines of the table a row belongs to (b"" for a list item)."""
    if entry.kind != "row":
        return b""
    for block in doc.blocks:
        if block.kind == "table" and block.start < entry.line - 1 < block.end:
            return b"".join(line.raw for line in doc.lines[block.start : block.start + 2])
    return b""


Part = tuple[bytes, bytes, str]  # an entry's bytes, its table's head (b"" unless a row), its kind


def section_block(doc: HotIndex, heading: str, parts: list[Part], below: str | None = None) -> bytes:
    """The bytes that append ``parts`` at the end of ``heading`` in ``doc``: a row that does not
    follow a row of the same table gets that table's head (after a blank line when something comes
    before it), and any other entry gets what parts it from the block above it (a blank line, a
    ``§`` line: ``curator.levers.placement``), so every moved entry is still an entry where it lands.
    ``below``: the kind of line the block will sit above."""
    nl = doc.newline
    section = doc.section_named(heading) if heading else None
    previous = None  # (kind, head) of what the block follows
    if section is not None and section.level > 0 and section.entry_ids:
        last = doc.entry(section.entry_ids[-1])
        previous = (last.kind, table_head(doc, last))
    out = b""
    for n, (data, head, kind) in enumerate(parts):
        head = head if head.endswith(b"\n") or not head else head + nl
        if kind == "row":
            if previous != ("row", head):
                out += (nl if previous is not None else b"") + head
        else:
            out += parting(nl, previous[0] if previous else "heading", below if n == 0 else None, kind)[0]
        out += data
        previous = (kind, head)
    return out


def append_to_section(doc: HotIndex, heading: str, level: int, parts: list[Part]) -> tuple[int, bytes]:
    """(offset, bytes) that put ``parts`` at the end of section ``heading`` (created at the end),
    with what parts them from the block below them too."""
    at, _ = _insert_under(doc, heading, level, b"")
    below = kinds_around(doc, line_kinds(doc), at)[1] if doc.section_named(heading) is not None else None
    at, data = _insert_under(doc, heading, level, section_block(doc, heading, parts, below))
    above = parts[-2][2] if len(parts) > 1 else None
    return at, data + parting(doc.newline, above, below, parts[-1][2])[1]


def _insert_under(doc: HotIndex, heading: str, level: int, block: bytes) -> tuple[int, bytes]:
    """(offset, bytes) that put ``block`` at the end of section ``heading`` (created at the end)."""
    section = doc.section_named(heading) if heading else None
    if section is not None and section.level > 0:
        if section.entry_ids:
            last = doc.entry(section.entry_ids[-1])
            if last.end_offset == len(doc.raw) and not doc.raw.endswith(b"\n"):
                return last.end_offset, doc.newline + block
            return last.end_offset, block
        heading_line = doc.lines[section.start]
        at = heading_line.offset + len(heading_line.raw)
        return at, (b"" if heading_line.raw.endswith(b"\n") else doc.newline) + block
    nl = doc.newline
    title = ("#" * max(level, 2) + " " + (heading or UNSECTIONED)).encode("utf-8")
    lead = b"" if not doc.raw else (b"" if doc.raw.endswith(b"\n") else nl) + nl
    return len(doc.raw), lead + title + nl + block


def refuse_identity_lines(index: HotIndex, entry_ids) -> None:
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


def _stamp(today: date, after: str | None, before: str | None, dropped: tuple[str | None] | None,
           cut: str = "") -> bytes:
    """`` · archived 2026-12-02``, then what restore needs in an HTML comment (hidden where the markdown
    is rendered; docs/entries.md says what each part means): ``after``/``before`` the ids of its
    neighbours, ``cut`` for a paragraph or a § block how it sat (``curator.levers.placement``),
    ``heading dropped`` (``dropped``: None if the heading stays, else (id of the heading that followed
    it or None))."""
    place = ([f"after {after}"] if after else []) + ([f"before {before}"] if before else []) + (
        [f"cut {cut}"] if cut else [])
    if dropped is not None:
        place.append("heading dropped" + (f" before {dropped[0]}" if dropped[0] else ""))
    return (f" · archived {today.isoformat()}" + (f" <!-- {', '.join(place)} -->" if place else "")).encode()


def heading_id(heading: str) -> str:
    """Six hex digits naming a heading in a stamp (the same whitespace-blind digest entry ids use)."""
    return entry_id("", heading, {})


def emptied_sections(index: HotIndex, entry_ids) -> list[Section]:
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


def plan_archive(memory_dir: str | Path, index: HotIndex, entry_ids, *, today: date,
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
        stamp = _stamp(today, after, before, dropped.get(entry.section), _cut_record(index, cuts.get(entry.id), after, before, going))
        moved = move_bytes(raw[:cut] + stamp + raw[cut:], INDEX_NAME, ARCHIVE_NAME)
        moving.setdefault(entry.section, []).append(
            (_with_newline(moved, index.newline), table_head(index, entry), entry.kind))

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
        warnings=tuple(_pointer_warnings(memory_dir, on_disk, files)),
        kind="archive",
        base={INDEX_NAME: digest(on_disk.raw), ARCHIVE_NAME: digest(old_archive)},
        emptied_sections=tuple(s.heading for s in emptied),
    )


def links_archive(index: HotIndex) -> bool:
    """Whether MEMORY.md links ARCHIVE.md (a file link or a ``[[wikilink]]``)."""
    for link in index.links:
        if link.kind == "file" and link.path and posixpath.normpath(link.path) == ARCHIVE_NAME:
            return True
        if link.kind == "wiki" and link.wiki_name.lower() in ("archive", ARCHIVE_NAME.lower()):
            return True
    return False


def with_archive_pointer(raw: bytes) -> bytes:
    """``raw`` (MEMORY.md) with one line linking ARCHIVE.md, unless it links it already: after the
    last pointer line of the template's pointer section when there is one, else as the last line (a
    ``§`` file gets it as one more block). Nothing else moves, so ``without_archive_pointer`` finds
    the very bytes it had."""
    index = parse_index(raw)
    if links_archive(index):
        return raw
    nl = index.newline
    item = b"- " + ARCHIVE_POINTER.encode("utf-8")
    section = index.section_named(POINTER_SECTION)
    if section is not None and section.level > 0 and section.entry_ids:
        last = index.entry(section.entry_ids[-1])
        if last.kind == "item" and raw[: last.end_offset].endswith(b"\n"):
            return raw[: last.end_offset] + item + nl + raw[last.end_offset :]
    lead = b"" if not raw or raw.endswith(b"\n") else nl  # an unended last line stays unended
    ended = b"" if raw and not raw.endswith(b"\n") else nl
    if any(e.kind == "hermes" for e in index.entries):
        return raw + lead + SECTION_SIGN_BYTES + nl + ARCHIVE_POINTER.encode("utf-8") + ended
    return raw + lead + item + ended


def without_archive_pointer(raw: bytes) -> bytes | None:
    """The MEMORY.md that ``with_archive_pointer`` turned into ``raw``, or None if it is not one."""
    text = ARCHIVE_POINTER.encode("utf-8")
    at = raw.rfind(text)
    if at < 0:
        return None
    line_start = raw.rfind(b"\n", 0, at) + 1
    line_end = raw.find(b"\n", at)
    line_end = len(raw) if line_end < 0 else line_end + 1
    for back in range(min(line_start, 8) + 1):  # the separator it may have brought: a blank line, a § line
        for end in (line_end, at + len(text)):
            candidate = raw[: line_start - back] + raw[end:]
            if with_archive_pointer(candidate) == raw:
                return candidate
    return None


def _cut_record(index: HotIndex, cut: Cut | None, after: str | None, before: str | None,
                going: Collection[str] = ()) -> str:
    """``gap_after:gap_before:AB`` for a paragraph or § block: the lines between the entry before it
    (or its heading) and its cut, between its cut and the entry after it (or the end of its
    section), and the separator lines the cut took above and below it ('b' blank, '§', '-' none,
    ``x`` and hex for other bytes), so restore puts the same bytes back at the same place.
    ``going``: the ids archived with it (a neighbour among them may not be back first)."""
    if cut is None:
        return ""
    heading = _heading_end(index, cut.entry)
    if after:
        gap_after = lines_between(index, index.entry(after).end_offset, cut.start)
    else:  # it came first in its section: count from the heading (from the top, above every heading)
        top = len(BOM) if index.has_bom else 0  # the first line begins after the file's BOM
        gap_after = lines_between(index, heading if heading is not None else top, cut.start)
    later = entry_start(index, index.entry(before)) if before else _section_end(index, cut.entry.section)
    gap_before = lines_between(index, cut.end, later) if later is not None else 0
    kinds = {index.entry(i).kind for i in (after, before) if i}
    alone = not (cut.above or cut.below) and not {after, before} & set(going)
    if cut.entry.kind not in SPACED and kinds <= {cut.entry.kind} and alone:
        # An item among items, a row among rows: right beside its neighbour (the only one: right
        # under its heading) is where it was, unless lines (blank ones, a block) stood between
        # them; then the place is recorded too.
        if (after and gap_after == 0) or (not after and (gap_before if before else gap_after) == 0):
            return ""
    above, below = cut.marks(index.newline)
    return f"{gap_after}:{gap_before}:{above}{below}"


def _section_end(index: HotIndex, heading: str) -> int | None:
    """The offset where section ``heading`` ends ('': the part above every heading), None if the
    index has no such section."""
    section = next((s for s in index.sections if s.heading == heading and (s.level > 0) == bool(heading)), None)
    if section is None:
        return None
    return index.lines[section.end].offset if section.end < len(index.lines) else len(index.raw)


def _newline_of(data: bytes) -> bytes:
    """The line ending an entry's bytes end with (``\n`` if none)."""
    return b"\r\n" if data.endswith(b"\r\n") else b"\n"


def _heading_end(index: HotIndex, entry: Entry) -> int | None:
    """The offset just after the heading line of the entry's section (None: above every heading)."""
    section = index.section_named(entry.section) if entry.section else None
    if section is None or section.level == 0:
        return None
    line = index.lines[section.start]
    return line.offset + len(line.raw)


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte ranges merged where they overlap (an entry's separator may touch a dropped section)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


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
    restored = _with_newline(move_bytes(restored, ARCHIVE_NAME, INDEX_NAME), index.newline)

    # The entry leaves with its separator (a blank line, a § line); a table left without rows goes
    # with its last row (and the blank line before it).
    start, end = removal_spans(archive, [entry])[0]
    table = next((b for b in archive.blocks if b.kind == "table" and b.start < entry.line - 1 < b.end), None)
    head_lines: set[int] = set()
    if entry.kind == "row" and table is not None and table.end - table.start == 3:
        head_lines = {table.start + 1, table.start + 2}
        first_line = table.start - 1 if table.start > 0 and archive.lines[table.start - 1].is_blank else table.start
        start = max(archive.lines[first_line].offset, len(BOM) if archive.has_bom else 0)
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
        warnings=tuple(twice + _pointer_warnings(memory_dir, on_disk, files)),
        kind="restore",
        base={INDEX_NAME: digest(on_disk.raw), ARCHIVE_NAME: digest(archive_raw)},
    )


def _old_place(index: HotIndex, archive: HotIndex, entry: Entry, found, restored: bytes) -> tuple[int, bytes] | None:
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


def _recorded_place(index: HotIndex, entry: Entry, found, restored: bytes, after: Entry | None,
                    before: Entry | None) -> tuple[int, bytes] | None:
    """(offset, bytes) from a stamp that records its cut: the same separator lines, as many lines
    after the entry before it (or after its heading, if it came first) or before the entry after it."""
    # An index left without a single line ending cannot say which one it writes; the archived
    # entry, written with the index's, can.
    newline = index.newline if b"\n" in index.raw else _newline_of(restored)
    data = with_separators(newline, found.group("sep_above"), found.group("sep_below"), restored)
    heading = _heading_end(index, entry) if entry.section != UNSECTIONED else None
    after_end = after.end_offset if after is not None else _prose_end(index, found.group("after"))
    if after_end is not None:
        at = skip_lines(index, after_end, int(found.group("gap_after")))
    elif not found.group("after") and heading is not None:  # it came first in its section
        at = skip_lines(index, heading, int(found.group("gap_after")))
    elif not found.group("after") and entry.section == UNSECTIONED and index.section_named(UNSECTIONED) is None:
        at = skip_lines(index, len(BOM) if index.has_bom else 0, int(found.group("gap_after")))  # first on top
    elif before is not None:
        at = skip_lines(index, entry_start(index, before), int(found.group("gap_before")), back=True)
    elif not found.group("before") and (end := _section_end(index, _index_heading(index, entry))) is not None:
        at = skip_lines(index, end, int(found.group("gap_before")), back=True)  # it came last in its section
    else:
        return None
    return at, placed(index, at, entry.kind, data, as_cut=True, ended_file=found.group("sep_below") == END_OF_FILE,
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


def _old_heading_place(index: HotIndex, archive: HotIndex, entry: Entry, found, heading: str, level: int,
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


def _pointer_warnings(memory_dir, index: HotIndex, files: dict[str, bytes]) -> list[str]:
    """Archive and restore keep every link verbatim; say so if the graph disagrees anyway."""
    before = check_pointers(Path(memory_dir), parsed_index=index)
    after = check_pointers(Path(memory_dir), overrides=files)
    orphans = sorted(set(after.orphans) - set(before.orphans))
    # A line that already held a dangling link moves its problem with it: compare where links aim.
    old = Counter(aim(d.file, d.target) for d in before.dangling)
    dangling = set()
    for d in after.dangling:
        if old[aim(d.file, d.target)] > 0:
            old[aim(d.file, d.target)] -= 1
        else:
            dangling.add(f"{d.file}: {d.target}")
    dangling = sorted(dangling)
    return [f"orphaned detail file {name}" for name in orphans] + [f"dangling pointer {d}" for d in dangling]


# The app searches as the bearer types: one parse per archive version, not one per keystroke.
_parse_archive = lru_cache(maxsize=2)(parse_index)


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
                        stamp.group("day") if stamp else ""))
    return hits
