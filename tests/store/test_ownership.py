"""A lever run as root on a seat owned by the agent's user leaves every file the user's: owner,
group, mode and extended attributes survive the replace, and a file the lever creates belongs to
the memory dir's owner. Run as root (CI and this machine are); skipped otherwise."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from curator.change import Change
from curator.cli import main
from curator.index_model import parse_index
from curator.store import SeatStore

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")

USER, GROUP = 1000, 1000  # not root: the agent's own user
INDEX = (b"# Seat memory index\n\n## Craft hooks\n- first lesson: keep fixtures small\n"
         b"- second lesson: assert what the user sees\n")


@pytest.fixture
def users_seat(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    memory = tmp_path / "memory"
    memory.mkdir()
    index = memory / "MEMORY.md"
    index.write_bytes(INDEX)
    os.chown(memory, USER, GROUP)
    os.chown(index, USER, GROUP)
    index.chmod(0o640)
    os.setxattr(index, "user.seat-tag", b"kept by the bearer")
    return memory


def ownership(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)


def test_a_save_undo_and_redo_as_root_keep_the_users_owner_mode_and_attributes(users_seat):
    index = users_seat / "MEMORY.md"
    store = SeatStore.open(users_seat)
    store.apply(Change("edit", {"MEMORY.md": store.read("MEMORY.md") + b"- third lesson\n"}))
    for step in (lambda: None, store.undo, store.redo):
        step()
        assert ownership(index) == (USER, GROUP, 0o640)
        assert os.getxattr(index, "user.seat-tag") == b"kept by the bearer"
    assert index.read_bytes().endswith(b"- third lesson\n")


def test_a_file_a_lever_creates_as_root_belongs_to_the_memory_dirs_owner(users_seat, capsys):
    first = parse_index(INDEX).entries[0].id
    code = main(["archive", str(users_seat), first])
    assert code == 0, capsys.readouterr()
    archive = users_seat / "ARCHIVE.md"
    assert b"first lesson" in archive.read_bytes() and b"first lesson" not in (users_seat / "MEMORY.md").read_bytes()
    assert ownership(archive)[:2] == (USER, GROUP)
    assert ownership(users_seat / "MEMORY.md") == (USER, GROUP, 0o640)
