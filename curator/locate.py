"""Which memory directory a command without one means: ``./memory`` when it holds a MEMORY.md, else
the Claude Code auto memory of this project, found where Claude Code keeps it:

1. ``autoMemoryDirectory`` in the user's Claude settings (``$CLAUDE_CONFIG_DIR/settings.json``,
   default ``~/.claude/settings.json``);
2. ``<config dir>/projects/<project path with every / replaced by ->/memory/``, and the same key with
   every other non-alphanumeric character replaced too (how Claude Code spells paths holding dots
   or underscores). The project is the git root above the working directory (Claude Code keys a
   project's memory by its git root, so any subdirectory finds it), else the working directory.

The answer says which one it is, so the app and ``check`` can tell the user what they opened; when
nothing is there, the error lists every place looked at.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from curator.errors import InputError, NoMemoryFoundError

LOCAL_DIR = Path("memory")


@dataclass(frozen=True)
class Located:
    memory_dir: Path
    how: str  # one line for the user: which memory this is and why it was chosen


def claude_config_dir(env: Mapping[str, str]) -> Path:
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path(env.get("HOME") or Path.home()) / ".claude"


def project_keys(project: Path) -> list[str]:
    """Claude Code's directory names for ``project`` under ``projects/``, most literal first."""
    text = str(project)
    return list(dict.fromkeys((text.replace("/", "-"), re.sub(r"[^A-Za-z0-9]", "-", text))))


def git_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding ``.git`` (a directory, or a worktree's file)."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def _auto_memory_setting(settings: Path, project: Path) -> Path | None:
    try:
        raw = settings.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise InputError(f"cannot read Claude settings: {err.strerror or err}", path=settings) from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as err:
        raise InputError(f"not valid JSON ({err}); fix it or give a MEMORY_DIR", path=settings) from None
    value = data.get("autoMemoryDirectory") if isinstance(data, dict) else None
    if not isinstance(value, str) or not value.strip():
        return None
    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else project / path


def locate_memory_dir(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Located:
    """The memory directory a command without one means, or ``InputError`` naming every place tried."""
    cwd = Path.cwd() if cwd is None else cwd
    env = os.environ if env is None else env
    looked: list[str] = []
    local = cwd / LOCAL_DIR
    if (local / "MEMORY.md").is_file():
        return Located(local, f"opened ./{LOCAL_DIR} ({local})")
    looked.append(f"{local}/MEMORY.md")

    config = claude_config_dir(env)
    settings = config / "settings.json"
    project = git_root(cwd.absolute()) or cwd.absolute()
    configured = _auto_memory_setting(settings, project)
    if configured is not None:
        if (configured / "MEMORY.md").is_file():
            return Located(configured, f"opened the Claude Code memory of this project: autoMemoryDirectory "
                                       f"in {settings} ({configured})")
        looked.append(f"{configured}/MEMORY.md (autoMemoryDirectory in {settings})")
    for key in dict.fromkeys(project_keys(project) + project_keys(cwd.absolute())):
        candidate = config / "projects" / key / "memory"
        if (candidate / "MEMORY.md").is_file():
            return Located(candidate, f"opened the Claude Code memory of this project ({candidate})")
        looked.append(f"{candidate}/MEMORY.md")
    raise NoMemoryFoundError("no memory here; looked for " + ", ".join(looked)
                             + ". Give a MEMORY_DIR, or try `seat-curator demo`")
