"""App benchmarks, each side by side with a bare Textual baseline in the same run.

- typing: 500 characters typed through Pilot into the index editor of the demo's grown seat
  (``examples/seats/wren``, ~18 KB, over the target) — with the live byte meter re-measured on every
  key and the full analysis debounced — against the same 500 keys into a bare app holding only a
  ``TextArea`` with the same text. Fastest of 3 runs each, interleaved. Goal: ratio <= 1.25.
- start-up: a fresh ``python`` process opening ``CuratorApp(MEMORY_DIR)`` headless, timed from its
  first line (before any import) to the first paint of the index screen with the text loaded,
  against a fresh process opening a bare Textual app with one ``Static``. Imports included (that is
  what a user waits for). Median of 5, interleaved. Goal: ratio <= 1.5.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

KEYS = [chr(ord("a") + i % 26) for i in range(500)]
SIZE = (120, 36)
ROOT = Path(__file__).resolve().parent.parent


def example_seat() -> Path:
    """A scratch copy of the grown example seat (the bench never writes the bundled one)."""
    target = Path(tempfile.mkdtemp(prefix="seat-curator-bench-")) / "memory"
    source = resources.files("examples").joinpath("seats", "wren", "memory")
    target.mkdir(parents=True)
    for item in source.iterdir():
        if item.name.endswith(".md"):
            (target / item.name).write_bytes(item.read_bytes())
    return target


async def type_into_curator(memory_dir: Path) -> float:
    from curator.app import CuratorApp

    app = CuratorApp(memory_dir)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        start = time.perf_counter()
        await pilot.press(*KEYS)
        elapsed = time.perf_counter() - start
        assert app.screen.query_one("#meter").reading.bytes == len((memory_dir / "MEMORY.md").read_bytes()) + 500
    return elapsed


async def type_into_bare(text: str) -> float:
    from textual.app import App
    from textual.widgets import TextArea

    class Bare(App):
        def compose(self):
            yield TextArea(text, soft_wrap=True, show_line_numbers=True)

    app = Bare()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        start = time.perf_counter()
        await pilot.press(*KEYS)
        elapsed = time.perf_counter() - start
    return elapsed


def typing() -> dict:
    seat = example_seat()
    os.environ["XDG_STATE_HOME"] = str(seat.parent / "state")
    text = (seat / "MEMORY.md").read_text(encoding="utf-8")
    measured, baseline = [], []
    try:
        for _ in range(3):
            baseline.append(asyncio.run(type_into_bare(text)))
            measured.append(asyncio.run(type_into_curator(seat)))
    finally:
        shutil.rmtree(seat.parent, ignore_errors=True)
    m, b = min(measured), min(baseline)
    return {"name": "app: type 500 chars in the index editor vs bare TextArea", "measured_s": m, "baseline_s": b,
            "ratio": m / b, "goal": "<= 1.25", "note": f"{len(text.encode()):,} B index; fastest of 3"}


# Each process prints the seconds from its first line (before any import) to the first paint of the
# screen: the index screen with MEMORY.md loaded, or the bare app's only screen.
CURATOR_START = """
import time; t0 = time.perf_counter()
import asyncio, sys
from curator.app import CuratorApp
from curator.screens.index import IndexScreen
async def main():
    app = CuratorApp(sys.argv[1])
    async with app.run_test(size=(120, 36)) as pilot:
        while not (isinstance(app.screen, IndexScreen) and app.screen.editor.text):
            await asyncio.sleep(0.001)
        painted = asyncio.Event()
        app.screen.call_after_refresh(painted.set)
        await painted.wait()
        print(time.perf_counter() - t0)
asyncio.run(main())
"""

BARE_START = """
import time; t0 = time.perf_counter()
import asyncio
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("hello")
async def main():
    app = Bare()
    async with app.run_test(size=(120, 36)) as pilot:
        painted = asyncio.Event()
        app.screen.call_after_refresh(painted.set)
        await painted.wait()
        print(time.perf_counter() - t0)
asyncio.run(main())
"""


def _run(code: str, *args: str) -> float:
    done = subprocess.run([sys.executable, "-c", code, *args], check=True, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return float(done.stdout.strip().splitlines()[-1])


def startup() -> dict:
    seat = example_seat()
    os.environ["XDG_STATE_HOME"] = str(seat.parent / "state")
    measured, baseline = [], []
    try:
        _run(BARE_START), _run(CURATOR_START, str(seat))  # warm the OS file cache
        for _ in range(5):
            baseline.append(_run(BARE_START))
            measured.append(_run(CURATOR_START, str(seat)))
    finally:
        shutil.rmtree(seat.parent, ignore_errors=True)
    m, b = statistics.median(measured), statistics.median(baseline)
    return {"name": "app: start-up to the index screen vs bare Textual app", "measured_s": m, "baseline_s": b,
            "ratio": m / b, "goal": "<= 1.5", "note": "process start to first paint, imports included; median of 5"}


ROWS = [typing, startup]
