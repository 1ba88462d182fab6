"""Seats for the app's Pilot and snapshot tests, built in tmp_path (no test functions here)."""

from __future__ import annotations

from pathlib import Path

import pytest

HEADER = """# Seat memory index

> Hot index: target <17KB, read limit 24.6KB. One terse line per entry; detail in linked files.

"""


def entry_line(n: int, width: int = 150) -> str:
    """A deterministic entry with [brackets] that must render verbatim and a pointer."""
    text = f"- [note {n}](notes.md) lesson {n}: keep [red]brackets[/red] and [b]markup[/b] literal; "
    return (text + "x" * max(0, width - len(text))) + "\n"


def write_seat(memory_dir: Path, *, entries: int = 20, width: int = 150, extra: str = "") -> Path:
    """A seat: MEMORY.md with ``entries`` craft lines, identity.md, notes.md (linked)."""
    memory_dir.mkdir(parents=True, exist_ok=True)
    body = HEADER + "## Identity & seat\n\n- [Identity](identity.md) — the bearer's story\n\n## Craft hooks\n\n"
    body += "".join(entry_line(n, width) for n in range(1, entries + 1))
    body += extra
    (memory_dir / "MEMORY.md").write_text(body, encoding="utf-8")
    (memory_dir / "identity.md").write_text("# Identity — unwritten\n", encoding="utf-8")
    (memory_dir / "notes.md").write_text("# Notes\n\nDetail.\n", encoding="utf-8")
    return memory_dir


@pytest.fixture(autouse=True)
def app_env(monkeypatch, tmp_path):
    """Render like a default terminal; keep the store's journal inside tmp_path."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TEXTUAL_THEME", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
