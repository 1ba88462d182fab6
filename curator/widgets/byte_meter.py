"""The byte meter: bytes against the target and the read limit, both marked, past 100 % too.

``ProgressBar`` clamps at 100 %, so it cannot show an index over its read limit; this widget draws its
own bar. The scale runs a little past the read limit (or past the bytes, when larger) so both markers
and any overflow stay visible. Colour is never alone: the zone is also written as a word.
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from curator.meter import HarnessBudget, Meter
from curator.widgets.verbatim import verbatim

ZONE_WORDS = {"ok": "OK", "over-target": "OVER TARGET", "over-limit": "OVER READ LIMIT"}
ZONE_STYLES = {"ok": "$success", "over-target": "$warning", "over-limit": "$error"}


def bar(reading: Meter, width: int) -> Content:
    """One line: the filled bar coloured by zone, markers at the target (┊) and the read limit (┃)."""
    width = max(width, 10)
    scale = max(reading.read_limit * 1.15, reading.bytes * 1.02, 1)
    def col(nbytes: float) -> int:
        return min(width - 1, int(nbytes / scale * width))

    filled = min(width, round(reading.bytes / scale * width))
    target_col, limit_col = col(reading.target), col(reading.read_limit)
    parts: list[tuple[str, str]] = []
    for x in range(width):
        if x == target_col:
            char, style = "┊", "bold $foreground"
        elif x == limit_col:
            char, style = "┃", "bold $foreground"
        elif x < filled:
            zone = "ok" if x < target_col else "over-target" if x < limit_col else "over-limit"
            char, style = "█", ZONE_STYLES[zone]
        else:
            char, style = "░", "$foreground-darken-3"
        if parts and parts[-1][1] == style:
            parts[-1] = (parts[-1][0] + char, style)
        else:
            parts.append((char, style))
    return Content.assemble(*parts)


def words(reading: Meter, line_cap: int | None = None, profile: str = "", width: int = 120) -> Content:
    """One line of words: bytes, both limits, the zone, headroom, and lines against a line cap
    (shorter labels when the terminal is narrow, so the zone and headroom stay in view). A reading of
    what a harness loads (a Claude Code seat) says so, with the bytes on disk beside it."""
    zone = (f" {ZONE_WORDS.get(reading.zone, reading.zone.upper())} ",
            f"bold reverse {ZONE_STYLES.get(reading.zone, '$foreground')}")
    headroom = reading.headroom_target
    if reading.zone == "over-limit":  # past the read limit, what matters is how far past it
        room = f"{-reading.headroom_read_limit:,} B over the read limit"
    else:
        room = f"{headroom:,} B headroom" if headroom >= 0 else f"{-headroom:,} B over target"
    short_room = room.replace(" headroom", " left").replace(" over target", " over").replace(" the read limit", " limit")
    if reading.on_disk is not None:
        return loaded_words(reading, zone, room, short_room, width)
    lines = f"{reading.lines:,} lines"
    if line_cap:
        over = " OVER" if reading.lines > line_cap else ""
        lines = f"{reading.lines:,}/{line_cap:,} lines{over}" + (f" ({profile} cap)" if profile else "")
    if width < 100:
        room = short_room
        lines = lines.replace(" lines", " ln").replace(" cap)", ")")
        limits = f" ┊{reading.target:,} ┃{reading.read_limit:,} "
    else:
        limits = f"  target ┊ {reading.target:,}  read limit ┃ {reading.read_limit:,}  "
    return Content.assemble((f"{reading.bytes:,} B", "bold"), limits, zone, f"  {room} · {lines}")


def loaded_words(reading: Meter, zone: tuple[str, str], room: str, short_room: str, width: int) -> Content:
    """The words of a reading of what a harness loads: those bytes first, the bytes on disk beside
    them, the zone and the headroom, in the longest wording that fits ``width`` (the limits by their
    markers alone, or not at all: the bar marks them). The lines are the harness's budget line's."""
    target, limit = f"{reading.target:,}", f"{reading.read_limit:,}"
    forms = [(f" loaded by {reading.loaded_by}", f"  ┊ {target}  ┃ {limit}  ", room),
             (" loaded", f" ┊{target} ┃{limit} ", short_room),
             (" loaded", "  ", short_room)]
    for label, limits, said in forms:
        line = Content.assemble((f"{reading.bytes:,} B", "bold"), (label, "bold"), f" · {reading.on_disk:,} B on disk",
                                limits, zone, f"  {said}")
        if line.cell_length <= width:
            break
    return line


def budget_line(budget: HarnessBudget) -> Content:
    """The harness's own budget under the byte words (a Claude Code seat: 200 lines / 25,000 chars);
    bytes stay the main measure, this says what that harness itself loads."""
    style = "bold $error" if budget.over else "$text-muted"
    return verbatim(budget.describe(), style)


class ByteMeter(Widget):
    """Two lines: the bar, then the words; a third with the harness's own budget when ``budget`` is
    set. Set ``reading`` (a core ``Meter``) and ``budget`` on every keystroke; rendering is cheap."""

    DEFAULT_CSS = """
    ByteMeter { height: 2; width: 1fr; }
    """

    reading: reactive[Meter | None] = reactive(None)
    line_cap: reactive[int | None] = reactive(None)
    profile: reactive[str] = reactive("")
    budget: reactive[HarnessBudget | None] = reactive(None)

    def watch_budget(self, old: HarnessBudget | None, new: HarnessBudget | None) -> None:
        if (old is None) != (new is None):  # only when the line comes or goes, not per keystroke
            self.styles.height = 2 if new is None else 3

    def render(self) -> Content:
        if self.reading is None:
            return Content("measuring…")
        width = self.content_size.width or 40
        lines = [bar(self.reading, width), words(self.reading, self.line_cap, self.profile, width)]
        if self.budget is not None:
            lines.append(budget_line(self.budget))
        return Content("\n").join(lines)


def mini_meter(reading: Meter | None, width: int = 8) -> Content:
    """A one-cell meter for tables: a short bar against the read limit, then bytes and the zone word."""
    if reading is None:
        return verbatim("no index yet", "dim")
    filled = min(width, round(reading.bytes / reading.read_limit * width))
    style = ZONE_STYLES.get(reading.zone, "")
    word = {"ok": "OK", "over-target": "OVER", "over-limit": "LIMIT"}.get(reading.zone, reading.zone)
    return Content.assemble(
        ("█" * filled, style), ("░" * (width - filled), "$foreground-darken-3"),
        f" {reading.bytes / 1000:5.1f}k ", (word, f"bold {style}"),
    )
