"""The hot index as a lossless model: raw lines, sections, entries, other blocks.

The file's bytes are kept line by line (with their own line endings), so ``render()`` gives back the
identical bytes for any input: CRLF, a BOM, no final newline, tabs, trailing spaces, broken markdown,
bytes that are not UTF-8. Structure is read from markdown-it's block tokens, so a ``#`` inside a code
fence is never a heading and a ``-`` inside one is never an entry.

An *entry* is one thing the bearer wrote down, in whichever of the shapes people write memory in:

- ``kind == "item"``: a top-level list item: its first line and every continuation line (nested
  bullets, lazy lines) up to the next item or block.
- ``kind == "row"``: a body row of a top-level table (where the index is a table); the header and
  delimiter rows stay with the table, so the levers act on rows and the table keeps its head.
- ``kind == "paragraph"``: a standalone top-level paragraph under a heading (all its lines).
- ``kind == "hermes"``: a block of a Hermes memory file, where entries are separated by lines that
  hold only ``§`` (markdown sees them as one paragraph): each run of lines between two such lines.
  The ``§`` lines themselves belong to no entry; a lever that removes a block takes one with it.

Trailing blank lines are not part of an entry. Two kinds of paragraph are *not* entries:

- the *preamble* before a file's first heading, when the file has headings: that prose is the
  file's header (a title written as text, a note on how it loads, the template's cap header when it
  is written as prose), never a memory to archive or merge. A file with no heading at all is all
  memory, so there every paragraph is an entry. (``§`` blocks are entries wherever they are.)
- a paragraph (or the part of a ``§`` paragraph before its first ``§``) with no letter or digit:
  a rule drawn in box characters (``══════``) says nothing.

The template's header is a heading and a blockquote, and its identity lines are list items in the
section the levers protect by name (``curator.levers.merge.IDENTITY_SECTION``): neither changes here.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property

from curator import markdown, reparse
from curator.markdown import Link

BOM = b"\xef\xbb\xbf"
LIST_MARKER = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
SECTION_SIGN = "§"  # alone on a line, it separates the entries of a Hermes memory file
_WORD = re.compile(r"\w")


@dataclass(frozen=True)
class Line:
    raw: bytes  # exactly as on disk, line ending included
    offset: int  # byte offset of the line's first byte
    number: int  # 1-based
    text: str  # decoded (invalid bytes replaced), without line ending or BOM

    @property
    def is_blank(self) -> bool:
        return not self.text.strip()


@dataclass(frozen=True)
class Entry:
    """One index entry. ``id`` is stable within a file version and across edits elsewhere."""

    id: str
    section: str  # text of the nearest heading above ('' before any heading)
    line: int  # 1-based first line
    end_line: int  # 1-based last line (inclusive)
    offset: int  # byte offset of the first byte
    nbytes: int  # bytes on disk, line endings included
    text: str  # the entry's lines, verbatim (marker included), joined with '\n'
    pointers: tuple[Link, ...] = ()
    kind: str = "item"  # "item" | "row" | "paragraph" | "hermes" (see the module's docstring)

    @property
    def end_offset(self) -> int:
        return self.offset + self.nbytes

    @property
    def body(self) -> str:
        """The text without the list marker of its first line."""
        first, _, rest = self.text.partition("\n")
        first = LIST_MARKER.sub("", first, count=1)
        return first + ("\n" + rest if rest else "")

    @property
    def lines(self) -> int:
        return self.end_line - self.line + 1


@dataclass(frozen=True)
class Section:
    heading: str  # '' for the preamble before the first heading
    level: int  # 0 for the preamble
    line: int  # 1-based heading line (1 for the preamble)
    start: int  # 0-based first line index (the heading line)
    end: int  # 0-based exclusive
    entry_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Block:
    """A top-level block that is not an entry: heading, blockquote, paragraph, code, table, …"""

    kind: str
    start: int  # 0-based line index
    end: int  # 0-based exclusive


@dataclass
class HotIndex:
    raw: bytes
    lines: tuple[Line, ...]
    entries: tuple[Entry, ...]
    sections: tuple[Section, ...]
    blocks: tuple[Block, ...]
    links: tuple[Link, ...]
    headings: tuple[tuple[int, str, int], ...]  # (level, text, line)
    decode_error_offsets: tuple[int, ...] = field(default=())
    front_matter: str | None = None  # the YAML text of a front-matter block at the top, if any

    # -- sizes ---------------------------------------------------------------------------------
    @property
    def nbytes(self) -> int:
        """What ``wc -c`` prints."""
        return len(self.raw)

    @property
    def newline_count(self) -> int:
        """What ``wc -l`` prints."""
        return self.raw.count(b"\n")

    @property
    def line_count(self) -> int:
        return len(self.lines)

    @property
    def has_bom(self) -> bool:
        return self.raw.startswith(BOM)

    @property
    def is_utf8(self) -> bool:
        return not self.decode_error_offsets

    @cached_property
    def newline(self) -> bytes:
        """The file's dominant line ending, for text a lever inserts."""
        crlf = self.raw.count(b"\r\n")
        return b"\r\n" if crlf and crlf * 2 >= self.raw.count(b"\n") else b"\n"

    # -- access --------------------------------------------------------------------------------
    def render(self) -> bytes:
        return b"".join(line.raw for line in self.lines)

    @cached_property
    def _by_id(self) -> dict[str, Entry]:
        return {entry.id: entry for entry in self.entries}

    def entry(self, entry_id: str) -> Entry:
        try:
            return self._by_id[entry_id]
        except KeyError:
            raise KeyError(f"no entry with id {entry_id!r}") from None

    def has_entry(self, entry_id: str) -> bool:
        return entry_id in self._by_id

    def entry_bytes(self, entry: Entry) -> bytes:
        return self.raw[entry.offset : entry.end_offset]

    def section_named(self, heading: str) -> Section | None:
        for section in self.sections:
            if section.heading == heading:
                return section
        return None

    def splice(self, edits: list[tuple[int, int, bytes]]) -> bytes:
        """New file bytes with byte ranges ``[start, end)`` replaced; ranges must not overlap."""
        out, cursor = [], 0
        for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
            if start < cursor:
                raise ValueError("overlapping edits")
            out.append(self.raw[cursor:start])
            out.append(replacement)
            cursor = end
        out.append(self.raw[cursor:])
        return b"".join(out)


def split_lines(raw: bytes) -> tuple[tuple[Line, ...], tuple[int, ...]]:
    """Lines with their endings, decoded for analysis; plus byte offsets of invalid UTF-8."""
    lines, errors, offset = [], [], 0
    for number, chunk in enumerate(raw.splitlines(keepends=True), start=1):
        body = chunk.rstrip(b"\r\n")
        if number == 1 and body.startswith(BOM):
            body = body[len(BOM) :]
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as err:
            errors.append(offset + (len(BOM) if number == 1 and chunk.startswith(BOM) else 0) + err.start)
            text = body.decode("utf-8", errors="replace")
        lines.append(Line(chunk, offset, number, text))
        offset += len(chunk)
    return tuple(lines), tuple(errors)


def entry_id(section: str, body: str, seen: dict[str, int]) -> str:
    """Six hex digits of the entry's section and whitespace-normalised text; '-2', '-3' on repeats."""
    key = section + "\0" + " ".join(body.split())
    base = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:6]
    count = seen.get(base, 0) + 1
    seen[base] = count
    return base if count == 1 else f"{base}-{count}"


def is_section_sign(line: Line) -> bool:
    return line.text.strip() == SECTION_SIGN


def paragraph_entries(lines: tuple[Line, ...], start: int, end: int, *, preamble: bool) -> list[tuple[int, int, str]]:
    """The entries of the top-level paragraph on lines [start, end): its ``§`` blocks if a line of
    it is a lone ``§``, else the paragraph itself (unless it is preamble); none that say nothing."""
    end = min(end, len(lines))
    signs = [i for i in range(start, end) if is_section_sign(lines[i])]
    if not signs:
        said = any(_WORD.search(lines[i].text) for i in range(start, end))
        return [(start, end, "paragraph")] if said and not preamble else []
    out = []
    for first, stop in zip([start] + [i + 1 for i in signs], signs + [end]):
        if first < stop and any(_WORD.search(lines[i].text) for i in range(first, stop)):
            out.append((first, stop, "hermes"))
    return out


def parse_index(raw: bytes) -> HotIndex:
    lines, errors = split_lines(raw)
    text = "\n".join(line.text for line in lines) + ("\n" if lines else "")
    tokens = reparse.parse(text)  # derived from the last parse when an edit allows
    links = tuple(markdown.links_in_tokens(tokens))
    headings = tuple(markdown.headings_in_tokens(tokens))

    blocks: list[Block] = []
    items: list[tuple[int, int, str]] = []  # 0-based [start, end) of every entry, in file order
    first_heading = min((line - 1 for _level, _title, line in headings), default=None)
    in_body = False
    for token in tokens:
        if token.type in ("tbody_open", "tbody_close") and token.level == 1:
            in_body = token.type == "tbody_open"
        if token.level != 0 or token.nesting == -1 or not token.map:
            if token.type == "list_item_open" and token.level == 1 and token.map:
                items.append((token.map[0], token.map[1], "item"))
            elif token.type == "tr_open" and token.level == 2 and in_body and token.map:
                items.append((token.map[0], token.map[1], "row"))
            continue
        start, end = token.map
        kind = {
            "heading_open": "heading",
            "bullet_list_open": "list",
            "ordered_list_open": "list",
            "blockquote_open": "blockquote",
            "paragraph_open": "paragraph",
            "fence": "code",
            "code_block": "code",
            "html_block": "html",
            "hr": "rule",
            "table_open": "table",
        }.get(token.type, token.type)
        if kind != "list":
            blocks.append(Block(kind, start, end))
        if kind == "paragraph":
            items += paragraph_entries(lines, start, end, preamble=first_heading is not None and start < first_heading)

    heading_at = {line - 1: (level, title) for level, title, line in headings}
    # Sections: the preamble, then one per heading.
    starts = sorted(heading_at)
    bounds = [(0, starts[0] if starts else len(lines), 0, "")] if (not starts or starts[0] > 0) else []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        level, title = heading_at[start]
        bounds.append((start, end, level, title))

    bound_starts = [start for start, _end, _level, _heading in bounds]

    def section_of(line_index: int) -> str:
        # By bisection: a pass over every section per entry is quadratic on a large index.
        at = bisect.bisect_right(bound_starts, line_index) - 1
        return bounds[at][3] if at >= 0 else ""

    links_by_line: dict[int, list[Link]] = {}
    for link in links:
        links_by_line.setdefault(link.line, []).append(link)

    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for start, end, kind in items:
        end = min(end, len(lines))
        while end > start + 1 and lines[end - 1].is_blank:
            end -= 1
        span = lines[start:end]
        entry_text = "\n".join(line.text for line in span)
        section = section_of(start)
        first = LIST_MARKER.sub("", entry_text.partition("\n")[0], count=1)
        body = first + entry_text[len(entry_text.partition("\n")[0]) :]
        pointers = tuple(link for n in range(start + 1, end + 1) for link in links_by_line.get(n, ()))
        entries.append(
            Entry(
                id=entry_id(section, body, seen),
                section=section,
                line=start + 1,
                end_line=end,
                offset=span[0].offset,
                nbytes=sum(len(line.raw) for line in span),
                text=entry_text,
                pointers=pointers,
                kind=kind,
            )
        )

    ids_by_bound: list[list[str]] = [[] for _ in bounds]
    for entry in entries:  # each entry into the section its first line falls in, in file order
        at = bisect.bisect_right(bound_starts, entry.line - 1) - 1
        if at >= 0 and entry.line <= bounds[at][1]:
            ids_by_bound[at].append(entry.id)
    sections = tuple(
        Section(
            heading=heading,
            level=level,
            line=start + 1,
            start=start,
            end=end,
            entry_ids=tuple(ids_by_bound[at]),
        )
        for at, (start, end, level, heading) in enumerate(bounds)
    )
    front_matter = tokens[0].content if tokens and tokens[0].type == "front_matter" else None
    return HotIndex(raw, lines, tuple(entries), sections, tuple(blocks), links, headings, errors, front_matter)
