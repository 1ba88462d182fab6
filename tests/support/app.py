"""Seats, fleets and Pilot helpers for the app's tests (the autouse ``app_env`` fixture lives in
tests/app/conftest.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import TextArea
from textual.widgets._footer import FooterKey

from curator.screens.fleet import BOOT_CHECK, FleetScreen
from curator.widgets.entries_table import EntriesTable
from curator.widgets.fleet_grid import FleetGrid

HEADER = """# Seat memory index

> Hot index: target <17KB, read limit 24.6KB. One terse line per entry; detail in linked files.

## Identity & seat

- [Identity](identity.md) — the bearer's story, written by the bearer only
- [Seat pointers](seat-pointers.md) — who and where, with record citations

## Hard rules (they bit; don't relearn)

- Never force-push a shared branch [rule] — see [git notes](git.md)
- Run the full test suite before every push, see [ci notes](ci.md)
- Always run the full test suite before each push; details in [ci](ci-details.md)
- Keep `[brackets]` and [red]markup[/red] literal: memory text is not Textual markup

## Craft hooks

"""

LONG_ENTRY = (
    "- The parser's hot path is the tokenizer, see [perf notes](perf.md); in order to go faster we batched the "
    "allocations into slices, which cut the run time by a third, and the remaining cost sits in the regex for "
    "list markers, which could be replaced by a check on the first two bytes of each line\n"
)

VOCABULARY = (
    "cache invalidate shard replica quorum lease token budget hook anchor compaction boundary index archive "
    "ticket session worker queue retry backoff timeout socket schema migration rollback canary deploy "
    "pipeline fixture snapshot golden matrix harness config manifest resident operator bearer pointer "
    "ledger journal digest checksum mutex latch barrier epoch cursor window buffer frame codec parser"
).split()


def craft_line(n: int) -> str:
    """Distinct filler entries (no two alike) so merge candidates come only from the rules above."""
    import random

    rng = random.Random(n)
    words = " ".join(rng.sample(VOCABULARY, 14))
    return f"- craft {n}: {words} (ticket #{1000 + n})\n"


DETAIL_FILES = {
    "identity.md": "# Identity — unwritten\n",
    "seat-pointers.md": "# Seat pointers\n",
    "git.md": "# Git notes\n",
    "ci.md": "# CI notes\n",
    "ci-details.md": "# CI details\n",
    "perf.md": "# Perf notes\n",
}


def write_seat(memory_dir: Path, *, craft: int = 10) -> Path:
    """A seat: MEMORY.md (two near-duplicate rules, a long entry, ``craft`` filler lines) and its
    detail files. ``craft=160`` puts it over the 17,000 B target."""
    memory_dir.mkdir(parents=True, exist_ok=True)
    body = HEADER + LONG_ENTRY + "".join(craft_line(n) for n in range(1, craft + 1))
    (memory_dir / "MEMORY.md").write_text(body, encoding="utf-8")
    for name, text in DETAIL_FILES.items():
        (memory_dir / name).write_text(text, encoding="utf-8")
    return memory_dir


def write_example_fleet(root: Path, *, provision: bool = True) -> Path:
    """The generators' example fleet (one kimi-code, one opencode resident) under ``root``; provisioned
    with the composer unless ``provision`` is False. Returns the manifest path."""
    from generators.composer import apply_fleet
    from generators.manifest import example_manifest, load_manifest

    root.mkdir(parents=True, exist_ok=True)
    manifest = root / "fleet.toml"
    manifest.write_text(example_manifest(root), encoding="utf-8")
    fleet = load_manifest(manifest)
    for resident in fleet.residents:
        Path(resident.repo).mkdir(parents=True, exist_ok=True)
    if provision:
        apply_fleet(fleet)
    return manifest


def artifact_path(manifest: Path, name: str) -> Path:
    """The path of the first planned artifact called ``name`` (e.g. "opencode.jsonc")."""
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    plans = plan_fleet(load_manifest(manifest))
    return next(a.path for p in plans for a in p.artifacts if a.path.name == name)


def make_divergent(manifest: Path) -> Path:
    """Hand-edit the opencode seat's owned `instructions`: a detail file added to the array."""
    path = artifact_path(manifest, "opencode.jsonc")
    text = path.read_text(encoding="utf-8")
    marker = '"instructions": ['
    assert marker in text
    path.write_text(text.replace(marker, marker + '\n    "/tmp/extra-notes.md",', 1), encoding="utf-8")
    return path


def unhandled(app) -> list:
    """Nodes (the app, any screen on the stack or widget in one) with a message not yet handled: a key
    still travelling from the focused widget up to its binding, a callback (``call_later``, a focus
    move), the screen's after-refresh callbacks. A key takes one queue per DOM level on its way, and
    Pilot's own wait (an idle process) can end before it arrives on a loaded machine."""
    nodes = [app, *(node for screen in app.screen_stack for node in screen.walk_children(with_self=True))]
    busy = [node for node in nodes
            if not node._message_queue.empty() or node._pending_message is not None or node._next_callbacks]
    return busy + ([app.screen] if app.screen._callbacks else [])  # a screen below runs them when shown again


async def settle(app, pilot) -> None:
    """Wait until the app says it is idle: every message handled (``unhandled``), workers (analysis,
    plans) and animations finished, and every screen that can tell (``is_settled``: panels mounted, the analysis
    shown is that of the editor's text, no debounce pending) says so. Waits on the app's state, never
    on a fixed time; the deadline only turns a hang into a readable failure."""
    import asyncio
    import time

    deadline = time.monotonic() + 60
    while True:
        await pilot.pause()
        # Every worker but the fleet panel's disk watch, which runs as long as the panel is there
        # (wait_for_complete([]) would wait for every worker).
        working = [w for w in app.workers if w.group != "fleet-watch"]
        if working:
            # A worker that failed has told the app (its handler makes that a notice); the test reads
            # what the app did with the failure, so its exception is not raised here.
            await asyncio.gather(*(worker.wait() for worker in working), return_exceptions=True)
        await app.animator.wait_until_complete()  # a scroll the last key started
        await pilot.pause()
        busy = unhandled(app)
        if not busy and all(getattr(screen, "is_settled", lambda: True)() for screen in app.screen_stack):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the app never settled: {app.screen_stack}, messages pending in {busy[:5]}")
        await pilot.pause(0.02)  # a debounce timer is pending: let it fire


def key_event(key: str):
    """The Key event Pilot.press sends for ``key`` (a name such as "f2", "slash", or one character)."""
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def press_in_one_read(app, pilot, *keys: str) -> None:
    """Deliver ``keys`` as a terminal does in one read (tmux send-keys, or keys typed ahead while the
    app is busy): all are queued before the app handles the first. Pilot.press waits for an idle
    process between keys, and on a loaded machine that wait can end early, so this is what its keys
    may meet there, made certain. Then settle."""
    for key in keys:
        app.post_message(key_event(key))
    await settle(app, pilot)


SIZE = (120, 36)


def fleet_seat(tmp_path: Path) -> tuple[Path, Path]:
    """(manifest, memory dir) of the example fleet's opencode seat: what `seat-curator demo` opens."""
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    manifest = write_example_fleet(tmp_path / "fleet")
    plan = plan_fleet(load_manifest(manifest))[1]
    write_seat(plan.memory_dir)  # the fixture's entries (two near-duplicates, a long one) in that seat
    return manifest, plan.memory_dir


def put_cursor_on(app, needle: str, *, focus: bool):
    """Put the Entries panel's cursor on the entry containing ``needle`` (and focus the panel); its row."""
    table = app.screen.query_one(EntriesTable)
    row = next(r for r in table.rows_by_id.values() if needle in r.text)
    table.move_cursor(row=table.get_row_index(row.id))
    if focus:
        table.focus()
    return row


def highlight_entry(app, needle: str):
    """Put the Entries panel's cursor on the entry containing ``needle`` and focus it; its row."""
    return put_cursor_on(app, needle, focus=True)


async def footer_keys(app, pilot) -> list[FooterKey]:
    """The footer's keys once it shows the bindings of the current focus (it recomposes after a
    refresh, so right after a focus change it may still show the previous focus's keys)."""
    import time

    deadline = time.monotonic() + 60
    while True:
        await pilot.pause()
        keys = list(app.screen.query(FooterKey))
        footer = app.screen.query_one("KeysFooter")
        live = {binding.action for binding, _enabled, _tip in footer.fitting(footer.wanted())}
        if {k.action for k in keys} == live and not footer._recompose_pending:
            return keys
        assert time.monotonic() < deadline, "the footer never caught up with the focus"
        await pilot.pause(0.02)


def notes(app) -> str:
    """What the user was told, one a line: every notification (they go to the status line), and the
    status line of the screen in view."""
    return "\n".join([str(n.message) for n in app.notices] + [str(s.render()) for s in app.screen.query("#status")])


def inside(widget, size) -> bool:
    """``widget`` is shown and wholly within a terminal of ``size``."""
    region = widget.region
    return region.width > 0 and region.height > 0 and region.right <= size[0] and region.bottom <= size[1]


def cell_offset(grid: FleetGrid, row: int, column: int) -> tuple[int, int]:
    """Where a click lands on a cell: past the columns before it, below the header."""
    x = sum(c.get_render_width(grid) for c in list(grid.columns.values())[:column])
    return x + 1, grid.header_height + row


def boot_cell(screen: FleetScreen, resident: str) -> str:
    """The text of ``resident``'s boot-check cell in the fleet grid."""
    return screen.query_one(FleetGrid).get_cell(resident, BOOT_CHECK).plain


FLEET_ROOT = Path("/tmp/seat-curator-snapshots/fleet")  # fixed: its paths appear on screen


async def quiet(pilot) -> None:
    """Settle, stop the cursor blinking and wait until nothing scrolls: a screen fit for a snapshot."""
    await settle(pilot.app, pilot)
    for editor in pilot.app.screen.query(TextArea):
        editor.cursor_blink = False
    # The grid scrolls to the divergent cell after a layout pass: wait until every scroll is still.
    still = 0
    while still < 3:
        before = [(w.scroll_x, w.scroll_y) for w in pilot.app.screen.query("*")]
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.05)
        still = still + 1 if before == [(w.scroll_x, w.scroll_y) for w in pilot.app.screen.query("*")] else 0


def divergent_fleet() -> Path:
    """The example fleet under FLEET_ROOT, its opencode seat hand-edited (``make_divergent``)."""
    shutil.rmtree(FLEET_ROOT, ignore_errors=True)
    manifest = write_example_fleet(FLEET_ROOT)
    make_divergent(manifest)
    return manifest


# A Claude Code memory's parts that Claude Code strips before it loads MEMORY.md.
FRONTMATTER = "---\nname: shop memory\ndescription: what this project taught\n---\n"
COMMENT = "<!--\n" + "a note to whoever edits this file by hand: Claude Code never loads it\n" * 30 + "-->\n\n"


def hide_parts_in(memory: Path, *, craft: int) -> tuple[int, int]:
    """MEMORY.md with ``craft`` filler lines, YAML frontmatter and an HTML comment block on top:
    (bytes Claude Code loads, bytes on disk)."""
    write_seat(memory, craft=craft)
    body = (memory / "MEMORY.md").read_bytes()
    (memory / "MEMORY.md").write_bytes((FRONTMATTER + COMMENT).encode() + body)
    return len(body), len(body) + len(FRONTMATTER + COMMENT)
