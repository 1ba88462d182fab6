"""Writing a small tree of text files for a test."""

from __future__ import annotations

from pathlib import Path


def write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return directory
