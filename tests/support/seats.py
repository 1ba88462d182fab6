"""Helpers shared by the core tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from curator import fsio


def deny_read(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``path`` unreadable: chmod 0 for a normal user; root reads everything, so there the open
    in curator.fsio is refused the way the kernel would refuse another user's 0600 file."""
    if os.geteuid() != 0:
        path.chmod(0)
        return
    target = str(path)
    real_open = open

    def guarded_open(file, *args, **kwargs):
        if str(file) == target:
            raise PermissionError(13, "Permission denied", target)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(fsio, "open", guarded_open, raising=False)


def restore_read(path: Path) -> None:
    path.chmod(0o644)


def seat(directory: Path, index: bytes, **files: str) -> Path:
    """A memory directory holding ``index`` as MEMORY.md and ``files`` (name -> UTF-8 text) beside it."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "MEMORY.md").write_bytes(index)
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory
