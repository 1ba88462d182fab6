"""A Claude Code memory (found by a bare `seat-curator`, or opened by its path) is named as such: the
title says whose, the meter shows Claude Code's own budget (lines and characters) without --profile,
and `check` leaves out what only the other harnesses need (identity.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.app import write_seat

from curator.app import CuratorApp
from curator.cli import main


@pytest.fixture
def claude_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    memory = tmp_path / "home" / ".claude" / "projects" / str(project).replace("/", "-") / "memory"
    write_seat(memory, craft=3)
    (memory / "identity.md").unlink()  # a Claude Code memory has none: that is no problem of its own
    return memory


def test_check_of_a_claude_memory_says_nothing_of_identity_md(claude_memory, capsys):
    main(["check"])
    out = capsys.readouterr()
    assert "Claude Code memory" in out.err
    assert "identity.md is missing" not in out.out
    assert "claude-code" in out.out


async def test_the_title_names_a_claude_memory_and_the_meter_shows_its_budget(claude_memory, tmp_path):
    app = CuratorApp(claude_memory, state_dir=tmp_path / "state")  # no profile given
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        title = str(app.screen.query_one("#seat-title").render())
        assert title.startswith("Claude Code memory of work/shop · MEMORY.md")
        meter = str(app.screen.query_one("#meter").render())
        assert "claude-code" in meter and "/200 lines" in meter and "/25,000 chars" in meter
        await pilot.press("f2")  # panels focused too: the title stays
        assert "Claude Code memory" in str(app.screen.query_one("#seat-title").render())


async def test_a_claude_code_seat_of_the_fleet_is_titled_as_claude_codes(tmp_path):
    from curator.demo import CLAUDE_SEAT, build_demo

    demo = build_demo(tmp_path / "demo")
    app = CuratorApp(demo.memory_dir(CLAUDE_SEAT), demo.fleet_path, resident_id=CLAUDE_SEAT, profile="claude-code",
                     state_dir=tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        title = str(app.screen.query_one("#seat-title").render())
        assert title.startswith(f"demo seat (esc: its fleet) · Claude Code memory of {CLAUDE_SEAT} · MEMORY.md")
