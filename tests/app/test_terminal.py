"""The app in a real terminal: tmux runs `seat-curator demo`, keys go in as a terminal sends them
(function keys as escape sequences, ctrl+ keys as control bytes), and the screen is read back with
capture-pane. Pilot cannot catch a key a terminal delivers differently (alt+z arrives as ESC then z).

Skipped with its reason where tmux is missing, except under CI (``CI`` set), where it must run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
if TMUX is None and not os.environ.get("CI"):
    pytest.skip("tmux is not installed (apt-get install tmux); CI installs it and runs this test",
                allow_module_level=True)

WIDTH, HEIGHT = 160, 40


def seat_curator() -> str:
    """The console script of the environment running the tests (a venv's bin), else PATH's."""
    here = Path(sys.executable).parent / "seat-curator"
    found = str(here) if here.exists() else shutil.which("seat-curator")
    assert found, "seat-curator is not installed in this environment"
    return found


class Terminal:
    """One tmux session on a private socket (never the user's server)."""

    def __init__(self, tmp_path: Path, command: str):
        self.socket = f"seat-curator-test-{os.getpid()}-{tmp_path.name}"
        self.env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"),
                    "XDG_CONFIG_HOME": str(tmp_path / "config"), "TERM": "xterm-256color"}
        for name in ("NO_COLOR", "TEXTUAL_THEME", "TMUX"):
            self.env.pop(name, None)
        self.tmux("new-session", "-d", "-s", "app", "-x", str(WIDTH), "-y", str(HEIGHT),
                  f"{command}; echo EXIT=$?; sleep 60")

    def tmux(self, *args: str) -> str:
        return subprocess.run([TMUX, "-L", self.socket, *args], env=self.env, check=True,
                              capture_output=True, text=True).stdout

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "app", *keys)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app")

    def wait_for(self, text: str, *, gone: bool = False) -> str:
        """Poll the screen until ``text`` is on it (or, with ``gone``, off it): the app's state decides;
        the deadline only turns a hang into a readable failure."""
        deadline = time.monotonic() + 60
        while True:
            screen = self.screen()
            if (text in screen) != gone:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"waited for {text!r}{' to go' if gone else ''}; the screen:\n{screen}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], env=self.env, capture_output=True)


@pytest.fixture
def demo(tmp_path):
    from curator.demo import GROWN, build_demo

    built = build_demo(tmp_path / "demo")  # what `seat-curator demo --dir` reopens as it is
    index = built.memory_dir(GROWN) / "MEMORY.md"
    terminal = Terminal(tmp_path, f"{seat_curator()} demo --dir {tmp_path / 'demo'}")
    try:
        yield terminal, index, GROWN
    finally:
        terminal.close()


def test_demo_in_tmux_preview_key_unsaved_prompt_and_undo_change(demo):
    terminal, index, resident = demo
    original = index.read_bytes()
    terminal.wait_for("f4 Preview")  # the footer of the index screen, the editor focused
    terminal.wait_for(f"{resident} · ")  # its title (the path behind it may be cut at the edge)

    terminal.send("F4")  # the re-provision preview, right after start-up, from the editor's focus
    screen = terminal.wait_for("Re-provision preview ·")
    assert index.read_bytes() == original  # nothing typed into the memory
    terminal.send("Escape")
    terminal.wait_for("Re-provision preview ·", gone=True)
    terminal.wait_for("f2 Switch pane")

    terminal.send("F2")  # the seat opened over the fleet with focus in its panels: F2 to the editor
    terminal.wait_for("^f Find")
    terminal.send("x")  # an unsaved edit
    terminal.wait_for("● unsaved")
    terminal.send("C-q")
    screen = terminal.wait_for("Unsaved edits in")
    assert "Save (s)" in screen and "Discard (d)" in screen and "Cancel (esc)" in screen
    terminal.send("Escape")  # cancel: the app stays, the edit too
    terminal.wait_for("Unsaved edits in", gone=True)
    assert "● unsaved" in terminal.screen()

    terminal.send("C-s")
    screen = terminal.wait_for("f8 undoes the save")
    assert index.read_bytes() == b"x" + original
    terminal.send("F8")  # undo the change (the save) through the journal
    terminal.wait_for("Undid: edit MEMORY.md")
    assert index.read_bytes() == original

    terminal.send("C-q")  # nothing unsaved: quits at once
    screen = terminal.wait_for("EXIT=")
    assert "EXIT=0" in screen


def test_demo_in_tmux_q_after_opening_a_seat_never_types_into_memory(demo):
    """The fleet's footer says q Quit; the seat opened from it starts in its panels, so the next q goes
    back to the fleet instead of typing a q into MEMORY.md."""
    terminal, index, resident = demo
    original = index.read_bytes()
    screen = terminal.wait_for("demo seat")  # the first screen says it is the demo's, with a fleet behind
    assert "● unsaved" not in screen
    terminal.wait_for("Switch pane")
    terminal.send("q")  # from the seat the demo opened: back to the fleet
    terminal.wait_for("Demo fleet")
    terminal.wait_for("demo seat", gone=True)
    assert index.read_bytes() == original

    terminal.send("/")  # find the same seat in the fleet and open it again
    terminal.send(*resident.lstrip("@").split("-")[-1])
    terminal.send("Escape")
    terminal.send("o")
    terminal.wait_for("demo seat")
    terminal.send("q")  # at once, as the fleet's footer taught
    terminal.wait_for("demo seat", gone=True)
    assert "● unsaved" not in terminal.screen()
    assert index.read_bytes() == original
    terminal.send("q")  # the fleet panel: quits
    assert "EXIT=0" in terminal.wait_for("EXIT=")
