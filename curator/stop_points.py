"""Named points where a test can stop a running write (tests only; nothing happens unless
``STOP_ENV`` is set): the process says it reached the point through a FIFO and waits there, so a
test acts at exactly that moment, or kills the process there, without a sleep."""

from __future__ import annotations

import os

STOP_ENV = "SEAT_CURATOR_STOP_AT"  # "<point>[@<file name>][#<n>]:<fifo>"


def stop_point(point: str, target: str | None = None) -> None:
    """Tests only (``STOP_ENV`` = "<point>[@<file name>][#<n>]:<fifo>"): at ``point`` (only for the
    file named, if one is; only the n-th time, if n is given), say so through the FIFO, then wait on it until
    the test closes its end (a test that never does kills the process there), so a test can act at
    exactly this point without a sleep."""
    wanted = os.environ.get(STOP_ENV)
    if not wanted:
        return
    spec, _, fifo = wanted.partition(":")
    where, _, nth = spec.partition("#")
    name, _, file_name = where.partition("@")
    if name != point or (file_name and file_name != target):
        return
    _STOP_HITS[wanted] = hits = _STOP_HITS.get(wanted, 0) + 1
    if hits != int(nth or hits):
        return
    with open(fifo, "w") as signal_pipe:  # blocks until the test opens the other end
        signal_pipe.write(point + "\n")
    with open(fifo) as resume:  # returns once the test has opened and closed its writing end
        resume.read()


_STOP_HITS: dict[str, int] = {}  # how often each STOP_ENV spec was reached in this process
