"""Hostile files and a hostile file system: FIFOs, devices, symlink loops, over-long paths, denied
search permission, a full disk, and temp files a kill leaves in the state dir.

Each ends in one coded line on stderr naming the file, no traceback, and every file as it was.
Commands that could block run in a subprocess with a timeout, so a regression fails instead of
hanging the suite.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from curator import fsio
from curator.change import Change
from curator.cli import main
from curator.errors import InputError
from curator.index_model import parse_index
from curator.store import SeatStore, seat_state

INDEX = (
    "# Seat memory index\n\n## Craft hooks\n"
    "- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays.\n"
    "- Always deploy with `make ship`, never on Fridays; ask ops first (see #4412).\n"
)
ARCHIVE = "# Archive\n\n## Craft hooks\n- an old lesson · archived 2026-11-01\n"


@pytest.fixture
def seat(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "deploy.md").write_text("# Deploy\n")
    return memory


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 1, err
    assert err.count("\n") == 1 and err.startswith("seat-curator: ") and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


def first_id(memory: Path, capsys) -> str:
    code, out, _ = run(capsys, "check", memory, "--json")
    return json.loads(out)["entries"][0]["id"]


# -- special files ---------------------------------------------------------------------------

def cli_with_timeout(*argv, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "curator", *map(str, argv)], capture_output=True,
                          text=True, timeout=30, env=env)


@pytest.mark.parametrize("fifo, commands", [
    ("MEMORY.md", [["check"], ["candidates"], ["archive", "aaaaaa"], ["undo"], ["trim"]]),
    ("identity.md", [["check"]]),
    ("ARCHIVE.md", [["archive-search", "lesson"], ["archive", "{id}"], ["restore", "aaaaaa"]]),
])
def test_a_fifo_is_refused_in_one_line_and_never_blocks(seat, capsys, fifo, commands):
    entry = first_id(seat, capsys)
    path = seat / fifo
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    before = snapshot(seat)
    for command in commands:
        argv = [command[0], seat, *[entry if a == "{id}" else a for a in command[1:]]]
        done = cli_with_timeout(*argv, env=os.environ)  # a blocking read fails here after 30 s
        one_line_error(done.returncode, done.stderr, str(path), "FIFO")
    assert snapshot(seat) == before


def test_memory_md_linked_to_dev_zero_is_refused(seat, capsys):
    (seat / "MEMORY.md").unlink()
    (seat / "MEMORY.md").symlink_to("/dev/zero")
    done = cli_with_timeout("check", seat)  # check reads through a symlink, so the device is what it sees
    one_line_error(done.returncode, done.stderr, "MEMORY.md", "character device")
    done = cli_with_timeout("candidates", seat)  # the levers never read through one
    one_line_error(done.returncode, done.stderr, "MEMORY.md", "symlink")


def test_the_size_cap_counts_the_bytes_read_not_what_fstat_said(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"x" * 10)
    handle = fsio.open_regular(path)
    with handle:
        with open(path, "ab") as grow:  # grows after the open, as /proc files or a racing writer do
            grow.write(b"y" * 100)
        with pytest.raises(InputError, match="safety limit"):
            fsio.read_open(handle, path, max_bytes=50)
        assert fsio.read_open(handle, path, max_bytes=110) == b"x" * 10 + b"y" * 100


# -- OS errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["check"], ["candidates"], ["merge", "aaaaaa", "bbbbbb"], ["undo"]])
def test_a_symlink_loop_as_the_memory_dir_is_one_line(tmp_path, capsys, monkeypatch, command):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    code, _, err = run(capsys, command[0], tmp_path / "loop", *command[1:])
    one_line_error(code, err, str(tmp_path / "loop"), "ELOOP")


@pytest.mark.parametrize("command", [["check"], ["candidates"], ["undo"]])
def test_a_symlink_loop_as_memory_md_is_one_line(seat, capsys, command):
    (seat / "MEMORY.md").unlink()
    (seat / "MEMORY.md").symlink_to(seat / "MEMORY.md")
    code, _, err = run(capsys, command[0], seat)
    one_line_error(code, err, "MEMORY.md")


@pytest.mark.parametrize("command", [["check"], ["candidates"], ["archive", "aaaaaa"], ["undo"]])
def test_a_path_over_4096_bytes_is_one_line(seat, capsys, command):
    long = Path(str(seat) + "/../memory" * 450)  # names the seat, but is too long to pass to the kernel
    assert len(str(long)) > 4096
    code, _, err = run(capsys, command[0], long, *command[1:])
    assert "Traceback" not in err and err.count("\n") <= 1, err
    if code == 1:  # a command that resolves the path first may still reach the seat: that is fine too
        assert "ENAMETOOLONG" in err or "no entry with id" in err or "nothing to undo" in err, err


def test_a_directory_without_search_permission_is_one_line(seat, capsys, monkeypatch):
    (seat / "notes").mkdir()
    store = SeatStore.open(seat)
    store.apply(Change("add a detail file", {"notes/deep.md": b"# Deep\n"}))  # undo will look it up
    before = snapshot(seat)
    real = os.stat
    if os.geteuid() != 0:
        (seat / "notes").chmod(0)
    else:  # root searches everything: refuse the lookup the way the kernel would refuse another user

        def stat(path, *args, **kwargs):
            if str(path).startswith(str(seat / "notes") + "/"):
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return real(path, *args, **kwargs)

        monkeypatch.setattr(os, "stat", stat)
    try:
        code, _, err = run(capsys, "undo", seat)
    finally:
        monkeypatch.setattr(os, "stat", real)
        (seat / "notes").chmod(0o755)
    one_line_error(code, err, "deep.md", "EACCES")
    assert snapshot(seat) == before


def full_disk(monkeypatch, where):
    """fsync raises ENOSPC for files under ``where`` (the write of their bytes did not fit)."""
    real = os.fsync

    def fsync(fd):
        target = os.readlink(f"/proc/self/fd/{fd}")
        if target.startswith(str(where)):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return real


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc to tell which file is synced")
def test_undo_on_a_full_disk_is_one_line_naming_the_file_and_changes_nothing(seat, capsys, monkeypatch):
    assert run(capsys, "archive", seat, first_id(seat, capsys))[0] == 0
    archived = snapshot(seat)
    real = full_disk(monkeypatch, seat)
    code, _, err = run(capsys, "undo", seat)
    one_line_error(code, err, "SAVE_FAILED", "ENOSPC", str(seat))
    assert "MEMORY.md" in err or "ARCHIVE.md" in err
    assert snapshot(seat) == archived
    monkeypatch.setattr(os, "fsync", real)
    assert run(capsys, "undo", seat)[0] == 0  # nothing was lost: the undo still works once there is room
    assert (seat / "MEMORY.md").read_text() == INDEX


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc to tell which file is synced")
def test_a_save_on_a_full_disk_names_the_file(seat, capsys, monkeypatch):
    full_disk(monkeypatch, seat)
    before = snapshot(seat)
    code, _, err = run(capsys, "archive", seat, first_id(seat, capsys))
    one_line_error(code, err, "SAVE_FAILED", "ENOSPC")
    assert str(seat / "ARCHIVE.md") in err or str(seat / "MEMORY.md") in err
    assert snapshot(seat) == before


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc to tell which file is synced")
def test_a_full_state_dir_names_the_journal_and_changes_nothing(seat, capsys, monkeypatch, tmp_path):
    entry = first_id(seat, capsys)
    SeatStore.open(seat)  # the state dir exists; the disk fills up after
    full_disk(monkeypatch, tmp_path / "xdg")
    before = snapshot(seat)
    code, _, err = run(capsys, "archive", seat, entry)
    one_line_error(code, err, "SAVE_FAILED", "ENOSPC", str(tmp_path / "xdg"))
    assert snapshot(seat) == before


# -- temp files a kill leaves in the state dir ---------------------------------------------------

# The child stalls while syncing its first undo copy in the state dir's blobs/; the parent kills it.
CHILD = textwrap.dedent(
    """
    import os, sys, time
    from curator.change import Change
    from curator.store import SeatStore

    memory, blobs = sys.argv[1], sys.argv[2]
    real_fsync = os.fsync

    def slow_fsync(fd):
        if os.readlink(f"/proc/self/fd/{fd}").startswith(blobs + "/."):
            print("STALLED", flush=True)
            time.sleep(60)
        return real_fsync(fd)

    os.fsync = slow_fsync
    store = SeatStore.open(memory)
    base = store.read("MEMORY.md")
    store.apply(Change("grow", {"MEMORY.md": base + b"- " + b"x" * 100_000 + b"\\n"}))
    """
)


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc to find the temp file")
def test_temp_files_a_kill_leaves_in_the_state_dir_are_reported_then_cleaned(seat, capsys, tmp_path):
    store = SeatStore.open(seat)
    blobs = store.state_dir / "blobs"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(seat), str(blobs)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=os.environ)
    try:
        assert child.stdout.readline() == b"STALLED\n", child.stderr.read()
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
        child.stderr.close()
    [temp] = [p for p in blobs.iterdir() if p.name.endswith(".tmp")]
    old = time.time() - 3600
    os.utime(temp, (old, old))
    # Not ours to remove: a look-alike without the store's temp naming, and a temp newer than the
    # operation that cleans (a store operation running at that moment could own it).
    (blobs / ".notes").write_text("not a temp file")
    fresh = blobs / ".abcdef.zzzzzzzz.tmp"
    fresh.write_text("newer")
    os.utime(fresh, (time.time() + 3600, time.time() + 3600))

    [(path, size)] = seat_state(seat).leftovers
    assert (path, size) == (temp, temp.stat().st_size) and size > 0
    code, out, _ = run(capsys, "check", seat, "--json")
    assert any(str(temp) in w and f"{size:,} B" in w for w in json.loads(out)["warnings"])
    assert (seat / "MEMORY.md").read_text() == INDEX

    SeatStore.open(seat)  # the next store operation, under the lock
    assert not temp.exists()
    assert (blobs / ".notes").exists() and fresh.exists()
    assert seat_state(seat).leftovers == ()


def test_a_memory_dir_whose_path_is_not_utf8_is_saved_undone_and_checked(tmp_path):
    """Linux paths are bytes: a seat under a directory named in Latin-1 (or any non-UTF-8 bytes)
    must save, journal, undo and check like any other, not end in a UnicodeEncodeError."""
    memory = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9-seat"))
    memory.mkdir()
    index = b"# Index\n\n## Notes\n- first lesson kept\n- second lesson to archive\n"
    (memory / "MEMORY.md").write_bytes(index)
    state = tmp_path / "state"
    # PYTHONIOENCODING: stdout as in a UTF-8 locale (strict), where printing such a path fails
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "xdg"), "PYTHONIOENCODING": "utf-8"}

    def cli(*argv):
        done = subprocess.run([sys.executable, "-m", "curator", *map(str, argv)], capture_output=True,
                              timeout=30, env=env)
        assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
        return done

    archived = cli("archive", memory, parse_index(index).entries[1].id, "--state-dir", state)
    assert archived.returncode == 0, archived.stderr
    assert os.fsencode(str(memory)) in archived.stdout  # the undo hint names the dir as its bytes
    assert b"second lesson" in (memory / "ARCHIVE.md").read_bytes()
    undone = cli("undo", memory, "--state-dir", state)
    assert undone.returncode == 0, undone.stderr
    assert (memory / "MEMORY.md").read_bytes() == index and not (memory / "ARCHIVE.md").exists()
    for argv in (["check", memory], ["check", memory, "--json"]):
        assert cli(*argv).returncode == 0


def deny_search(monkeypatch, directory: Path) -> None:
    """As if ``directory`` had no search permission: looking up or opening anything inside it
    fails with EACCES (chmod alone cannot show it: root, which runs CI here, passes every check)."""
    inside = str(directory) + os.sep
    for name in ("open", "lstat", "stat"):
        real = getattr(os, name)

        def denied(path, *args, _real=real, **kwargs):
            if os.fspath(path).startswith(inside):
                raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, denied)


def test_undo_copies_that_cannot_be_looked_up_are_a_permission_error_not_a_lost_version(seat, capsys, monkeypatch):
    """An undo copy behind a directory without search permission is named as such, never reported
    as "the undo journal lost a saved version" (os.path.lexists says False for EACCES too)."""
    state = seat.parent / "state"
    assert run(capsys, "archive", seat, first_id(seat, capsys), "--state-dir", state)[0] == 0
    before = {p.name: p.read_bytes() for p in seat.iterdir()}
    deny_search(monkeypatch, state / "blobs")
    code, _out, err = run(capsys, "undo", seat, "--state-dir", state)
    assert code == 1 and err.count("\n") == 1 and "EACCES" in err and "lost" not in err, err
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in seat.iterdir()} == before


def test_a_journal_that_cannot_be_looked_up_is_a_problem_check_reports(seat, monkeypatch):
    """check must not take a journal it cannot look up for no journal (and so no interrupted
    change): seat_state reports the problem."""
    state = seat.parent / "state"
    assert main(["archive", str(seat), parse_index((seat / "MEMORY.md").read_bytes()).entries[0].id,
                 "--state-dir", str(state)]) == 0
    deny_search(monkeypatch, state)
    found = seat_state(seat, state_dir=state)
    assert found.problem is not None and "EACCES" in found.problem and "journal.json" in found.problem
