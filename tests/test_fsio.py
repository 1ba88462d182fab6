"""The write primitives every writer shares: atomic replace, exclusive create, careful reads."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from curator.errors import InputError
from curator.fsio import TEMP_STALE_S, atomic_write, exclusive_create, leftover_temps, read_bytes, write_temp


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
