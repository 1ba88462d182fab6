"""The claude-code emitter: its files and shapes for fixed inputs (a digest pins every byte), one
content authority with the other harnesses, and plan / provision / set-aside on a born seat — the
resident's own settings stay theirs, the fleet's owned keys fail closed."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from curator.cli import main
from generators import claude, composer, layout, template
from generators.composer import CREATED, DIVERGENT, MATCH, emit_resident
from generators.errors import DivergentError
from generators.hook_format import injected_at_session_start
from generators.manifest import load_manifest, parse_manifest
from generators.projection import project
from generators.script_source import identity_hook
from tests.support.fleets import BASE_MANIFEST, tree_bytes, write_fleet
CLAUDE = "@neo-claude-vega"
FIXED_PYTHON = "/usr/bin/python3"
FIXED_MANIFEST = Path("/srv/fleet/fleet.toml")
REMOTE = """
[mcp.neo-mjs-remote]
url = "https://mcp.example.invalid/r"
headers = { Authorization = "Bearer x" }
"""
RESIDENT = f"""
[[residents]]
agent_id = "{CLAUDE}"
harness = "claude-code"
repo = "repos/vega"
"""

# sha256 over "path\0content\0" of every file the claude-code resident is born with, for the fixed
# inputs above. It changes only when the template, this emitter or the hook changes: update it deliberately.
PINNED_DIGEST = "d430f298ba31bc6fb0a37531cddffc4a266187c3c6593b8096efe145ff41169f"


def fixed_fleet(extra: str = REMOTE):
    return parse_manifest(f'curator_python = "{FIXED_PYTHON}"\n' + BASE_MANIFEST + extra + RESIDENT, FIXED_MANIFEST)


def emitted(fleet) -> dict[Path, object]:
    return {f.path: f for f in emit_resident(fleet, fleet.resident(CLAUDE), interpreter=FIXED_PYTHON)}


HOME = layout.instance_home("/srv/fleet/instances", CLAUDE, "claude-code")


def test_digest_pins_every_emitted_byte():
    files = emitted(fixed_fleet())
    assert [p.relative_to(HOME).as_posix() if HOME in p.parents else str(p) for p in files] == [
        "memory/MEMORY.md", "memory/identity.md", "memory/seat-pointers.md", "memory/about-this-layer.md",
        "settings.json", "/srv/fleet/repos/vega/.mcp.json", "hooks/identity_anchor_hook.py", "hooks/cap_guard_hook.py"]
    digest = hashlib.sha256()
    for path, item in sorted(files.items()):
        digest.update(str(path).encode() + b"\0" + item.content + b"\0")
    assert digest.hexdigest() == PINNED_DIGEST


def test_settings_json_is_plain_json_with_the_documented_shape_and_its_projection_agrees():
    files = emitted(fixed_fleet())
    item = files[HOME / "settings.json"]
    doc = json.loads(item.content)
    command = f"'{FIXED_PYTHON}' -I -S '{HOME}/hooks/identity_anchor_hook.py'"
    guard = f"'{FIXED_PYTHON}' -I -S '{HOME}/hooks/cap_guard_hook.py'"
    assert doc == {
        "$schema": "https://json.schemastore.org/claude-code-settings.json",
        "autoMemoryDirectory": f"{HOME}/memory",
        "autoDreamEnabled": False,  # the fleet default: a fleet seat's memory changes through the levers
        "hooks": {"SessionStart": [{"matcher": "startup|resume|clear|compact",
                                    "hooks": [{"type": "command", "command": command, "timeout": 5}]}],
                  "PreToolUse": [{"matcher": "Write|Edit|MultiEdit",
                                  "hooks": [{"type": "command", "command": guard, "timeout": 5}]}]},
        "permissions": {"allow": ["mcp__neo-mjs-memory-core", "mcp__neo-mjs-remote", "mcp__neo-mjs-seat-curator"]},
        "enabledMcpjsonServers": ["neo-mjs-memory-core", "neo-mjs-remote", "neo-mjs-seat-curator"],
    }
    assert item.owned == project(item.convergence, item.content, "neo-mjs-")  # the plan expects the written file
    assert tuple(item.owned) == item.owned_keys == (
        "autoMemoryDirectory", "autoDreamEnabled", "hooks.SessionStart[identity-anchor]", "hooks.PreToolUse[cap-guard]",
        "permissions.allow[mcp__neo-mjs-*]", "enabledMcpjsonServers[neo-mjs-*]")
    assert item.mode == 0o600


def test_mcp_json_in_the_repo_and_a_disabled_server_appears_nowhere():
    files = emitted(fixed_fleet())
    item = files[Path("/srv/fleet/repos/vega/.mcp.json")]
    doc = json.loads(item.content)
    assert doc == {"mcpServers": {
        "neo-mjs-memory-core": {"type": "stdio", "command": "node", "args": ["server.js", "--stdio"],
                                "env": {"TOKEN": "t0k"}},
        "neo-mjs-remote": {"type": "http", "url": "https://mcp.example.invalid/r",
                           "headers": {"Authorization": "Bearer x"}},
        "neo-mjs-seat-curator": {"type": "stdio", "command": FIXED_PYTHON,
                                 "args": ["-m", "curator", "mcp", f"{HOME}/memory"], "env": {}}}}
    assert item.owned == project(item.convergence, item.content, "neo-mjs-")
    everything = b"".join(f.content for f in files.values())
    assert b"switched-off" not in everything  # the catalog's disabled server


def test_the_hook_is_the_shared_script_for_identity_md_only_and_prints_it_at_session_start(tmp_path):
    files = emitted(fixed_fleet())
    hook = files[HOME / "hooks" / "identity_anchor_hook.py"]
    assert hook.content == identity_hook("claude-code", HOME / "memory", HOME, ("identity.md",))
    assert hook.mode == 0o700 and hook.convergence == "whole-file"
    # Run it as settings.json runs it: the command through a shell, Claude Code's payload on stdin.
    fleet = load_manifest(write_fleet(tmp_path / "fleet", residents=RESIDENT))
    composer.apply_fleet(fleet, interpreter=None)
    home = layout.instance_home(fleet.instance_root, CLAUDE, "claude-code")
    command = json.loads((home / "settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    payload = {"session_id": "s", "transcript_path": "/t", "cwd": "/x", "hook_event_name": "SessionStart",
               "source": "compact"}
    result = subprocess.run(command, shell=True, input=json.dumps(payload).encode(), capture_output=True, timeout=30,
                            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    identity = (home / "memory" / "identity.md").read_bytes()
    assert result.returncode == 0
    assert result.stdout == injected_at_session_start(str(home / "memory"), {"identity.md": identity}, "compact")
    assert b"Seat memory index" not in result.stdout  # MEMORY.md is native: never printed twice


def test_one_content_authority_with_its_own_loading_line():
    claude_text, kimi_text = template.memory_md("claude-code"), template.memory_md("kimi-code")
    loading = [line for line in claude_text.splitlines() if "**Loading:**" in line]
    assert len(loading) == 1 and "autoMemoryDirectory" in loading[0] and "25,000 characters" in loading[0]
    assert "SessionStart" in loading[0]
    def strip(text):
        return [line for line in text.splitlines() if "**Loading:**" not in line]
    assert strip(claude_text) == strip(kimi_text)
    about = template.about_this_layer_md("claude-code")
    assert "## How it loads on claude-code" in about and "It never prints MEMORY.md" in about
    assert "Persistence without reload is a no-op" in about


# ------------------------------------------------------------------------------ plan and provision


@pytest.fixture
def born(tmp_path):
    fleet = load_manifest(write_fleet(tmp_path / "fleet", residents=RESIDENT))
    plans = composer.apply_fleet(fleet)
    assert [a.status for a in plans[0].artifacts] == [CREATED] * 8
    return fleet


def artifact(fleet, name: str):
    plan = composer.plan_fleet(fleet)[0]
    return next(a for a in plan.artifacts if a.path.name == name)


def settings_path(fleet) -> Path:
    return layout.instance_home(fleet.instance_root, CLAUDE, "claude-code") / "settings.json"


def test_born_seat_matches_and_the_residents_own_settings_stay_theirs(born):
    assert composer.plan_exit_code(composer.plan_fleet(born)) == 0
    path = settings_path(born)
    doc = json.loads(path.read_text())
    doc["model"] = "claude-opus-4-1"
    doc["env"] = {"MY_VAR": "1"}
    doc["hooks"]["SessionStart"].append({"hooks": [{"type": "command", "command": "my-own-hook"}]})
    doc["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "notify"}]}]
    doc["permissions"]["allow"].append("Bash(git status)")
    doc["permissions"]["deny"] = ["Read(./.env)"]
    doc["enabledMcpjsonServers"].append("my-private-server")
    path.write_text(json.dumps(doc, indent=4))
    mcp = born.resident(CLAUDE).repo / ".mcp.json"
    servers = json.loads(mcp.read_text())
    servers["mcpServers"]["my-private-server"] = {"command": "mine"}
    mcp.write_text(json.dumps(servers))
    plan = composer.plan_fleet(born)[0]
    assert {a.path.name: a.status for a in plan.artifacts}["settings.json"] == MATCH
    assert {a.path.name: a.status for a in plan.artifacts}[".mcp.json"] == MATCH
    assert composer.plan_exit_code([plan]) == 0


@pytest.mark.parametrize(("mutate", "key"), [
    (lambda d: d.update(autoMemoryDirectory="/somewhere/else"), "autoMemoryDirectory"),
    (lambda d: d["hooks"].pop("SessionStart"), "hooks.SessionStart[identity-anchor]"),
    (lambda d: d["hooks"]["SessionStart"][0].update(matcher="startup"), "hooks.SessionStart[identity-anchor]"),
    (lambda d: d["hooks"]["SessionStart"][0]["hooks"][0].update(timeout=60), "hooks.SessionStart[identity-anchor]"),
    (lambda d: d.pop("hooks"), "hooks.SessionStart[identity-anchor]"),
    (lambda d: d["permissions"]["allow"].remove("mcp__neo-mjs-memory-core"), "permissions.allow[mcp__neo-mjs-*]"),
    (lambda d: d.update(enabledMcpjsonServers=[]), "enabledMcpjsonServers[neo-mjs-*]"),
])
def test_drift_in_an_owned_key_fails_closed_naming_it_and_provision_writes_nothing(born, tmp_path, mutate, key):
    path = settings_path(born)
    doc = json.loads(path.read_text())
    mutate(doc)
    path.write_text(json.dumps(doc))
    found = artifact(born, "settings.json")
    assert found.status == DIVERGENT and key in found.reason and found.diff
    before = tree_bytes(tmp_path)
    with pytest.raises(DivergentError, match="nothing was written"):
        composer.apply_fleet(born)
    assert tree_bytes(tmp_path) == before


# A comment too: Claude Code 2.1.328 does not read a settings.json with one (its autoMemoryDirectory
# was ignored), so the seat would lose its memory dir.
@pytest.mark.parametrize("garbage", [b"{not json", b"\xff\xfe", b"[]", b"// a comment\n{}"])
def test_unreadable_settings_are_divergent(born, garbage):
    settings_path(born).write_bytes(garbage)
    found = artifact(born, "settings.json")
    assert found.status == DIVERGENT and found.reason.startswith("invalid JSON")


def test_set_aside_then_provision_recreates_the_fleet_file(born):
    path = settings_path(born)
    path.write_text("{}")
    assert artifact(born, "settings.json").status == DIVERGENT
    aside = composer.set_aside(born, born.resident(CLAUDE), path)
    assert aside.name.startswith("settings.json.divergent-") and aside.read_text() == "{}"
    plans = composer.apply_fleet(born)
    assert {a.path.name: a.status for a in plans[0].artifacts}["settings.json"] == CREATED
    assert json.loads(path.read_text())["autoMemoryDirectory"].endswith("/memory")


def test_init_fleet_includes_a_claude_code_seat_that_provisions(tmp_path, capsys):
    assert main(["init-fleet", str(tmp_path / "f")]) == 0
    fleet = load_manifest(tmp_path / "f" / "fleet.toml")
    assert [r.harness for r in fleet.residents][:3] == ["kimi-code", "opencode", "claude-code"]
    assert main(["provision", "--fleet", str(fleet.path)]) == 0
    capsys.readouterr()
    assert main(["plan", "--fleet", str(fleet.path), "--resident", CLAUDE, "--json"]) == 0  # all MATCH
    (report,) = json.loads(capsys.readouterr().out)["residents"]
    assert report["harness"] == "claude-code"
    assert [Path(a["path"]).name for a in report["artifacts"]][-4:] == ["settings.json", ".mcp.json",
                                                                        "identity_anchor_hook.py", "cap_guard_hook.py"]
    assert {a["status"] for a in report["artifacts"]} == {"MATCH"}


def test_claude_module_owns_no_state():
    """Pure: emitting twice gives identical bytes (the caches hold values, never disk)."""
    one = {p: f.content for p, f in emitted(fixed_fleet()).items()}
    two = {p: f.content for p, f in emitted(fixed_fleet()).items()}
    assert one == two
    assert claude.permission_rule("neo-mjs-x") == "mcp__neo-mjs-x"


def test_a_residents_own_mcp_json_is_adoptable(born):
    """`.mcp.json` takes the fleet's servers beside the resident's own."""
    repo = born.resident(CLAUDE).repo
    mcp = repo / ".mcp.json"
    own = b'{"mcpServers": {"my-private-server": {"command": "mine"}}}\n'
    mcp.write_bytes(own)
    found = artifact(born, ".mcp.json")
    assert found.status == DIVERGENT and found.adoption is not None
    plans = composer.apply_fleet(born, adopt=True)
    after = json.loads(mcp.read_bytes())
    assert after["mcpServers"]["my-private-server"] == {"command": "mine"}
    assert set(after["mcpServers"]) == {"my-private-server", "neo-mjs-memory-core", "neo-mjs-seat-curator"}
    assert {a.path.name: a.status for a in plans[0].artifacts}[".mcp.json"] == "ADOPTED"


USER_SETTINGS = """{
    "model": "claude-opus-4-1",
    "env": {"MY_VAR": "1"},
    "permissions": {
        "allow": [
            "Bash(git status)",
            "mcp__my-private-server"
        ],
        "deny": ["Read(./.env)"]
    },
    "hooks": {
        "SessionStart": [
            {"hooks": [{"type": "command", "command": "my-own-hook"}]}
        ]
    }
}
"""


def without_owned(doc: dict, prefix: str = "neo-mjs-") -> dict:
    """The settings minus the fleet's owned parts (the entries, then the parents they emptied)."""
    doc.pop("autoMemoryDirectory")
    doc.pop("autoDreamEnabled")
    doc["hooks"]["SessionStart"] = [e for e in doc["hooks"]["SessionStart"] if not claude._runs_script(e)]
    doc["hooks"]["PreToolUse"] = [e for e in doc["hooks"]["PreToolUse"]
                                  if not claude._runs_script(e, claude.CAP_GUARD_SCRIPT)]
    if not doc["hooks"]["PreToolUse"]:
        del doc["hooks"]["PreToolUse"]
    doc["permissions"]["allow"] = [r for r in doc["permissions"]["allow"] if not r.startswith(f"mcp__{prefix}")]
    doc["enabledMcpjsonServers"] = [n for n in doc["enabledMcpjsonServers"] if not n.startswith(prefix)]
    if not doc["enabledMcpjsonServers"]:
        del doc["enabledMcpjsonServers"]
    return doc


def is_subsequence(old: bytes, new: bytes) -> bool:
    remaining = iter(new)
    return all(byte in remaining for byte in old)


def test_a_residents_own_settings_json_is_adopted_keeping_every_byte(born, capsys):
    """The owned parts are entries inside arrays: appended to the resident's arrays (or created),
    every user key and byte kept; the seat then plans MATCH."""
    settings = settings_path(born)
    settings.write_text(USER_SETTINGS)
    found = artifact(born, "settings.json")
    assert found.status == DIVERGENT and found.adoption is not None
    assert set(found.adoption.added_keys) == set(claude.settings_keys("neo-mjs-"))
    assert main(["plan", "--fleet", str(born.path), "--resident", CLAUDE, "--json"]) == 3
    arts = {Path(a["path"]).name: a for a in json.loads(capsys.readouterr().out)["residents"][0]["artifacts"]}
    assert arts["settings.json"]["adoptable"] is True
    assert main(["provision", "--fleet", str(born.path), "--adopt"]) == 0
    assert "ADOPTED" in capsys.readouterr().out
    after = settings.read_bytes()
    assert is_subsequence(USER_SETTINGS.encode(), after)
    doc = json.loads(after)  # still strict JSON: Claude Code reads it
    assert without_owned(json.loads(after)) == json.loads(USER_SETTINGS)
    assert doc["permissions"]["allow"][:2] == ["Bash(git status)", "mcp__my-private-server"]
    assert doc["hooks"]["SessionStart"][0] == {"hooks": [{"type": "command", "command": "my-own-hook"}]}
    assert project(claude.CLAUDE_SETTINGS, after, "neo-mjs-") == found.emitted.owned
    assert artifact(born, "settings.json").status == MATCH
    assert composer.plan_exit_code(composer.plan_fleet(born)) == 0


def test_settings_json_with_no_arrays_or_parents_gets_them_created(born):
    settings = settings_path(born)
    settings.write_bytes(b'{"model": "sonnet"}')
    composer.apply_fleet(born, adopt=True)
    doc = json.loads(settings.read_bytes())
    assert doc["model"] == "sonnet" and without_owned(doc) == {"model": "sonnet", "hooks": {"SessionStart": []},
                                                               "permissions": {"allow": []}}
    assert artifact(born, "settings.json").status == MATCH


@pytest.mark.parametrize("conflict", [
    '"autoMemoryDirectory": "/somewhere/else"',
    '"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "python3 /elsewhere/identity_anchor_hook.py"}]}]}',
    '"enabledMcpjsonServers": "neo-mjs-memory-core"',
])
def test_settings_json_whose_owned_parts_hold_other_values_stays_divergent(born, tmp_path, conflict):
    settings = settings_path(born)
    mine = ('{"model": "claude-opus-4-1", "permissions": {"allow": ["Bash(ls)"]}, ' + conflict + '}\n').encode()
    settings.write_bytes(mine)
    found = artifact(born, "settings.json")
    assert found.status == DIVERGENT and found.adoption is None
    before = tree_bytes(tmp_path)
    with pytest.raises(DivergentError, match="nothing was written"):
        composer.apply_fleet(born, adopt=True)
    assert settings.read_bytes() == mine and tree_bytes(tmp_path) == before
