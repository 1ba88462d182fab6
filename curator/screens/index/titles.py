"""The index screen's words: its title (what this seat is, whose, where) and its status line."""

from __future__ import annotations

import os
from pathlib import Path

from curator.constants import INDEX_NAME


def status_text(message: str, memory_dir: Path) -> str:
    """``message`` for the one-line status: files of the seat by name and the seat's directory,
    shortened, at the end. A full path first filled 80 columns before the line said what happened."""
    where = str(memory_dir)
    if where not in message:
        return message
    message = message.replace(where + os.sep, "").replace(where, memory_dir.name)
    parts = memory_dir.parts
    short = os.sep.join(parts[-2:]) if len(parts) > 2 else where
    return f"{message} · in …{os.sep}{short}" if short != where else f"{message} · in {where}"
def is_claude_memory(memory_dir: Path) -> bool:
    """A Claude Code auto memory: ``<config>/projects/<project key>/memory`` (the layout Claude Code
    keeps), or what ``autoMemoryDirectory`` names for this project (``curator.locate``)."""
    parts = memory_dir.absolute().parts
    if len(parts) >= 3 and parts[-1] == "memory" and parts[-3] == "projects" and parts[-2].startswith("-"):
        return True
    try:
        from curator.locate import locate_memory_dir

        located = locate_memory_dir()
    except Exception:  # no Claude memory here, or unreadable settings: not one
        return False
    return "Claude Code" in located.how and located.memory_dir.absolute() == memory_dir.absolute()


def claude_project(memory_dir: Path) -> str:
    """The project a Claude Code memory belongs to, as Claude Code spells its key (``-work-app`` →
    ``…/work/app``): the last two parts, readable."""
    key = memory_dir.absolute().parent.name
    words = [w for w in key.split("-") if w]
    return "/".join(words[-2:]) if words else key


def title_words(memory_dir: Path, resident_id: str | None, *, kind: str = "", claude: bool = False) -> str:
    """``[kind · ]who · MEMORY.md · in <dir>``; a Claude Code memory says so, and whose (the fleet's
    resident, else the project Claude Code keeps it for)."""
    if claude:
        whose = f"Claude Code memory of {resident_id or claude_project(memory_dir)}"
        return f"{kind + ' · ' if kind else ''}{whose} · {INDEX_NAME} · in {memory_dir}"
    who = " · ".join(part for part in (kind, resident_id) if part)
    return f"{who + ' · ' if who else ''}{INDEX_NAME} · in {memory_dir}"
