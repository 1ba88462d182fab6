"""The ``· archived`` stamp on an archived entry's first line: writing it, reading either of its forms."""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date

from curator.index_model import BOM, HotIndex, entry_id
from curator.levers.archive_layout import heading_end, section_end
from curator.levers.placement import SPACED, Cut, lines_between
from curator.levers.text import entry_start

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


def new_stamp(today: date, after: str | None, before: str | None, dropped: tuple[str | None] | None,
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


def cut_record(index: HotIndex, cut: Cut | None, after: str | None, before: str | None,
                going: Collection[str] = ()) -> str:
    """``gap_after:gap_before:AB`` for a paragraph or § block: the lines between the entry before it
    (or its heading) and its cut, between its cut and the entry after it (or the end of its
    section), and the separator lines the cut took above and below it ('b' blank, '§', '-' none,
    ``x`` and hex for other bytes), so restore puts the same bytes back at the same place.
    ``going``: the ids archived with it (a neighbour among them may not be back first)."""
    if cut is None:
        return ""
    heading = heading_end(index, cut.entry)
    if after:
        gap_after = lines_between(index, index.entry(after).end_offset, cut.start)
    else:  # it came first in its section: count from the heading (from the top, above every heading)
        top = len(BOM) if index.has_bom else 0  # the first line begins after the file's BOM
        gap_after = lines_between(index, heading if heading is not None else top, cut.start)
    later = entry_start(index, index.entry(before)) if before else section_end(index, cut.entry.section)
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
