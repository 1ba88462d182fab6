"""The write primitives every writer shares: atomic replace, exclusive create, careful reads."""

from __future__ import annotations

import ast
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from curator import fsio
from curator.errors import InputError
from curator.fsio import (STOP_ENV, TEMP_NAME, TEMP_STALE_S, atomic_write, exclusive_create, leftover_temps,
                          read_bytes, remove_dead_temps, write_temp)
from tests.support.paths import REPO


def test_atomic_write_replaces_content_keeps_mode_and_leaves_no_temp(tmp_path):
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"old\n")
    target.chmod(0o600)
    atomic_write(target, b"new\r\n")
    assert target.read_bytes() == b"new\r\n"
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]


def test_atomic_write_failure_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"old\n")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic_write(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]


def test_atomic_write_refuses_a_symlink_and_leaves_both_files(tmp_path):
    real = tmp_path / "real.md"
    real.write_bytes(b"real\n")
    link = tmp_path / "MEMORY.md"
    link.symlink_to(real)
    with pytest.raises(InputError, match="symlink"):
        atomic_write(link, b"new\n")
    assert link.is_symlink() and real.read_bytes() == b"real\n"


def test_exclusive_create_never_touches_an_existing_file(tmp_path):
    target = tmp_path / "identity.md"
    assert exclusive_create(target, b"template\n") is True
    assert target.stat().st_mode & 0o777 == 0o600
    target.write_bytes(b"the bearer's own story\n")
    assert exclusive_create(target, b"template\n") is False
    assert target.read_bytes() == b"the bearer's own story\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["identity.md"]


def _symlink_to_a_real_file(path):
    (path.parent / "real.md").write_text("real\n")
    path.symlink_to(path.parent / "real.md")


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: _symlink_to_a_real_file(p), "symlink"),
        (lambda p: p.write_bytes(b"x" * 2048), "safety limit"),
    ],
)
def test_read_bytes_names_the_file_for_each_bad_input(tmp_path, make, message):
    target = tmp_path / "MEMORY.md"
    make(target)
    with pytest.raises(InputError, match=message) as caught:
        read_bytes(target, max_bytes=1024)
    assert str(target) in str(caught.value)


def test_leftover_temps_names_only_stale_temp_files_of_our_own_naming(tmp_path):
    # A real temp file from write_temp, as an interrupted save leaves it, plus look-alikes that are not.
    temp = Path(write_temp(tmp_path / "MEMORY.md", b"- unsaved lesson\n", 0o600)).name
    (tmp_path / ".notes.tmp").write_text("a user's own hidden file")
    (tmp_path / "draft.MEMORY.md.abcdefgh.tmp").write_text("no leading dot")
    (tmp_path / ".craft.md.ABCDEFGH.tmp").write_text("upper case is never mkstemp's")
    os.mkdir(tmp_path / ".dir.md.abcdefgh.tmp")
    os.symlink(tmp_path / temp, tmp_path / ".link.md.abcdefgh.tmp")
    now = os.stat(tmp_path / temp).st_mtime
    assert leftover_temps(tmp_path, now=now) == []  # a save may still be running: too fresh to tell
    assert leftover_temps(tmp_path, now=now + TEMP_STALE_S) == [(temp, "MEMORY.md")]
    assert (tmp_path / temp).read_bytes() == b"- unsaved lesson\n"  # reported, never removed
    assert leftover_temps(tmp_path / "missing", now=now) == []


# ------------------------------------------------------------------ temp files: live or dead

# A writer in another process, stopped at a named point with its temp file still open (fsio.STOP_ENV).
WRITER = """
import os, sys
from pathlib import Path
from curator import fsio
target = Path(sys.argv[1])
if sys.argv[2] == "write":
    fsio.atomic_write(target, b"new bytes\\n")
else:  # hold the target, then move it to a temp name, as an exchange does
    fd = os.open(target, os.O_RDONLY)
    fsio.hold(fd)
    os.rename(target, fsio.temp_name(target))
    fsio.stop_point("temp-written")
"""


class StoppedWriter:
    """A child process stopped inside a write; ``kill`` ends it with SIGKILL."""

    def __init__(self, tmp_path: Path, target: Path, how: str):
        fifo = tmp_path / "stop.fifo"
        os.mkfifo(fifo)
        self.pipe = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        env = {**os.environ, STOP_ENV: f"temp-written:{fifo}"}
        self.child = subprocess.Popen([sys.executable, "-c", WRITER, str(target), how], env=env,
                                      cwd=REPO, stderr=subprocess.PIPE)
        while not select.select([self.pipe], [], [], 1.0)[0]:
            assert self.child.poll() is None, self.child.stderr.read()
        assert os.read(self.pipe, 100) == b"temp-written\n"

    def kill(self) -> None:
        self.child.send_signal(signal.SIGKILL)
        self.child.wait(timeout=30)
        os.close(self.pipe)
        self.child.stderr.close()


def _temp_names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if TEMP_NAME.fullmatch(p.name))


@pytest.mark.parametrize("how", ["write", "hold"])
def test_a_live_writers_temp_file_is_left_alone_and_a_killed_ones_removed(tmp_path, how):
    target = tmp_path / "opencode.jsonc"
    target.write_bytes(b"old bytes\n")
    writer = StoppedWriter(tmp_path, target, how)
    try:
        [temp] = _temp_names(tmp_path)
        old = time.time() - 3600
        os.utime(tmp_path / temp, (old, old))  # age says nothing: only the lock tells
        assert remove_dead_temps(tmp_path, {"opencode.jsonc": None}) == []
        assert leftover_temps(tmp_path) == []  # a save under way is not an interrupted one
        assert _temp_names(tmp_path) == [temp]
    finally:
        writer.kill()
    assert leftover_temps(tmp_path) == [(temp, "opencode.jsonc")]
    assert remove_dead_temps(tmp_path, {"opencode.jsonc": None}) == [temp]
    assert _temp_names(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == (["opencode.jsonc", "stop.fifo"] if how == "write"
                                                          else ["stop.fifo"])


def test_only_dead_temp_files_of_its_own_name_and_targets_are_removed(tmp_path):
    def dead(target: str, data: bytes = b"x") -> str:
        with write_temp(tmp_path / target, data, 0o600) as temp:
            return Path(temp).name  # released at the end of the block: as a killed write leaves it

    ours, exact, other_bytes, not_a_target = dead("a.json"), dead("m.md", b"birth"), dead("n.md", b"edit"), dead("b.json")
    lookalikes = [".a.json.abcd1234.tmp",                   # earlier versions' (mkstemp's) name
                  ".a.json.ABCD1234.seat-curator.tmp",      # not lower-case hex
                  "a.json.abcd1234.seat-curator.tmp",       # no leading dot
                  ".a.json.abcd1234.seat-curator.tmp.bak"]
    for name in lookalikes:
        (tmp_path / name).write_text("someone's own")
    os.mkdir(tmp_path / ".a.json.00000000.seat-curator.tmp")
    os.symlink(tmp_path / ours, tmp_path / ".a.json.11111111.seat-curator.tmp")
    removed = remove_dead_temps(tmp_path, {"a.json": None, "m.md": b"birth", "n.md": b"birth"})
    assert sorted(removed) == sorted([ours, exact])
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(lookalikes + [other_bytes, not_a_target, ".a.json.00000000.seat-curator.tmp",
                                        ".a.json.11111111.seat-curator.tmp"])
    assert remove_dead_temps(tmp_path / "missing", {"a.json": None}) == []


def test_a_temp_file_a_cleaner_removed_before_it_was_locked_is_written_again(tmp_path, monkeypatch):
    """The one instant a live temp file is unlocked: created, not yet locked. A cleaner (another
    process) that comes then removes it; the writer sees its file is gone and starts over."""
    real_flock, cleaned = fsio.fcntl.flock, []

    def cleaner_first(fd, operation):
        if not cleaned:
            code = ("import sys; from pathlib import Path; from curator.fsio import remove_dead_temps; "
                    "print(remove_dead_temps(Path(sys.argv[1]), {'a.json': None}))")
            cleaned.append(subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                                          text=True, cwd=REPO).stdout)
        return real_flock(fd, operation)

    monkeypatch.setattr(fsio.fcntl, "flock", cleaner_first)
    atomic_write(tmp_path / "a.json", b"written\n")
    [first] = ast.literal_eval(cleaned[0])
    assert TEMP_NAME.fullmatch(first)  # the cleaner did remove the first one
    assert (tmp_path / "a.json").read_bytes() == b"written\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
