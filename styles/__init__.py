"""Textual stylesheets (.tcss) of the curator, shipped as package data."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def path(name: str) -> Path:
    """The installed path of one stylesheet, e.g. ``path("index.tcss")``."""
    return HERE / name
