"""Where archived and restored entries land: a section's end, its heading, a table's head, what parts them."""

from __future__ import annotations

from curator.index_model import Entry, HotIndex
from curator.levers.placement import kinds_around, line_kinds, parting

UNSECTIONED = "Unsectioned"  # archive heading for entries that sat above the index's first heading


def with_newline(data: bytes, newline: bytes) -> bytes:
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


def section_end(index: HotIndex, heading: str) -> int | None:
    """The offset where section ``heading`` ends ('': the part above every heading), None if the
    index has no such section."""
    section = next((s for s in index.sections if s.heading == heading and (s.level > 0) == bool(heading)), None)
    if section is None:
        return None
    return index.lines[section.end].offset if section.end < len(index.lines) else len(index.raw)


def heading_end(index: HotIndex, entry: Entry) -> int | None:
    """The offset just after the heading line of the entry's section (None: above every heading)."""
    section = index.section_named(entry.section) if entry.section else None
    if section is None or section.level == 0:
        return None
    line = index.lines[section.start]
    return line.offset + len(line.raw)
