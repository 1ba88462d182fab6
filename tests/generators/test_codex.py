"""The codex emitter: its CODEX_HOME files for fixed inputs (a digest pins every byte), the hook trust
the fleet writes (Codex's own hash recipe, the canonical path), the hook's answer to every
SessionStart source, and plan / provision / adopt on a born seat — a trust that no longer matches its
hook is DIVERGENT, the resident's own keys stay theirs."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest

from generators import codex_trust, composer, layout, template
from generators.composer import CREATED, DIVERGENT, MATCH, emit_resident
from generators.errors import DivergentError
from generators.hook_format import codex_hook_output
from generators.manifest import load_manifest, parse_manifest
from generators.projection import project
from generators.script_source import identity_hook
from tests.support.fleets import (BASE_MANIFEST, CODEX, CODEX_RESIDENT, FIXED_MANIFEST, FIXED_PYTHON, REMOTE_SERVER,
                                  tree_bytes, write_fleet)

HOME = layout.instance_home("/srv/fleet/instances", CODEX, "codex")
COMMAND = f"'{FIXED_PYTHON}' -I -S '{HOME}/hooks/identity_anchor_hook.py'"
SOURCES = ("startup", "resume", "clear", "compact")

# sha256 over "path\0content\0" of every file the codex resident is born with, for the fixed inputs
# above. It changes only when the template, this emitter or the hook changes: update it deliberately.
PINNED_DIGEST = "40d72cffc3f9671432bbdb3eb1882d6acfb17a9a0aa65041186a5f7837f25d81"


def fixed_fleet(extra: str = REMOTE_SERVER):
    return parse_manifest(f'curator_python = "{FIXED_PYTHON}"\n' + BASE_MANIFEST + extra + CODEX_RESIDENT, FIXED_MANIFEST)


def emitted(fleet) -> dict[Path, object]:
    return {f.path: f for f in emit_resident(fleet, fleet.resident(CODEX), interpreter=FIXED_PYTHON)}


def spec_hash(matcher: str, command: str, timeout: int) -> str:
    """The recipe as the measurements wrote it down, independent of codex_trust's code."""
    ident = {"event_name": "session_start", "matcher": matcher,
             "hooks": [{"type": "command", "command": command, "timeout": timeout, "async": False}]}
    return "sha256:" + hashlib.sha256(json.dumps(ident, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# ------------------------------------------------------------------------------------------ emitter


def test_digest_pins_every_emitted_byte():
    files = emitted(fixed_fleet())
    assert [p.relative_to(HOME).as_posix() for p in files] == [
        "memory/MEMORY.md", "memory/identity.md", "memory/seat-pointers.md", "memory/about-this-layer.md",
        "config.toml", "hooks.json", "hooks/identity_anchor_hook.py"]
    assert {p.name: (f.owner, f.mode) for p, f in files.items()} == {
        "MEMORY.md": ("bearer", 0o600), "identity.md": ("bearer", 0o600), "seat-pointers.md": ("bearer", 0o600),
        "about-this-layer.md": ("bearer", 0o600), "config.toml": ("fleet", 0o600), "hooks.json": ("fleet", 0o600),
        "identity_anchor_hook.py": ("fleet", 0o700)}
    digest = hashlib.sha256()
    for path, item in sorted(files.items()):
        digest.update(str(path).encode() + b"\0" + item.content + b"\0")
    assert digest.hexdigest() == PINNED_DIGEST


def test_hooks_json_wires_one_session_start_group_and_its_projection_agrees():
    item = emitted(fixed_fleet())[HOME / "hooks.json"]
    assert json.loads(item.content) == {"hooks": {"SessionStart": [{
        "matcher": "startup|resume|clear|compact",
        "hooks": [{"type": "command", "command": COMMAND, "timeout": 30}]}]}}
    assert item.owned == project(item.convergence, item.content, "neo-mjs-")
    assert item.owned_keys == ("hooks.SessionStart",)


def test_config_toml_trusts_the_hook_by_the_recipe_and_holds_the_fleets_servers():
    item = emitted(fixed_fleet())[HOME / "config.toml"]
    doc = tomllib.loads(item.content.decode())
    key = f"{HOME}/hooks.json:session_start:0:0"
    assert doc == {
        "hooks": {"state": {key: {"trusted_hash": spec_hash("startup|resume|clear|compact", COMMAND, 30)}}},
        "mcp_servers": {
            "neo-mjs-memory-core": {"command": "node", "args": ["server.js", "--stdio"], "env": {"TOKEN": "t0k"}},
            "neo-mjs-remote": {"url": "https://mcp.example.invalid/r", "http_headers": {"Authorization": "Bearer x"}},
            "neo-mjs-seat-curator": {"command": FIXED_PYTHON, "args": ["-m", "curator", "mcp", f"{HOME}/memory"],
                                     "env": {}}}}
    assert b"switched-off" not in item.content  # the catalog's disabled server
    assert item.owned == project(item.convergence, item.content, "neo-mjs-")
    assert tuple(item.owned) == item.owned_keys == (
        f'hooks.state."{key}".trusted_hash', "mcp_servers.neo-mjs-memory-core", "mcp_servers.neo-mjs-remote",
        "mcp_servers.neo-mjs-seat-curator")


def test_trust_hash_is_the_one_codex_computes():
    # Measured: `codex app-server` 0.171.0, hooks/list, currentHash of this very group ("trusted").
    command = ("'/root/.pyenv/versions/3.11.7/bin/python3.11' -I -S "
               "'/tmp/cx/instances/neo-codex-orion-316b7489c182/codex-57de4cf40144/hooks/identity_anchor_hook.py'")
    handler = {"type": "command", "command": command, "timeout": 30}
    assert codex_trust.trusted_hash("SessionStart", "startup|resume|clear|compact", handler) == \
        "sha256:e2f3c942095e9e1efdad03182742c16c0670bd4642554835b2f4ea35fcca019b"


@pytest.mark.parametrize("change", [
    {"command": "'/usr/bin/python3' -I -S '/elsewhere/hook.py'"}, {"timeout": 31}, {"matcher": "startup"}])
def test_any_change_to_the_group_changes_the_hash(change):
    handler = {"type": "command", "command": COMMAND, "timeout": 30}
    base = codex_trust.trusted_hash("SessionStart", "startup|resume|clear|compact", handler)
    matcher = change.pop("matcher", "startup|resume|clear|compact")
    assert codex_trust.trusted_hash("SessionStart", matcher, {**handler, **change}) != base


def test_defaults_in_the_hash_recipe():
    handler = {"type": "command", "command": "x"}
    assert codex_trust.hook_identity("SessionStart", None, handler) == {
        "event_name": "session_start", "hooks": [{"type": "command", "command": "x", "timeout": 600, "async": False}]}
    assert "matcher" not in codex_trust.hook_identity("Stop", "ignored", handler)
    assert codex_trust.hook_identity("SessionEnd", None, {"command": "x", "timeout": 60})["hooks"][0]["timeout"] == 3


def test_the_trust_key_holds_the_canonical_home(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    fleet = parse_manifest(BASE_MANIFEST.replace('instance_root = "instances"', f'instance_root = "{tmp_path}/link"')
                           + CODEX_RESIDENT, tmp_path / "fleet" / "fleet.toml")
    item = next(f for f in emit_resident(fleet, fleet.resident(CODEX), interpreter=FIXED_PYTHON)
                if f.path.name == "config.toml")
    keys = list(tomllib.loads(item.content.decode())["hooks"]["state"])
    home = layout.instance_home(real, CODEX, "codex")
    assert keys == [f"{home}/hooks.json:session_start:0:0"]


def test_one_content_authority_with_its_own_loading_line():
    text = template.memory_md("codex")
    loading = [line for line in text.splitlines() if "**Loading:**" in line]
    assert len(loading) == 1 and "hooks.json" in loading[0] and "trusts by hash" in loading[0]
    def strip(t: str) -> list[str]:
        return [line for line in t.splitlines() if "**Loading:**" not in line]

    assert strip(text) == strip(template.memory_md("kimi-code"))
    assert "## How it loads on codex" in template.about_this_layer_md("codex")


# ---------------------------------------------------------------------------------------- the hook


@pytest.fixture
def born(tmp_path):
    fleet = load_manifest(write_fleet(tmp_path / "fleet dir", residents=CODEX_RESIDENT))
    plans = composer.apply_fleet(fleet)
    assert [a.status for a in plans[0].artifacts] == [CREATED] * 7
    return fleet


def home_of(fleet) -> Path:
    return layout.instance_home(fleet.instance_root, CODEX, "codex")


def run_hook(fleet, stdin: bytes) -> subprocess.CompletedProcess:
    """The command as Codex runs it: through a shell, the payload on stdin."""
    doc = json.loads((home_of(fleet) / "hooks.json").read_text())
    command = doc["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    return subprocess.run(command, shell=True, input=stdin, capture_output=True, timeout=30,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})


@pytest.mark.parametrize("source", SOURCES)
def test_hook_matrix_every_source_injects_both_files_as_additional_context(born, source):
    payload = {"session_id": "s", "transcript_path": "/t", "cwd": "/x", "hook_event_name": "SessionStart",
               "model": "m", "permission_mode": "bypassPermissions", "source": source}
    result = run_hook(born, json.dumps(payload).encode())
    memory = home_of(born) / "memory"
    files = {name: (memory / name).read_bytes() for name in ("MEMORY.md", "identity.md")}
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout == codex_hook_output(str(memory), files, source)
    context = json.loads(result.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart"
    for content in files.values():
        assert content.decode() in context["additionalContext"]  # as on disk
    trigger = "post-compact-reload" if source == "compact" else "session-boot"
    assert f'trigger="{trigger}"' in context["additionalContext"]


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1]", b'{"hook_event_name": "SessionStart", "source": "x"}',
                                   b'{"hook_event_name": "Stop"}'])
def test_hook_matrix_garbage_or_other_events_inject_nothing(born, stdin):
    result = run_hook(born, stdin)
    assert result.returncode == 0 and result.stdout == b""
    if not stdin.startswith(b"{"):
        assert b"identity-anchor hook: stdin" in result.stderr  # one line naming what came


def test_the_hook_is_the_shared_script(born):
    home = home_of(born)
    assert (home / "hooks" / "identity_anchor_hook.py").read_bytes() == identity_hook(
        "codex", home / "memory", home, template.BOOT_FILES)


# ------------------------------------------------------------------------------ plan and provision


def config_path(fleet) -> Path:
    return home_of(fleet) / "config.toml"


def artifact(fleet, name: str):
    plan = composer.plan_fleet(fleet)[0]
    return next(a for a in plan.artifacts if a.path.name == name)


def test_born_seat_matches_and_the_residents_own_keys_stay_theirs(born):
    path = config_path(born)
    path.write_text('model = "gpt-9"\n' + path.read_text()
                    + '\n[hooks.state."/mine/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:00"\n'
                    + '\n[mcp_servers.my-own]\ncommand = "mine"\n')
    hooks = home_of(born) / "hooks.json"
    doc = json.loads(hooks.read_text())
    doc["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "notify"}]}]
    hooks.write_text(json.dumps(doc))
    plan = composer.plan_fleet(born)[0]
    assert {a.path.name: a.status for a in plan.artifacts} == dict.fromkeys(
        ["MEMORY.md", "identity.md", "seat-pointers.md", "about-this-layer.md", "config.toml", "hooks.json",
         "identity_anchor_hook.py"], MATCH)


def _stale_hash(text: str) -> str:
    start = text.index('trusted_hash = "') + len('trusted_hash = "')
    return text[:start] + "sha256:" + "0" * 64 + text[start + 71:]


@pytest.mark.parametrize(("mutate", "name", "fragment"), [
    (_stale_hash, "config.toml", '.trusted_hash'),
    (lambda t: t.replace("trusted_hash", "# trusted_hash"), "config.toml", ".trusted_hash"),
    (lambda t: t.replace('trusted_hash = "', 'enabled = false\ntrusted_hash = "'), "config.toml", ".enabled"),
    (lambda t: t.replace('"timeout": 30', '"timeout": 10'), "hooks.json", "hooks.SessionStart"),
    (lambda t: t.replace("startup|resume|clear|compact", "startup"), "hooks.json", "hooks.SessionStart"),
])
def test_a_trust_that_no_longer_matches_its_hook_is_divergent(born, tmp_path, mutate, name, fragment):
    path = home_of(born) / name
    path.write_text(mutate(path.read_text()))
    found = artifact(born, name)
    assert found.status == DIVERGENT and fragment in found.reason and found.diff
    before = tree_bytes(tmp_path)
    with pytest.raises(DivergentError, match="nothing was written"):
        composer.apply_fleet(born)
    assert tree_bytes(tmp_path) == before


def test_a_copied_home_keeps_a_stale_trust_key_and_plan_says_so(born, tmp_path):
    """A config.toml carried over from another home trusts the old path: Codex would skip the hook."""
    old = str(home_of(born))
    text = config_path(born).read_text()
    config_path(born).write_text(text.replace(old, "/old/home/of/this/seat"))
    found = artifact(born, "config.toml")
    assert found.status == DIVERGENT
    assert '"/old/home/of/this/seat/hooks.json:session_start:0:0".trusted_hash' in found.reason
    assert f'"{old}/hooks.json:session_start:0:0".trusted_hash' in found.reason


def test_an_existing_config_toml_without_the_owned_keys_is_adopted_keeping_every_byte(tmp_path):
    fleet = load_manifest(write_fleet(tmp_path / "fleet", residents=CODEX_RESIDENT))
    home = home_of(fleet)
    home.mkdir(parents=True)
    mine = '# my codex config\nmodel = "gpt-9"  # keep\n\n[profiles.fast]\nmodel = "mini"\n'
    (home / "config.toml").write_text(mine)
    (home / "hooks.json").write_text('{\n  "hooks": {\n    "Stop": []\n  }\n}\n')
    found = artifact(fleet, "config.toml")
    assert found.status == DIVERGENT and found.adoption is not None
    assert artifact(fleet, "hooks.json").adoption is not None
    composer.apply_fleet(fleet, adopt=True)
    plan = composer.plan_fleet(fleet)[0]
    assert {a.path.name: a.status for a in plan.artifacts}["config.toml"] == MATCH
    assert {a.path.name: a.status for a in plan.artifacts}["hooks.json"] == MATCH
    after = (home / "config.toml").read_text()
    assert after.startswith(mine)
    assert json.loads((home / "hooks.json").read_text())["hooks"]["Stop"] == []


def test_unreadable_config_is_divergent(born):
    config_path(born).write_bytes(b"[[not toml")
    found = artifact(born, "config.toml")
    assert found.status == DIVERGENT and found.reason.startswith("invalid TOML")


def test_a_stale_trust_is_repaired_in_place_keeping_the_residents_lines(born):
    path = config_path(born)
    path.write_text('model = "gpt-9"  # mine\n' + _stale_hash(path.read_text()))
    found = artifact(born, "config.toml")
    assert found.status == DIVERGENT and found.repair is not None
    composer.apply_fleet(born, repair=True)
    assert artifact(born, "config.toml").status == MATCH
    assert path.read_text().startswith('model = "gpt-9"  # mine\n')
