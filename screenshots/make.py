"""Regenerate the README's screenshots (SVG, and PNG when cairosvg is installed).

    .venv/bin/python screenshots/make.py            # writes screenshots/*.svg and *.png

Builds the demo fleet (``curator.demo.build_demo``) in a fresh directory, drives the app headless at
120x36 with Textual's Pilot, and saves:

- ``index-over-target``: the bearer's index screen on the grown opencode seat (over the 17 KB target);
- ``pointers-after-bad-merge``: the same seat after a hand merge that dropped the only link to a
  detail file, saved with ctrl+s: the Pointers panel flags the orphan at once;
- ``merge-preview``: the merge lever's preview on two paraphrased entries, with the bearer's own
  merged line typed in: bytes saved, meter after and diff re-planned by the core;
- ``fleet-divergent``: the fleet panel, cursor on the hand-edited seat's DIVERGENT config.toml;
- ``preview-refused``: the re-provision preview for that seat, refusing and naming the escape hatch;
- ``fleet-divergent-80x24``, ``preview-refused-80x24``: the same two at 80x24.

PNG needs ``pip install cairosvg``; the SVG's Fira Code font is swapped for DejaVu Sans Mono (installed
on most Linux systems) so columns line up.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from curator.app import CuratorApp  # noqa: E402
from curator.demo import DIVERGENT_SEAT, GROWN, build_demo  # noqa: E402
from curator.index_model import parse_index  # noqa: E402
from curator.pointers import check_pointers  # noqa: E402

SIZE = (120, 36)
DEMO_ROOT = Path(tempfile.gettempdir()) / "seat-curator-screenshots" / "demo"


async def settle(app, pilot) -> None:
    """Until the app says it is idle (every screen's ``is_settled``), then cursor blink off."""
    while True:
        await pilot.pause()
        # Every worker but the fleet panel's disk watch, which runs as long as the panel is there.
        working = [w for w in app.workers if w.group != "fleet-watch"]
        if working:
            await app.workers.wait_for_complete(working)
        await pilot.pause()
        if all(getattr(s, "is_settled", lambda: True)() for s in app.screen_stack):
            break
        await pilot.pause(0.02)
    for editor in app.screen.query("TextArea"):
        editor.cursor_blink = False
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def save(app, name: str) -> Path:
    path = HERE / f"{name}.svg"
    app.save_screenshot(path.name, path=str(HERE))
    print(f"wrote {path.relative_to(HERE.parent)}")
    return path


def line_that_orphans_a_file(memory_dir: Path, raw: bytes) -> int:
    """0-based line of a one-line entry whose deletion orphans a detail file (asked of the pointer graph)."""
    index = parse_index(raw)
    before = set(check_pointers(memory_dir, parsed_index=index).orphans)
    for entry in reversed(index.entries):
        if entry.line != entry.end_line or not entry.pointers:
            continue
        without = index.splice([(entry.offset, entry.end_offset, b"")])
        if set(check_pointers(memory_dir, overrides={"MEMORY.md": without}).orphans) - before:
            return entry.line - 1
    raise SystemExit("demo seat has no entry that is the only link to a detail file")


async def seat_shots(fleet_path: Path, memory_dir: Path) -> None:
    app = CuratorApp(memory_dir, fleet_path, resident_id=GROWN, profile="opencode")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        save(app, "index-over-target")
        editor = app.screen.query_one("#editor")
        row = line_that_orphans_a_file(memory_dir, editor.text.encode("utf-8"))
        editor.delete((row, 0), (row + 1, 0))  # a merge by hand that forgot the pointer
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        app.clear_notifications()
        await pilot.pause()
        save(app, "pointers-after-bad-merge")


MERGED_LINE = ("Declared done on a green unit run while e2e was red; counter: read every CI lane before saying "
               "done - [ci-lessons](ci-lessons.md#reading-the-summary), ticket #4127.")


async def merge_shot(fleet_path: Path, memory_dir: Path) -> None:
    """The merge preview with the bearer's own merged line typed in, re-planned by the core."""
    app = CuratorApp(memory_dir, fleet_path, resident_id=GROWN, profile="opencode")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "2")
        await settle(app, pilot)
        await pilot.press("down", "down", "m")
        await settle(app, pilot)
        await pilot.press("e", "ctrl+u")
        await pilot.press(*MERGED_LINE)
        await pilot.press("enter")
        await pilot.pause(0.6)
        await settle(app, pilot)
        save(app, "merge-preview")


async def fleet_shots(fleet_path: Path, size: tuple[int, int] = SIZE, suffix: str = "") -> None:
    app = CuratorApp(fleet_path=fleet_path)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        save(app, "fleet-divergent" + suffix)
        assert app.screen.query_one("#fleet-grid").current_plan().agent_id == DIVERGENT_SEAT
        await pilot.press("p")
        await settle(app, pilot)
        save(app, "preview-refused" + suffix)


def to_png(svg: Path) -> None:
    try:
        import cairosvg
    except ImportError:
        print("cairosvg is not installed: SVG only (pip install cairosvg for PNG)")
        return
    text = svg.read_text(encoding="utf-8")
    text = re.sub(r'font-family:\s*"?Fira Code"?,\s*monospace', 'font-family: "DejaVu Sans Mono", monospace', text)
    cairosvg.svg2png(bytestring=text.encode("utf-8"), write_to=str(svg.with_suffix(".png")))
    print(f"wrote {svg.with_suffix('.png').relative_to(HERE.parent)}")


def main() -> int:
    for name in ("NO_COLOR", "TEXTUAL_THEME"):
        os.environ.pop(name, None)
    shutil.rmtree(DEMO_ROOT.parent, ignore_errors=True)
    os.environ["XDG_STATE_HOME"] = str(DEMO_ROOT.parent / "state")  # the undo journal stays out of ~
    demo = build_demo(DEMO_ROOT)
    asyncio.run(merge_shot(demo.fleet_path, demo.memory_dir(GROWN)))
    asyncio.run(seat_shots(demo.fleet_path, demo.memory_dir(GROWN)))
    asyncio.run(fleet_shots(demo.fleet_path))
    asyncio.run(fleet_shots(demo.fleet_path, (80, 24), "-80x24"))
    for svg in sorted(HERE.glob("*.svg")):
        to_png(svg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
