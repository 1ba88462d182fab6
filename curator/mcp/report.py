"""What a tool tells the agent about the hot index: one meter line, entry labels with id, line and
title, and the pointer problems a write created. Short text a model can act on."""

from __future__ import annotations

import re
from pathlib import Path
from collections.abc import Mapping

from curator.analysis import parse_cached
from curator.index_model import Entry, HotIndex
from curator.levers.merge import new_problems
from curator.load_sim import simulate
from curator.meter import Limits, claude_code_budget, measure
from curator.pointers import PointerReport, check_pointers

HARNESS_PROFILES = ("claude-code", "kimi-code", "opencode")
TITLE_WIDTH = 60
_LEAD_LINK = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*\[([^\]]+)\]\(")


def title(entry: Entry) -> str:
    """An entry's title: the text of the link it opens with (`- [Title](file.md) — hook`), else its
    first words."""
    first = entry.text.split("\n", 1)[0]
    found = _LEAD_LINK.match(first)
    text = found.group(1) if found else " ".join(entry.body.split())
    return text if len(text) <= TITLE_WIDTH else text[: TITLE_WIDTH - 1] + "…"


def label(entry: Entry) -> str:
    """``e3f2a1 (line 12) "Title"``: what the agent passes back (the id) and what it sees (line, title)."""
    return f'{entry.id} (line {entry.line}) "{title(entry)}"'


def drops(index: HotIndex, limits: Limits, identity: bytes | None) -> str:
    """What each harness would leave out of this index, in one clause."""
    parts = []
    for profile in HARNESS_PROFILES:
        load = simulate(index, identity, profile, limits)
        if load.cut_line is None:
            parts.append(f"{profile} loads all")
        else:
            parts.append(f"{profile} drops lines {load.cut_line + 1}-{index.line_count} "
                         f"({len(load.lost_entries)} entr{'y' if len(load.lost_entries) == 1 else 'ies'})")
    return "; ".join(parts)


def meter_line(raw: bytes, limits: Limits, identity: bytes | None = None) -> str:
    """One line: MEMORY.md's bytes against the target and the read limit, what Claude Code counts
    (it strips frontmatter and comment blocks first), and what each harness would drop."""
    meter = measure(raw, limits)
    zone = {"ok": "under target", "over-target": "OVER TARGET", "over-limit": "PAST THE READ LIMIT"}[meter.zone]
    claude = claude_code_budget(raw)
    return (f"meter: MEMORY.md {meter.bytes:,} B, {meter.lines} lines, {zone} (target {meter.target:,} B, "
            f"read limit {meter.read_limit:,} B; Claude Code loads {claude.lines} lines, {claude.chars:,} "
            f"characters); {drops(parse_cached(raw), limits, identity)}")


def pointer_report(memory_dir: Path, index_raw: bytes,
                   overrides: Mapping[str, bytes | None] | None = None) -> PointerReport:
    """The pointer graph with MEMORY.md as ``index_raw`` (parsed once, shared with the meter)."""
    return check_pointers(memory_dir, overrides=overrides, parsed_index=parse_cached(index_raw))


def created_problems(before: PointerReport, after: PointerReport) -> list[str]:
    """One line per pointer problem the write created (orphaned detail files, dangling targets)."""
    orphans, dangling = new_problems(before, after)
    return ([f"pointer problem: {name} is not linked from MEMORY.md (an orphan: link it from an index line)" for name in orphans]
            + [f"pointer problem: a link to {target} now points nowhere" for target in dangling])
