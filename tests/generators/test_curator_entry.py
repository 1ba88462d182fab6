"""The seat's own curator MCP server in the curated matrix: on by default for every harness, with the
cap guard beside it on kimi-code and claude-code; a resident turns both off; the manifest names the
interpreter; a catalog entry of that name replaces the built-in one."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import json5

from generators import claude, composer, layout
from generators.manifest import parse_manifest
from tests.support.fleets import BASE_MANIFEST, KIMI, OPENCODE, RESIDENTS

ROOT = Path("/srv/fleet")
CLAUDE = "@neo-claude-vega"
ALL = RESIDENTS + f'\n[[residents]]\nagent_id = "{CLAUDE}"\nharness = "claude-code"\nrepo = "repos/vega"\n'


def files_of(manifest: str, agent_id: str) -> dict[str, object]:
    fleet = parse_manifest(manifest, ROOT / "fleet.toml")
    return {f.path.name: f for f in composer.emit_resident(fleet, fleet.resident(agent_id), interpreter="/usr/bin/python3")}


def test_every_seat_gets_the_curator_server_on_its_memory_dir_and_the_guard_where_hooks_exist():
    manifest = 'curator_python = "/opt/venv/bin/python"\n' + BASE_MANIFEST + ALL
    for agent_id, harness in ((KIMI, "kimi-code"), (OPENCODE, "opencode"), (CLAUDE, "claude-code")):
        memory = str(layout.memory_dir(ROOT / "instances", agent_id, harness))
        files = files_of(manifest, agent_id)
        if harness == "kimi-code":
            server = json.loads(files["mcp.json"].content)["mcpServers"]["neo-mjs-seat-curator"]
            assert (server["command"], server["args"]) == ("/opt/venv/bin/python", ["-m", "curator", "mcp", memory])
            hooks = tomllib.loads(files["config.toml"].content.decode())["hooks"]
            assert [h["matcher"] for h in hooks if h["event"] == "PreToolUse"] == ["Write|Edit"]
        elif harness == "opencode":
            server = json5.loads(files["opencode.jsonc"].content)["mcp"]["neo-mjs-seat-curator"]
            assert server["command"] == ["/opt/venv/bin/python", "-m", "curator", "mcp", memory]
            assert "cap_guard_hook.py" not in files  # no shell hooks: the server's own refusal guards it
        else:
            server = json.loads(files[".mcp.json"].content)["mcpServers"]["neo-mjs-seat-curator"]
            assert server["args"] == ["-m", "curator", "mcp", memory]
            settings = json.loads(files["settings.json"].content)
            assert "mcp__neo-mjs-seat-curator" in settings["permissions"]["allow"]
            assert [e["matcher"] for e in settings["hooks"]["PreToolUse"]] == ["Write|Edit|MultiEdit"]
        if harness != "opencode":
            guard = files["cap_guard_hook.py"].content.decode()
            assert f"MEMORY_DIR = {memory!r}" in guard and "MCP_SERVER = 'neo-mjs-seat-curator'" in guard


def test_a_resident_turns_the_server_and_the_guard_off():
    off = ALL.replace('repo = "repos/vega"', 'repo = "repos/vega"\nmcp = { neo-mjs-seat-curator = false }') \
             .replace('repo = "repos/iris"', 'repo = "repos/iris"\nmcp = { neo-mjs-seat-curator = false }')
    for agent_id in (KIMI, CLAUDE):
        files = files_of(BASE_MANIFEST + off, agent_id)
        assert "cap_guard_hook.py" not in files
        assert all(b"neo-mjs-seat-curator" not in f.content and b"cap_guard" not in f.content for f in files.values())
    assert b"neo-mjs-seat-curator" in files_of(BASE_MANIFEST + off, OPENCODE)["opencode.jsonc"].content


def test_the_running_interpreter_by_default_and_a_catalog_entry_replaces_it():
    server = json.loads(files_of(BASE_MANIFEST + ALL, KIMI)["mcp.json"].content)["mcpServers"]["neo-mjs-seat-curator"]
    assert server["command"] == sys.executable  # as started: a venv's python has seat-curator installed
    own = BASE_MANIFEST + '\n[mcp.neo-mjs-seat-curator]\ncommand = "seat-curator"\nargs = ["mcp"]\n' + ALL
    servers = json.loads(files_of(own, CLAUDE)[".mcp.json"].content)["mcpServers"]
    assert servers["neo-mjs-seat-curator"]["command"] == "seat-curator"
    assert claude.GUARD_KEY in claude.settings_keys("neo-mjs-")


def test_auto_dream_is_off_unless_the_manifest_or_the_resident_chooses_it():
    def dream(manifest: str) -> bool:
        return json.loads(files_of(manifest, CLAUDE)["settings.json"].content)["autoDreamEnabled"]

    assert dream(BASE_MANIFEST + ALL) is False
    assert dream("auto_dream = true\n" + BASE_MANIFEST + ALL) is True
    mine = ALL.replace('repo = "repos/vega"', 'repo = "repos/vega"\nauto_dream = false')
    assert dream("auto_dream = true\n" + BASE_MANIFEST + mine) is False
    assert "autoDreamEnabled" in claude.settings_keys("neo-mjs-")  # owned: a seat that turns it on drifts
