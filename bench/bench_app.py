"""App benchmarks, each side by side with a bare Textual baseline in the same run.

- typing: 500 characters typed through Pilot into the index editor of the demo's grown seat
  (``examples/seats/wren``, ~18 KB, over the target) — with the live byte meter re-measured on every
  key and the full analysis debounced — against the same 500 keys into a bare app holding only a
  ``TextArea`` with the same text. Fastest of 3 runs each, interleaved. Goal: ratio <= 1.25. A second
  row types with the Claude Code profile (the meter also counts that harness's own budget per key).
- start-up: ``seat-curator tui MEMORY_DIR`` spawned in a pseudo-terminal (120x36), timed to the first
  frame written that shows the index (a line of MEMORY.md in the editor), against a bare Textual app
  with one ``Static`` spawned the same way and timed to the frame that shows it. Imports included
  (that is what a user waits for), from cached bytecode on both sides, as an installed copy runs. A
  second row times ``CuratorApp`` without the CLI dispatcher in the same rounds, so the CLI's own
  share shows. Median of 7, interleaved. Goal: ratio <= 1.5.
"""

from __future__ import annotations

import asyncio
import compileall
import fcntl
import os
import pty
import re
import select
import signal
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from importlib import resources
from pathlib import Path

KEYS = [chr(ord("a") + i % 26) for i in range(500)]
SIZE = (120, 36)
ROOT = Path(__file__).resolve().parent.parent


def example_seat() -> Path:
    """A scratch copy of the grown example seat (the bench never writes the bundled one)."""
    target = Path(tempfile.mkdtemp(prefix="seat-curator-bench-")) / "memory"
    source = resources.files("curator").joinpath("examples", "seats", "wren", "memory")
    target.mkdir(parents=True)
    for item in source.iterdir():
        if item.name.endswith(".md"):
            (target / item.name).write_bytes(item.read_bytes())
    return target


async def type_into_curator(memory_dir: Path, profile: str | None = None) -> float:
    from curator.app import CuratorApp

    app = CuratorApp(memory_dir, profile=profile)
    async with app.run_test(size=SIZE) as pilot:
        while not app.screen.is_settled():  # the panels and the first analysis come after the first frame
            await pilot.pause(0.01)
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


def typing(profile: str | None = None) -> dict:
    seat = example_seat()
    os.environ["XDG_STATE_HOME"] = str(seat.parent / "state")
    text = (seat / "MEMORY.md").read_text(encoding="utf-8")
    measured, baseline = [], []
    try:
        for _ in range(3):
            baseline.append(asyncio.run(type_into_bare(text)))
            measured.append(asyncio.run(type_into_curator(seat, profile)))
    finally:
        shutil.rmtree(seat.parent, ignore_errors=True)
    m, b = min(measured), min(baseline)
    seat_kind = " (claude-code: + its budget line)" if profile else ""
    return {"name": f"app: type 500 chars in the index editor{seat_kind} vs bare TextArea", "measured_s": m, "baseline_s": b,
            "ratio": m / b, "goal": "<= 1.25", "note": f"{len(text.encode()):,} B index; fastest of 3"}


# Start-up is timed as a person sees it: each command runs in its own pseudo-terminal (120x36) and
# the clock stops when the first frame holding the screen's content has been written to it — a line
# of MEMORY.md in the index editor, or the bare app's only label. Same terminal, same Python, same
# point, for both sides; the processes are killed once timed.
BARE_APP = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("hello from a bare app")
Bare().run()
"""
BARE_MARKER = b"hello from a bare app"
DIRECT_APP = "import sys\nfrom curator.app import run_app\nrun_app(sys.argv[1])"
ESCAPES = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][A-Z0-9]|[=>78cDEHMNOPZ])")


def first_frame_seconds(argv: list[str], marker: bytes, limit: float = 30.0) -> float:
    """Seconds from spawning ``argv`` in a pseudo-terminal to ``marker`` showing in its output."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, start_new_session=True,
                            env={**os.environ, "TERM": "xterm-256color"})
    os.close(slave)
    shown = b""
    try:
        while time.perf_counter() - start < limit:
            if not select.select([master], [], [], 0.02)[0]:
                continue
            try:
                shown += os.read(master, 65536)
            except OSError:  # the process ended
                break
            if marker in ESCAPES.sub(b"", shown):
                return time.perf_counter() - start
        raise RuntimeError(f"no first frame from {argv[:3]}: {ESCAPES.sub(b'', shown)[-300:]!r}")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)


def editor_marker(memory_dir: Path) -> bytes:
    """A line of the index that the first frame's editor shows (short enough not to wrap)."""
    line = next(line for line in (memory_dir / "MEMORY.md").read_text(encoding="utf-8").splitlines()[2:]
                if len(line) > 30)
    return line[:24].encode("utf-8")


def startup_rows(rounds: int = 7) -> tuple[dict, dict]:
    seat = example_seat()
    os.environ["XDG_STATE_HOME"] = str(seat.parent / "state")
    marker = editor_marker(seat)
    cli = [str(Path(sys.executable).with_name("seat-curator")), "tui", str(seat)]
    direct = [sys.executable, "-c", DIRECT_APP, str(seat)]
    bare = [sys.executable, "-c", BARE_APP]
    times: dict[str, list[float]] = {"cli": [], "direct": [], "bare": []}
    # Both sides load cached bytecode, as an installed copy does from its second run on: site-packages
    # (the bare app's Textual) was compiled at install, and Python writes the rest on first import,
    # unless PYTHONDONTWRITEBYTECODE is set, as on some machines, which would leave only our own
    # modules compiling from source on every spawn.
    for package in ("curator", "generators"):
        compileall.compile_dir(ROOT / package, quiet=1)
    try:
        first_frame_seconds(bare, BARE_MARKER), first_frame_seconds(cli, marker)  # warm the OS file cache
        for _ in range(rounds):  # interleaved, so load on a shared machine lands on every side
            times["bare"].append(first_frame_seconds(bare, BARE_MARKER))
            times["cli"].append(first_frame_seconds(cli, marker))
            times["direct"].append(first_frame_seconds(direct, marker))
    finally:
        shutil.rmtree(seat.parent, ignore_errors=True)
    b = statistics.median(times["bare"])
    note = f"spawn to first frame in a 120x36 pty, imports included, bytecode cached; median of {rounds}, interleaved"
    rows = []
    for key, name in (("cli", "app: start-up of `seat-curator tui DIR` vs bare Textual app"),
                      ("direct", "app: start-up of CuratorApp alone (no CLI dispatch) vs bare Textual app")):
        m = statistics.median(times[key])
        rows.append({"name": name, "measured_s": m, "baseline_s": b, "ratio": m / b, "goal": "<= 1.5", "note": note})
    return rows[0], rows[1]


_startup_cache: list = []


def startup() -> dict:
    _startup_cache[:] = startup_rows()
    return _startup_cache[0]


def startup_without_cli() -> dict:
    """The same run's second figure (measured together with ``startup``, so never re-run alone)."""
    if not _startup_cache:
        _startup_cache[:] = startup_rows()
    row = _startup_cache[1]
    _startup_cache.clear()
    return row


def typing_claude_code() -> dict:
    """The same typing with the Claude Code profile: the meter also counts that harness's budget per key."""
    return typing("claude-code")


ROWS = [typing, typing_claude_code, startup, startup_without_cli]
