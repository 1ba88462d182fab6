"""Fleets for the canary tests, born by the generators from a real fleet.toml, and a client for the
stub model.

The manifest is the generator tests' own (one kimi-code and one opencode resident, and an MCP
catalog the canary must neither need nor start)."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import tomlkit

from curator.canary.seat import seats_from_fleet
from generators.composer import apply_fleet
from generators.manifest import Fleet, load_manifest
from tests.support.fleets import KIMI, write_fleet


def born_fleet(directory: Path) -> Fleet:
    """Write the manifest and provision every seat, as `seat-curator provision` would."""
    fleet = load_manifest(write_fleet(directory))
    for resident in fleet.residents:  # a resident's repo is a checkout that exists (the harness runs in it)
        resident.repo.mkdir(parents=True, exist_ok=True)
    apply_fleet(fleet)
    return fleet


def remove_kimi_hook_pair(fleet: Fleet) -> None:
    """Break the kimi-code seat's wiring on purpose: its config.toml loses the identity-anchor pair."""
    config = seats_from_fleet(fleet, KIMI)[0].instance_home / "config.toml"
    doc = tomlkit.parse(config.read_text(encoding="utf-8"))
    assert {h["event"] for h in doc["hooks"]} == {"UserPromptSubmit", "PostCompact", "PreToolUse"}
    del doc["hooks"]
    config.write_text(tomlkit.dumps(doc), encoding="utf-8")


def post(url: str, body: bytes) -> tuple[int, bytes]:
    """POST ``body`` as JSON to ``url``: (status, response body), an HTTP error included."""
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()
