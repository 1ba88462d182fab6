"""A scripted agent for race tests: it waits at a store stop point (fsio.STOP_ENV and a FIFO, no
sleeps), rewrites one file from the copy it read earlier, the way agents write, then lets the
writer it raced go on."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from collections.abc import Iterator

import pytest

from curator import fsio

STYLES = ("truncate", "rename")  # open('w') / fs.writeFile in place, or a temp file renamed over it


class Agent(threading.Thread):
    """Waits at ``fifo`` for the writer to reach the stop point, writes ``content`` to ``target``
    in its ``style``, then lets the writer go on. ``struck`` says whether the moment came."""

    def __init__(self, fifo: Path, target: Path, content: bytes, style: str):
        super().__init__(daemon=True)
        self.fifo, self.target, self.content, self.style = fifo, target, content, style
        self.struck = False

    def run(self) -> None:
        with open(self.fifo) as pipe:
            if not pipe.read():  # closed by ``release``: the writer never reached the point
                return
        if self.style == "truncate":
            with open(self.target, "wb") as handle:  # truncate, then write
                handle.write(self.content)
        else:
            aside = self.target.with_name(f".{self.target.name}.agent-save")
            aside.write_bytes(self.content)
            os.rename(aside, self.target)
        self.struck = True
        with open(self.fifo, "w"):  # the writer waits for this end to close
            pass

    def release(self) -> None:
        """End the wait of an agent whose moment never came."""
        try:
            fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # no reader: the agent is done already
            return
        os.close(fd)


@contextlib.contextmanager
def agent_at(stop: str, fifo: Path, target: Path, content: bytes, style: str,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[Agent]:
    """Run the body with an agent that writes ``target`` at the stop point ``stop``
    ("<point>[@<file name>][#<n>]", see fsio.stop_point)."""
    os.mkfifo(fifo)
    agent = Agent(fifo, target, content, style)
    agent.start()
    monkeypatch.setenv(fsio.STOP_ENV, f"{stop}:{fifo}")
    try:
        yield agent
    finally:
        monkeypatch.delenv(fsio.STOP_ENV)
        agent.release()
        agent.join(60)
