"""Where an entry's bytes begin and end when a lever takes it out of a file, and what parts it from
its neighbours when a lever puts it into one, so both files keep the blocks they had.

A list item or a table row is its own lines. A paragraph glued to another block changes that
block (under a list item it becomes the item's lazy continuation; against another paragraph, the
two are one), so taken out it takes one blank line with it (the one after it, else the one before
it when only a heading or the end of the file follows), and put in where nothing records its place it gets a blank line on each side that touches
another block (and before a heading below it). A ``§`` block of a Hermes file takes one ``§`` line
(the one before it, or after it for the first block) and gets one back on the side where another
block is. A ``Cut`` says which separator lines went, so a caller that records it (archive's stamp)
can put the same bytes back at the same place. At the end of a file without a final line ending,
the line ending before the entry goes with it, and an entry put there gets one before it and none
after: the file still ends the way it did.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from curator.index_model import BOM, SECTION_SIGN, Entry, HotIndex, is_section_sign

SPACED = ("paragraph", "hermes")  # kinds that a blank line must part from other blocks
END_OF_FILE = "$"  # a cut's ``below`` when it took the line ending before the file's unended last line


def _ending(raw: bytes) -> bytes:
    """The line ending ``raw`` ends with (one, not the blank lines before it)."""
    if raw.endswith(b"\r\n"):
        return b"\r\n"
    return raw[-1:] if raw.endswith((b"\n", b"\r")) else b""


def line_kinds(index: HotIndex) -> list[str]:
    """What each line is, for placing: an entry kind, 'blank', 'heading', 'sign' (a lone ``§``),
    or 'other' (any other block: a quote, code, a table head, …)."""
    kinds = ["blank" if line.is_blank else "other" for line in index.lines]
    for _level, _text, number in index.headings:
        kinds[number - 1] = "heading"
    for i, line in enumerate(index.lines):
        if kinds[i] == "other" and is_section_sign(line):
            kinds[i] = "sign"
    for entry in index.entries:
        for i in range(entry.line - 1, entry.end_line):
            kinds[i] = entry.kind
    return kinds


def needs_blank(above: str | None, below: str | None) -> bool:
    """A blank line must part a block of kind ``above`` from one of kind ``below`` below it."""
    if above in (None, "blank", "heading") or below in (None, "blank", "heading"):
        return False
    if above in SPACED or below in SPACED:  # a paragraph runs into whatever touches it
        return not {above, below} <= {"hermes", "sign"}
    return {above, below} == {"item", "row"}  # a row under an item is its lazy line, and back


@dataclass(frozen=True)
class Cut:
    """What removing one entry takes: bytes [start, end), and the separator lines in it beside the
    entry ('' none, 'b' a blank line, '§' a lone § line), above and below it. ``below`` is
    ``END_OF_FILE`` when the entry ended a file without a final line ending: the cut then took the
    line ending before it instead."""

    entry: Entry
    start: int
    end: int
    above: str = ""
    below: str = ""
    above_raw: bytes = b""  # the separator lines' own bytes (a blank line may hold spaces)
    below_raw: bytes = b""

    def marks(self, newline: bytes) -> tuple[str, str]:
        """(above, below) as a stamp writes them: '-' none, 'b', '§', ``END_OF_FILE``, or, for a
        separator line that is not exactly a bare blank or ``§`` line, ``x`` and its bytes in hex."""
        def mark(kind: str, raw: bytes) -> str:
            if kind == END_OF_FILE or not raw:
                return kind or "-"
            standard = [k for k, line in _SEPARATOR_LINE.items() if raw == line(newline)]
            return standard[0] if standard else "x" + raw.hex().upper()
        return mark(self.above, self.above_raw), mark(self.below, self.below_raw)


def removal_cuts(index: HotIndex, entries: list[Entry]) -> list[Cut]:
    """One cut per entry, in file order (the file's BOM stays; two cuts never take one separator)."""
    kinds = line_kinds(index)
    lines, n = index.lines, len(index.lines)
    floor = len(BOM) if index.has_bom else 0
    claimed: set[int] = set()  # separator lines already taken by an earlier entry
    cuts = []
    for entry in sorted(entries, key=lambda e: e.offset):
        first, last = entry.line - 1, entry.end_line - 1  # 0-based
        above = below = ""
        above_raw = below_raw = b""
        if entry.kind in SPACED:
            sep, mark = ("sign", SECTION_SIGN) if entry.kind == "hermes" else ("blank", "b")
            # A § block takes the § line before it (after it, for the first block); a paragraph
            # the blank line after it (else the one before it, if nothing but a heading follows).
            order = ("above", "below") if entry.kind == "hermes" else ("below", "above")
            for side in order:
                i = first - 1 if side == "above" else last + 1
                if side == "above" and entry.kind == "paragraph" and last + 1 < n and kinds[last + 1] != "heading":
                    continue  # a block glued below it would then touch the block above it
                if i == n - 1 and not _ending(lines[i].raw):
                    continue  # an unended last line stays the file's last line
                if 0 <= i < n and kinds[i] == sep and i not in claimed:
                    claimed.add(i)
                    raw = lines[i].raw[len(BOM) if i == 0 and index.has_bom else 0 :]
                    if side == "above":
                        first, above, above_raw = i, mark, raw
                    else:
                        last, below, below_raw = i, mark, raw
                    break
        start = max(lines[first].offset, floor)
        end = lines[last].offset + len(lines[last].raw)
        if end == len(index.raw) and not _ending(index.raw):
            start -= len(_ending(index.raw[floor:start]))  # the file keeps ending without a line ending
            below = END_OF_FILE
        cuts.append(Cut(entry, start, end, above, below, above_raw, below_raw))
    return _closing_gaps(index, kinds, cuts)


def _closing_gaps(index: HotIndex, kinds: list[str], cuts: list[Cut]) -> list[Cut]:
    """Cuts that leave the layout as if their entries had never been there. A *run* is cuts with
    nothing but blank lines between them; the blank lines between go with the upper cut, and where
    the run has blank lines both above and below it, one of those two goes too, so one is left
    between its neighbours, not both. Restored one by one, in file order or the other way round,
    each entry must come back without touching a block it would glue to (an item over a paragraph
    becomes its lazy line): so the last cut takes the blank lines below the run unless an entry of
    the run glues to the block below them; else the first takes the ones above unless one glues to
    the block above; else both stay (and so do the lines between, if the run touches that block)."""
    floor = len(BOM) if index.has_bom else 0
    starts = {line.offset: i for i, line in enumerate(index.lines)}
    starts[floor] = 0
    ends = {line.offset + len(line.raw): i for i, line in enumerate(index.lines)}
    n_lines, out = len(kinds), list(cuts)

    def blank_between(upper: Cut, lower: Cut) -> bool:
        if lower.start <= upper.end:
            return True
        first, last = starts.get(upper.end), starts.get(lower.start)
        return first is not None and last is not None and all(kinds[i] == "blank" for i in range(first, last))

    runs: list[list[int]] = []
    for n in range(len(cuts)):
        if runs and blank_between(cuts[runs[-1][-1]], cuts[n]):
            runs[-1].append(n)
        else:
            runs.append([n])
    for run in runs:
        head, tail = cuts[run[0]], cuts[run[-1]]
        if tail.below == END_OF_FILE and len(run) > 1:
            continue  # a run that ends an unended file keeps its cuts as they are
        top, bottom = ends.get(head.start), starts.get(tail.end)
        up = top + 1 if top is not None else 0  # the first blank line above the run (none: up > top)
        while top is not None and up > 0 and kinds[up - 1] == "blank":
            up -= 1
        down = bottom - 1 if bottom is not None else n_lines - 1  # the last blank line below it
        while bottom is not None and down + 1 < n_lines and kinds[down + 1] == "blank":
            down += 1
        if down == n_lines - 1 and down >= 0 and not _ending(index.lines[down].raw):
            down -= 1  # an unended last line stays the file's last line
        members = {out[n].entry.kind for n in run}
        above = kinds[up - 1] if top is not None and up > 0 else None
        below = kinds[down + 1] if bottom is not None and down + 1 < n_lines else None
        has_above = top is not None and up <= top
        has_below = bottom is not None and down >= bottom
        if not has_above and any(needs_blank(above, kind) for kind in members):
            continue  # restored last-first, an entry would land against the block above
        for upper, lower in zip(run, run[1:]):
            cut, next_start = out[upper], cuts[lower].start
            if cut.end < next_start:
                out[upper] = replace(cut, end=next_start, below=cut.below or "b",
                                     below_raw=cut.below_raw + index.raw[cut.end:next_start])
        if not (has_above and has_below):
            continue
        if not any(needs_blank(kind, below) for kind in members):
            cut = out[run[-1]]
            end = index.lines[down].offset + len(index.lines[down].raw)
            out[run[-1]] = replace(cut, end=end, below=cut.below or "b", below_raw=cut.below_raw + index.raw[cut.end:end])
        elif not any(needs_blank(above, kind) for kind in members):
            cut = out[run[0]]
            begin = max(index.lines[up].offset, floor)
            out[run[0]] = replace(cut, start=begin, above=cut.above or "b",
                                  above_raw=index.raw[begin:cut.start] + cut.above_raw)
    return out


def removal_spans(index: HotIndex, entries: list[Entry]) -> list[tuple[int, int]]:
    """The byte ranges that removing ``entries`` takes (sorted, disjoint; the file's BOM stays)."""
    merged: list[tuple[int, int]] = []
    for cut in removal_cuts(index, entries):
        if merged and cut.start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(cut.end, merged[-1][1]))
        else:
            merged.append((cut.start, cut.end))
    return merged


def lines_between(index: HotIndex, start: int, end: int) -> int:
    """How many lines begin in [start, end) (the first one after the file's BOM)."""
    floor = len(BOM) if index.has_bom else 0
    return sum(1 for line in index.lines if start <= max(line.offset, floor) < end)


_SEPARATOR_LINE = {"b": lambda newline: newline, SECTION_SIGN: lambda newline: SECTION_SIGN.encode() + newline}


def with_separators(newline: bytes, above: str, below: str, data: bytes) -> bytes:
    """An entry's bytes with the separator lines its cut took, as they were (``Cut.marks``)."""
    def line(mark: str) -> bytes:
        if mark in ("", "-", END_OF_FILE):
            return b""
        return bytes.fromhex(mark[1:]) if mark.startswith("x") else _SEPARATOR_LINE[mark](newline)
    return line(above) + data + line(below)


def skip_lines(index: HotIndex, at: int, count: int, *, back: bool = False) -> int:
    """``at`` moved over up to ``count`` lines below it (above it: ``back``) that belong to no entry
    and are no heading: the blank lines, ``§`` lines and other blocks that sat between."""
    kinds = {line.offset: k for line, k in zip(index.lines, line_kinds(index))}
    by_start = {line.offset: line for line in index.lines}
    by_end = {line.offset + len(line.raw): line for line in index.lines}
    floor = len(BOM) if index.has_bom else 0
    if index.has_bom and index.lines:
        by_start[len(BOM)] = index.lines[0]  # the first line begins after the file's BOM
    for _ in range(count):
        line = by_end.get(at) if back else by_start.get(at)
        if line is None or kinds[line.offset] not in ("blank", "sign", "other"):
            break
        at = max(line.offset, floor) if back else line.offset + len(line.raw)
    return at


def removal_span(index: HotIndex, entry: Entry) -> tuple[int, int]:
    (cut,) = removal_cuts(index, [entry])
    return cut.start, cut.end


def kinds_around(index: HotIndex, kinds: list[str], at: int) -> tuple[str | None, str | None]:
    """The kinds of the line that ends at byte ``at`` and of the line that starts there."""
    above = below = None
    for i, line in enumerate(index.lines):
        if line.offset + len(line.raw) == at:
            above = kinds[i]
        elif line.offset == at or (i == 0 and at == len(BOM) and index.has_bom):
            below = kinds[i]
            break
        elif line.offset > at:
            break
    return above, below


def parting(newline: bytes, above: str | None, below: str | None, kind: str) -> tuple[bytes, bytes]:
    """(lead, trail): what must part an entry of ``kind`` from a block of kind ``above`` and one of
    kind ``below`` (None: none there)."""
    sign = SECTION_SIGN.encode() + newline
    if kind == "row":  # a row is only ever put beside rows of its table, or with the table's head
        return b"", b""
    if kind == "hermes":
        if above == "hermes":
            return sign, b""
        if below == "hermes":
            return b"", sign
        return (newline if needs_blank(above, kind) else b"") + sign, newline if needs_blank(kind, below) else b""
    # The usual layout, which a removal leaves: a blank line between a paragraph and the heading
    # after it, and between a heading and a paragraph put after the blank line under it.
    under_heading = kind == "paragraph" and (above, below) == ("heading", "blank")
    lead = newline if needs_blank(above, kind) or under_heading else b""
    return lead, newline if needs_blank(kind, below) or (kind == "paragraph" and below == "heading") else b""


def separated(newline: bytes, above: str | None, below: str | None, kind: str, data: bytes) -> bytes:
    """``data`` (an entry's lines, ending in a line ending) with what parts it from its neighbours."""
    lead, trail = parting(newline, above, below, kind)
    return lead + data + trail


def placed(index: HotIndex, at: int, kind: str, data: bytes, *, as_cut: bool = False,
           ended_file: bool = False, newline: bytes | None = None) -> bytes:
    """The bytes that put ``data`` (an entry of ``kind``) at the line boundary ``at`` of ``index``,
    with what parts it from its neighbours there (``as_cut``: ``data`` already carries the
    separators its cut took, so it goes back as it was). At the end of a file without a final line
    ending, or of any file when ``ended_file`` (its cut took the line ending before it: the blank
    line left last may end in one), it goes back as the file's unended last line. ``newline``: the
    line ending to write (default: the file's own)."""
    newline = newline or index.newline
    above, below = kinds_around(index, line_kinds(index), at)
    floor = len(BOM) if index.has_bom else 0
    at_end = at == len(index.raw) and (ended_file or (at > floor and not _ending(index.raw)))
    out = data if as_cut else separated(newline, above, None if at_end else below, kind, data)
    if at_end:  # at the end of a file without a final line ending: one before the entry, none after
        return (newline if at > floor else b"") + out[: len(out) - len(_ending(out))]
    return out
