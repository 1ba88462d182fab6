"""Pilot tests of the curator's flows, asserting on the files on disk."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.widgets import DataTable, TabbedContent, TextArea

from curator.app import CuratorApp
from curator.screens.dialogs import ConfirmDialog, ConflictDialog, DiffDialog
from curator.screens.fleet import FleetScreen
from curator.screens.help import HelpScreen
from curator.screens.index import IndexScreen
from curator.screens.preview import PreviewScreen
from curator.widgets.byte_meter import ByteMeter
from curator.widgets.entries_table import EntriesTable
from curator.widgets.fleet_grid import STATUS_SYMBOLS
from curator.widgets.merge_panel import MergeTable
from curator.widgets.trim_panel import TrimTable
from generators.composer import PENDING
from tests.support.app import artifact_path, make_divergent, settle, write_example_fleet, write_seat

SIZE = (120, 36)


@asynccontextmanager
async def running(app: CuratorApp) -> AsyncIterator[tuple[CuratorApp, object]]:
    """``app`` under Pilot at SIZE, its first analysis settled."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        yield app, pilot


def table_text(table: DataTable) -> str:
    return "\n".join(" | ".join(str(getattr(c, "plain", c)) for c in table.get_row_at(i)) for i in range(table.row_count))


def pending_cells(table: DataTable, row: int) -> int:
    """How many cells of ``row`` say PENDING: as the word, or as its symbol in the narrow layouts."""
    cells = [str(getattr(c, "plain", c)).strip() for c in table.get_row_at(row)]
    return sum(cell in (PENDING, STATUS_SYMBOLS[PENDING]) for cell in cells)


def select_entry(screen: IndexScreen, needle: str) -> str:
    table = screen.query_one(EntriesTable)
    entry_id = next(r.id for r in table.rows_by_id.values() if needle in r.text)
    table.move_cursor(row=table.get_row_index(entry_id))
    table.focus()
    return entry_id


# -- the index screen --------------------------------------------------------------------------

async def test_typing_moves_the_meter_and_ctrl_s_saves(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    async with running(CuratorApp(seat, analysis_delay=0.01)) as (app, pilot):
        meter = app.screen.query_one(ByteMeter)
        assert meter.reading.bytes == len(before)
        await pilot.press("x", "y", "z")
        assert meter.reading.bytes == len(before) + 3  # every keystroke, before any analysis
        assert (seat / "MEMORY.md").read_bytes() == before  # nothing written until ctrl+s
        await pilot.press("ctrl+s")
        await settle(app, pilot)
    assert (seat / "MEMORY.md").read_bytes() == b"xyz" + before


async def test_meter_zone_words_follow_the_target(tmp_path):
    seat = write_seat(tmp_path / "memory", craft=180)
    async with running(CuratorApp(seat)) as (app, pilot):
        meter = app.screen.query_one(ByteMeter)
        assert meter.reading.zone == "over-target"
        assert "OVER TARGET" in meter.render().plain
        assert f"{meter.reading.bytes - 17_000:,} B over target" in meter.render().plain


async def test_brackets_render_verbatim_in_the_entries_panel(tmp_path):
    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        text = table_text(app.screen.query_one(EntriesTable))
    assert "Keep `[brackets]` and [red]markup[/red] literal" in text
    assert "[rule] — see [git notes](git.md)" in text


async def test_hand_merge_that_drops_a_pointer_is_flagged_at_once(tmp_path):
    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        editor = app.screen.query_one("#editor", TextArea)
        row = next(i for i, line in enumerate(editor.text.split("\n")) if "ci-details.md" in line)
        editor.delete((row, 0), (row + 1, 0))  # the bearer merges the two CI lines by deleting one
        await pilot.press("ctrl+s")
        await pilot.pause()
        screen = app.screen
        assert screen.query_one(TabbedContent).active == "pointers"
        pointers = table_text(screen.query_one("#pointers-table", DataTable))
    assert "ORPHAN | ci-details.md" in pointers
    assert b"ci-details.md" not in (seat / "MEMORY.md").read_bytes()


async def test_merge_lever_previews_applies_and_keeps_every_pointer(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    async with running(CuratorApp(seat)) as (app, pilot):
        await pilot.press("f2", "2")  # leave the editor, Merge panel
        assert app.screen.query_one(MergeTable).candidates, "the fixture has two near-duplicate CI rules"
        await pilot.press("m")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert (seat / "MEMORY.md").read_bytes() == before  # preview writes nothing
        await pilot.press("y")
        await settle(app, pilot)
        pointers = table_text(app.screen.query_one("#pointers-table", DataTable))
    after = (seat / "MEMORY.md").read_bytes()
    assert len(after) < len(before)
    assert [line for line in after.splitlines() if b"full test suite" in line] == [
        b"- Run the full test suite before every push, see [ci notes](ci.md); details in [ci](ci-details.md)"
    ]
    assert b"(ci.md)" in after and b"(ci-details.md)" in after
    assert "ORPHAN" not in pointers


async def test_archive_moves_the_entry_to_archive_md_and_undo_restores(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    async with running(CuratorApp(seat)) as (app, pilot):
        select_entry(app.screen, "Never force-push")
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        archived = (seat / "ARCHIVE.md").read_bytes()
        assert b"Never force-push a shared branch" in archived
        assert b"Never force-push" not in (seat / "MEMORY.md").read_bytes()
        assert "Never force-push" not in app.screen.query_one(TextArea).text
        assert "Never force-push" in table_text(app.screen.query_one("#archive-table", DataTable))
        await pilot.press("f8")
        await settle(app, pilot)
    assert (seat / "MEMORY.md").read_bytes() == before
    assert not (seat / "ARCHIVE.md").exists()


async def test_cancelled_lever_writes_nothing(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    async with running(CuratorApp(seat)) as (app, pilot):
        select_entry(app.screen, "Never force-push")
        await pilot.press("a")
        await settle(app, pilot)  # the preview is on screen before it is answered
        await pilot.press("n")
        await settle(app, pilot)
    assert (seat / "MEMORY.md").read_bytes() == before
    assert not (seat / "ARCHIVE.md").exists()


async def test_trim_split_moves_the_tail_to_the_detail_file(tmp_path):
    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        await pilot.press("f2", "3")
        suggestion = app.screen.query_one(TrimTable).suggestions[0]
        assert suggestion.kind == "split"
        await pilot.press("t")
        await settle(app, pilot)  # the preview is on screen before it is answered
        await pilot.press("y")
        await settle(app, pilot)
    index = (seat / "MEMORY.md").read_text()
    assert "cut the run time by a third" not in index
    assert "cut the run time by a third" in (seat / "perf.md").read_text()


async def test_save_conflict_never_overwrites_and_offers_the_choice(tmp_path):
    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        await pilot.press("m", "i", "n", "e")
        theirs = b"# written by the agent meanwhile\n"
        (seat / "MEMORY.md").write_bytes(theirs)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ConflictDialog)
        assert (seat / "MEMORY.md").read_bytes() == theirs
        await pilot.press("d")  # show diff, then back to the choice
        await pilot.pause()
        assert isinstance(app.screen, DiffDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConflictDialog)
        await pilot.press("escape")  # cancel: still nothing written
        await pilot.pause()
        assert (seat / "MEMORY.md").read_bytes() == theirs
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("k")  # keep mine: explicit overwrite, journalled
        await settle(app, pilot)
        mine = app.screen.query_one(TextArea).text.encode()
    assert mine.startswith(b"mine")
    assert (seat / "MEMORY.md").read_bytes() == mine


async def test_save_conflict_reload_takes_the_disk_version(tmp_path):
    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        await pilot.press("x")
        theirs = b"# theirs\n"
        (seat / "MEMORY.md").write_bytes(theirs)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("r")
        await settle(app, pilot)
        assert app.screen.query_one(TextArea).text == "# theirs\n"
    assert (seat / "MEMORY.md").read_bytes() == theirs


async def test_help_lists_every_lever_key(tmp_path):
    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = " ".join(str(cell.render()) for cell in app.screen.query("#help-keys .help-row Static"))
        for word in ("Save", "Merge", "Archive", "Trim", "Re-provision preview", "Undo change", "Commands"):
            assert word in keys
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, IndexScreen)


async def test_command_palette_offers_the_screen_actions(tmp_path):
    from curator.screens.palette import CuratorCommands

    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        provider = CuratorCommands(app.screen)
        titles = [title for title, *_ in provider._actions()]
    for title in ("Merge", "Archive the selection", "Trim this suggestion (the Entries panel's t trims the selection)",
                  "Trim the selection (a split or a tighten each, every fact kept; one change)", "Save", "Search archive", "Re-provision preview", "Help",
                  "Mark / unmark the whole section", "Filter the entries (levers act on what it shows)"):
        assert title in titles


async def test_p_without_a_fleet_explains_how(tmp_path):
    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        await pilot.press("f4")  # the preview key works in the editor
        await pilot.pause()
        assert isinstance(app.screen, IndexScreen)
        assert any("--fleet" in str(n.message) for n in app.notices)


# -- the fleet panel and the preview -----------------------------------------------------------

async def test_preview_apply_creates_and_the_fleet_turns_match(tmp_path):
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    manifest = write_example_fleet(tmp_path / "fleet", provision=False)
    async with running(CuratorApp(fleet_path=manifest)) as (app, pilot):
        assert isinstance(app.screen, FleetScreen)
        assert pending_cells(app.screen.query_one("#fleet-grid", DataTable), 0)  # the word, or + where words do not fit
        await pilot.press("p")
        await settle(app, pilot)
        assert isinstance(app.screen, PreviewScreen)
        assert "READY" in str(app.screen.query_one("#preview-verdict").render())
        await pilot.press("enter")
        await settle(app, pilot)
        assert {a.status for _, a in app.screen.rows} == {"MATCH"}
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)
        assert not pending_cells(app.screen.query_one("#fleet-grid", DataTable), 0)
    kimi = plan_fleet(load_manifest(manifest))[0]
    assert kimi.status == "MATCH"
    assert (kimi.memory_dir / "MEMORY.md").is_file()


async def test_divergent_preview_refuses_and_set_aside_is_the_escape_hatch(tmp_path):
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    manifest = write_example_fleet(tmp_path / "fleet")
    jsonc = make_divergent(manifest)
    edited = jsonc.read_bytes()
    wake = artifact_path(manifest, "write_wake_envelope.py")
    wake.unlink()  # pending creation next to the divergence: must not be written either
    async with running(CuratorApp(fleet_path=manifest)) as (app, pilot):
        await pilot.press("slash", *"divergent", "enter")
        await pilot.pause()
        assert app.screen.query_one("#fleet-grid", DataTable).row_count == 1
        detail = str(app.screen.query_one("#fleet-detail-text").render())
        assert "DIVERGENT" in detail and "instructions" in detail
        await pilot.press("p")
        await settle(app, pilot)
        verdict = str(app.screen.query_one("#preview-verdict").render())
        assert "REFUSED" in verdict and "set it aside" in verdict
        await pilot.press("enter")
        await settle(app, pilot)
        assert jsonc.read_bytes() == edited and not wake.exists()  # refusal wrote nothing
        await pilot.press("x")  # the divergent row is first
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
    aside = list(jsonc.parent.glob("opencode.jsonc.divergent-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == edited
    assert wake.exists()
    assert all(p.status == "MATCH" for p in plan_fleet(load_manifest(manifest)))


async def test_fleet_opens_a_seat_and_p_previews_that_seat(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    async with running(CuratorApp(fleet_path=manifest)) as (app, pilot):
        await pilot.press("o")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen)
        assert app.screen.resident_id == "@neo-kimi-iris"
        await pilot.press("f4")  # the preview key works in the editor
        await settle(app, pilot)
        assert isinstance(app.screen, PreviewScreen)
        assert app.screen.resident_ids == ["@neo-kimi-iris"]
        assert "ALL MATCH" in str(app.screen.query_one("#preview-verdict").render())


async def test_fleet_shows_the_last_boot_check(tmp_path):
    from curator.canary.last_result import save_results
    from curator.canary.result import ResidentResult, StepResult

    manifest = write_example_fleet(tmp_path / "fleet")
    passed = ResidentResult("@neo-kimi-iris", "kimi-code", [StepResult("boot", "PASS", "index in context")],
                            finished_at=1.0)
    save_results(manifest, [passed])  # under XDG_STATE_HOME, i.e. tmp_path
    async with running(CuratorApp(fleet_path=manifest)) as (app, pilot):
        rows = table_text(app.screen.query_one("#fleet-grid", DataTable)).splitlines()
        assert "Boot" in [str(c.label) for c in app.screen.query_one("#fleet-grid", DataTable).columns.values()]
        assert "PASS" in rows[0] and "never run" in rows[1]


async def test_seat_and_fleet_together_open_the_seat_over_the_fleet(tmp_path):
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    manifest = write_example_fleet(tmp_path / "fleet")
    opencode = plan_fleet(load_manifest(manifest))[1]
    app = CuratorApp(opencode.memory_dir, manifest)  # what `seat-curator demo` opens
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen)
        assert (app.screen.resident_id, app.screen.profile) == ("@neo-opencode-juno", "opencode")
        assert app.focused is not None and app.focused.id == "entries-table"  # over the fleet: the panels
        await pilot.press("f4")  # the preview key
        await settle(app, pilot)
        assert isinstance(app.screen, PreviewScreen) and app.screen.resident_ids == ["@neo-opencode-juno"]
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f")  # still in the panels, where f is back to the fleet
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)


# -- the command line --------------------------------------------------------------------------

def test_bare_command_without_memory_says_how_to_start(tmp_path, monkeypatch, capsys):
    from curator.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "no-claude"))
    assert main([]) == 1
    err = capsys.readouterr().err
    assert "seat-curator tui MEMORY_DIR" in err and "seat-curator demo" in err


def test_tui_on_a_missing_dir_is_a_one_line_error(tmp_path, capsys):
    from curator.cli import main

    assert main(["tui", str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert "no such memory directory" in err and "Traceback" not in err


async def test_an_analysis_arriving_while_the_panels_mount_waits_for_them(tmp_path, monkeypatch):
    """A result delivered while the panels are still being composed (a slow machine) is held and
    shown once every panel exists, instead of querying tabs that are not there yet."""
    delivered = []

    def deliver_early(table: EntriesTable) -> None:  # the first panel mounts; the others are still coming
        screen = table.screen
        result = screen.analyse(screen.editor_bytes())  # what the worker posts
        screen.on_analysis_ready(result)
        delivered.append(result.raw)

    monkeypatch.setattr(EntriesTable, "on_mount", deliver_early, raising=False)
    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        assert delivered, "the early result was delivered during the mount"
        screen = app.screen
        assert isinstance(screen, IndexScreen) and screen.panels_ready
        assert "Never force-push" in table_text(screen.query_one(EntriesTable))
        assert "OK" in table_text(screen.query_one("#pointers-table", DataTable))


async def test_restoring_an_entry_already_back_in_memory_md_warns_in_the_preview(tmp_path):
    # The agent (or the bearer) wrote the archived line back: a restore would make a second copy.
    seat = write_seat(tmp_path / "memory")
    async with running(CuratorApp(seat)) as (app, pilot):
        select_entry(app.screen, "Never force-push")
        await pilot.press("a")
        await settle(app, pilot)  # the preview is on screen before it is answered
        await pilot.press("y")
        await settle(app, pilot)
    archived_line = next(line for line in (seat / "ARCHIVE.md").read_text("utf-8").splitlines()
                         if "Never force-push" in line)
    line = archived_line.split(" · archived")[0]
    with (seat / "MEMORY.md").open("a", encoding="utf-8") as memory:
        memory.write(line + "\n")
    before = (seat / "MEMORY.md").read_bytes()
    async with running(CuratorApp(seat)) as (app, pilot):
        app.screen.action_tab("archive")
        await settle(app, pilot)
        table = app.screen.query_one("#archive-table", DataTable)
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        body = str(app.screen.query_one("#confirm-body").render())
        assert "already in MEMORY.md" in body and "second copy" in body
        await pilot.press("n")
        await settle(app, pilot)
    assert (seat / "MEMORY.md").read_bytes() == before
