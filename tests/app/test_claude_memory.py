"""A Claude Code memory (found by a bare `seat-curator`, or opened by its path) is named as such: the
title says whose, the meter shows Claude Code's own budget (lines and characters) without --profile,
and `check` leaves out what only the other harnesses need (identity.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.app import hide_parts_in, settle, write_seat

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
        await settle(app, pilot)
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
        await settle(app, pilot)
        title = str(app.screen.query_one("#seat-title").render())
        assert title.startswith(f"demo seat (esc: its fleet) · Claude Code memory of {CLAUDE_SEAT} · MEMORY.md")


async def test_the_meter_of_a_claude_memory_counts_what_claude_code_loads(claude_memory, tmp_path):
    loaded, on_disk = hide_parts_in(claude_memory, craft=122)
    assert loaded < 17_000 < on_disk  # over the target on disk, under it as Claude Code loads it
    app = CuratorApp(claude_memory, state_dir=tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        meter = str(app.screen.query_one("#meter").render())
        assert f"{loaded:,} B loaded by Claude Code · {on_disk:,} B on disk" in meter
        assert " OK " in meter and "OVER TARGET" not in meter
        await pilot.press("f2")  # the panels focused: the same reading
        assert f"{loaded:,} B loaded by Claude Code" in str(app.screen.query_one("#meter").render())
        await pilot.press("f2")
        app.screen.editor.move_cursor(app.screen.editor.document.end)
        await pilot.press(*"x" * 100, "enter")  # a line typed at the end: both figures move
        await settle(app, pilot)
        meter = str(app.screen.query_one("#meter").render())
        assert f"{loaded + 101:,} B loaded by Claude Code · {on_disk + 101:,} B on disk" in meter


async def test_past_the_read_limit_on_disk_but_not_as_loaded_is_no_read_limit_alarm(claude_memory, tmp_path):
    loaded, on_disk = hide_parts_in(claude_memory, craft=180)
    assert 24_550 <= loaded <= 24_600 < on_disk  # past the read limit on disk only
    app = CuratorApp(claude_memory, state_dir=tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        meter = str(app.screen.query_one("#meter").render())
        assert "OVER TARGET" in meter and "OVER READ LIMIT" not in meter
        assert f"{loaded - 17_000:,} B over target" in meter
        app.screen.editor.move_cursor(app.screen.editor.document.end)
        await pilot.press("x", "ctrl+s")  # saved: no word about the read limit
        await settle(app, pilot)
        assert "Saved MEMORY.md" in str(app.screen.query_one("#status").render())
        assert "over the read limit" not in str(app.screen.query_one("#status").render())
        await pilot.press(*"y" * 60, "ctrl+s")  # now past it as loaded too: the meter and the save say so
        await settle(app, pilot)
        assert "OVER READ LIMIT" in str(app.screen.query_one("#meter").render())
        assert f"{loaded + 61 - 24_600:,} B over the read limit" in str(app.screen.query_one("#status").render())


async def test_other_harnesses_keep_the_bytes_on_disk(tmp_path):
    memory = tmp_path / "memory"
    _loaded, on_disk = hide_parts_in(memory, craft=3)
    app = CuratorApp(memory, state_dir=tmp_path / "state", profile="kimi-code")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        meter = str(app.screen.query_one("#meter").render())
        assert meter.startswith(f"{on_disk:,} B") or f"\n{on_disk:,} B  target" in meter
        assert "loaded by" not in meter and "on disk" not in meter
