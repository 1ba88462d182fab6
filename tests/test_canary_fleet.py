"""Fleets for the canary tests, born by the generators from a real fleet.toml (no test functions here).

The manifest is the generator tests' own (one kimi-code and one opencode resident, and an MCP
catalog the canary must neither need nor start)."""

from __future__ import annotations

from pathlib import Path

from generators.composer import apply_fleet
from generators.manifest import Fleet, load_manifest
from test_gen_fixtures import KIMI, OPENCODE, write_fleet

__all__ = ["KIMI", "OPENCODE", "born_fleet", "write_fleet"]


def born_fleet(directory: Path) -> Fleet:
    """Write the manifest and provision every seat, as `seat-curator provision` would."""
    fleet = load_manifest(write_fleet(directory))
    apply_fleet(fleet)
    return fleet
