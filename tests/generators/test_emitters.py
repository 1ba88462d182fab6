"""Emitters and the template: kimi-code's strict schema, opencode shapes, one content authority,
seat layout, and a digest pinning every emitted byte for fixed inputs."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tomllib
from pathlib import Path

import json5
import pytest

from generators import kimi, layout, template
from generators.composer import emit_resident
from generators.errors import UnsupportedError
from generators.manifest import FleetHook, parse_manifest
from generators.projection import kimi_config_projection, kimi_mcp_projection, opencode_projection
from tests.support.fleets import BASE_MANIFEST, KIMI, OPENCODE, RESIDENTS
FIXED_PYTHON = "/usr/bin/python3"
FIXED_MANIFEST = Path("/srv/fleet/fleet.toml")
EXTRA = """
[mcp.neo-mjs-remote]
url = "https://mcp.example.invalid/r"
headers = { Authorization = "Bearer x" }

[[hooks]]
event = "Stop"
command = "/usr/local/bin/notify --seat"
matcher = ""
timeout = 10
"""


def fixed_fleet(extra: str = EXTRA):
    return parse_manifest(f'curator_python = "{FIXED_PYTHON}"\n' + BASE_MANIFEST + extra + RESIDENTS, FIXED_MANIFEST)


def emitted(fleet, agent_id):
    return {f.path: f for f in emit_resident(fleet, fleet.resident(agent_id), interpreter=FIXED_PYTHON)}


# ------------------------------------------------------------------------------------------ digest

# sha256 over "path\0content\0" of every file both residents are born with, for the fixed inputs
# above. It changes only when a template, emitter or script changes: update it deliberately.
PINNED_DIGEST = "7d57efb02a308693d290208235cdbf820bee22fe951627815c888b8124d92db8"


def test_digest_pins_every_emitted_byte():
    fleet = fixed_fleet()
    digest = hashlib.sha256()
    count = 0
    for agent_id in (KIMI, OPENCODE):
        for path, item in sorted(emitted(fleet, agent_id).items()):
            digest.update(str(path).encode() + b"\0" + item.content + b"\0")
            count += 1
    assert count == 14  # the kimi seat's cap guard is the 14th
    assert digest.hexdigest() == PINNED_DIGEST


def test_same_inputs_give_identical_bytes():
    one = {p: f.content for p, f in emitted(fixed_fleet(), KIMI).items()}
    two = {p: f.content for p, f in emitted(fixed_fleet(), KIMI).items()}
    assert one == two


# -------------------------------------------------------------------------------------- kimi-code


def test_kimi_config_layout_and_projection_agree():
    files = emitted(fixed_fleet(), KIMI)
    home = layout.instance_home("/srv/fleet/instances", KIMI, "kimi-code")
    config = files[home / "config.toml"]
    parsed = tomllib.loads(config.content.decode())
    assert kimi.config_problems(config.content.decode()) == []
    assert parsed["default_model"] == "kimi-k2" and parsed["default_permission_mode"] == "manual"
    assert parsed["permission"]["rules"] == [
        {"decision": "allow", "pattern": "mcp__neo-mjs-memory-core__*", "scope": "user"},
        {"decision": "allow", "pattern": "mcp__neo-mjs-remote__*", "scope": "user"},
        {"decision": "allow", "pattern": "mcp__neo-mjs-seat-curator__*", "scope": "user"}]
    command = f"'{FIXED_PYTHON}' -I -S '{home}/hooks/identity_anchor_hook.py'"
    guard = f"'{FIXED_PYTHON}' -I -S '{home}/hooks/cap_guard_hook.py'"
    assert parsed["hooks"] == [
        {"event": "UserPromptSubmit", "command": command, "timeout": 5},
        {"event": "PostCompact", "command": command, "timeout": 5},
        {"event": "PreToolUse", "matcher": "Write|Edit", "command": guard, "timeout": 5},
        {"event": "Stop", "matcher": "", "command": "/usr/local/bin/notify --seat", "timeout": 10}]
    assert config.owned == kimi_config_projection(parsed)  # the plan's expectation is the written file
    # The seat's own mcp.json: kimi-code skips a project-level one in a folder it does not trust.
    mcp = files[home / "mcp.json"]
    doc = json.loads(mcp.content)
    assert doc == {"mcpServers": {
        "neo-mjs-memory-core": {"command": "node", "args": ["server.js", "--stdio"], "env": {"TOKEN": "t0k"},
                                "enabled": True},
        "neo-mjs-remote": {"url": "https://mcp.example.invalid/r", "headers": {"Authorization": "Bearer x"},
                           "enabled": True},
        "neo-mjs-seat-curator": {"command": FIXED_PYTHON, "args": ["-m", "curator", "mcp", f"{home}/memory"],
                                 "env": {}, "enabled": True}}}
    assert mcp.owned == kimi_mcp_projection(doc, "neo-mjs-")
    assert (home / "hooks" / "cap_guard_hook.py") in files


@pytest.mark.parametrize("toml_text,problem", [
    ('[[hooks]]\nevent = "UserPromptSubmit"\ncommand = "x"\nname = "extra"\n', "hooks[0].name: unknown key"),
    ('[[hooks]]\nevent = "OnPrompt"\ncommand = "x"\n', "not a kimi-code event"),
    ('[[hooks]]\nevent = "Stop"\ncommand = "x"\ntimeout = 0\n', "not an integer 1-600"),
    ('[[hooks]]\nevent = "Stop"\ncommand = "x"\ntimeout = 601\n', "not an integer 1-600"),
    ('[[hooks]]\nevent = "Stop"\ncommand = "x"\ntimeout = "5"\n', "not an integer 1-600"),
    ('[[hooks]]\nevent = "Stop"\ncommand = "x"\ntimeout = true\n', "not an integer 1-600"),
    ('[[hooks]]\nevent = "Stop"\n', "command: must be a non-empty string"),
    ('default_permission_mode = "always"\n', "default_permission_mode"),
    ('[[permission.rules]]\ndecision = "maybe"\npattern = "x"\n', "decision must be allow, ask or deny"),
    ("[[hooks]\n", "invalid TOML"),
])
def test_kimi_schema_rejects_what_kimi_code_would_reject(toml_text, problem):
    problems = kimi.config_problems(toml_text)
    assert any(problem in p for p in problems), problems


def test_all_twenty_events_and_bounds_are_accepted():
    text = "".join(f'[[hooks]]\nevent = "{e}"\nmatcher = ""\ncommand = "x"\ntimeout = {t}\n'
                   for e, t in zip(kimi.KIMI_EVENTS, [1, 600] * 10))
    assert len(kimi.KIMI_EVENTS) == 20 and kimi.config_problems(text) == []


def test_invalid_config_is_refused_before_it_can_be_written():
    fleet = fixed_fleet("")
    bad = dataclasses.replace(fleet, hooks=(FleetHook(event="OnPrompt", command="x"),))
    config = next(f for f in emitted(bad, KIMI).values() if f.path.name == "config.toml")
    with pytest.raises(UnsupportedError, match="would not load in kimi-code"):
        _ = config.content  # rendering is what refuses


def test_shell_quoting_survives_quotes_and_spaces():
    assert kimi.shell_quote("/a b/it's") == "'/a b/it'\"'\"'s'"
    assert kimi.hook_command("/py thon", "/h k.py") == "'/py thon' -I -S '/h k.py'"


# --------------------------------------------------------------------------------------- opencode


def test_opencode_jsonc_parses_as_json5_with_the_documented_shapes():
    files = emitted(fixed_fleet(), OPENCODE)
    home = layout.instance_home("/srv/fleet/instances", OPENCODE, "opencode")
    item = files[Path("/srv/fleet/repos/juno/opencode.jsonc")]
    text = item.content.decode()
    assert text.startswith("// GENERATED by seat-curator for @neo-opencode-juno (opencode).")
    doc = json5.loads(text)
    assert doc["$schema"] == "https://opencode.ai/config.json"
    assert doc["instructions"] == [f"{home}/memory/MEMORY.md", f"{home}/memory/identity.md"]
    external = doc["permission"]["external_directory"]
    assert list(external.items()) == [("*", "ask"), (f"{home}/**", "allow"), ("/srv/fleet/repos/juno/**", "allow")]
    assert doc["mcp"] == {
        "neo-mjs-memory-core": {"type": "local", "command": ["node", "server.js", "--stdio"],
                                "environment": {"TOKEN": "t0k"}, "enabled": True},
        "neo-mjs-remote": {"type": "remote", "url": "https://mcp.example.invalid/r",
                           "headers": {"Authorization": "Bearer x"}, "enabled": True},
        "neo-mjs-seat-curator": {"type": "local", "command": [FIXED_PYTHON, "-m", "curator", "mcp", f"{home}/memory"],
                                 "environment": {}, "enabled": True}}
    assert item.owned == opencode_projection(doc, "neo-mjs-")
    assert [f.path.name for f in files.values()] == [*template.BEARER_FILES, "opencode.jsonc", "write_wake_envelope.py"]


def test_agent_id_cannot_break_out_of_a_comment():
    # The manifest refuses such an id (tests/generators/test_manifest.py); the emitter stays safe without that check.
    fleet = parse_manifest(BASE_MANIFEST + RESIDENTS, FIXED_MANIFEST)
    evil = dataclasses.replace(fleet.resident(OPENCODE), agent_id="@evil\n} //")
    item = next(f for f in emit_resident(fleet, evil) if f.path.name == "opencode.jsonc")
    assert json5.loads(item.content.decode())["$schema"]
    assert item.content.decode().splitlines()[0].endswith("(opencode). Regenerate, do not hand-edit.")


# --------------------------------------------------------------------------------------- template


def test_memory_md_sections_in_order_and_loading_line_per_harness():
    kimi_text, oc_text = template.memory_md("kimi-code"), template.memory_md("opencode")
    headings = [line for line in kimi_text.splitlines() if line.startswith("#")]
    assert headings == ["# Seat memory index", "## Identity & seat", "## Weak-spots",
                        "## Hard rules (they bit; don't relearn)", "## Craft hooks",
                        "## Lane anchors (highest drift — re-verify live)"]
    for needle in ("<17KB", "24.6KB", "ARCHIVE.md", "query_raw_memories", "query_recent_turns", "wc -c",
                   "merge-facet · move-to-ARCHIVE · trim hooks", "orphaned pointer is a deleted memory"):
        assert needle in kimi_text
    loading = [line for line in kimi_text.splitlines() if "**Loading:**" in line]
    assert len(loading) == 1 and "UserPromptSubmit + PostCompact" in loading[0]
    assert "`instructions`" in next(line for line in oc_text.splitlines() if "**Loading:**" in line)
    # one content authority: the harnesses differ only in how the layer loads
    def strip(text):
        return [line for line in text.splitlines() if "**Loading:**" not in line]
    assert strip(kimi_text) == strip(oc_text)
    for link in ("[Identity](identity.md)", "[About this layer](about-this-layer.md)",
                 "[Seat pointers](seat-pointers.md)"):
        assert link in kimi_text


def test_birth_budget_and_story_sovereignty():
    for harness in ("kimi-code", "opencode"):
        files = template.bearer_files(KIMI, harness)
        assert list(files) == list(template.BEARER_FILES)
        assert len(files["MEMORY.md"]) + len(files["identity.md"]) < 4000
        assert len(files["identity.md"].decode()) < 600
        identity = files["identity.md"].decode()
        assert identity.startswith("# Identity — unwritten\n") and KIMI in identity
        assert "Iris" not in identity and OPENCODE not in identity and "🌈" not in identity
        assert "Weak-spots" in files["MEMORY.md"].decode()
        assert "Persistence without reload is a no-op" in files["about-this-layer.md"].decode()
    assert b"@neo-opencode-juno" not in b"".join(template.bearer_files(KIMI, "opencode").values())
    with pytest.raises(ValueError):
        template.memory_md("qwen-code")


# ----------------------------------------------------------------------------------------- layout


def test_seg_and_seat_paths():
    digest = hashlib.sha256(b"@neo-kimi-iris").hexdigest()[:12]
    assert layout.seg("@neo-kimi-iris") == f"neo-kimi-iris-{digest}"
    assert layout.seg("a/../..b").startswith("a-.-.b-")
    assert ".." not in layout.seg("../../etc")
    assert layout.seg("").startswith("x-") and layout.seg("@@@").startswith("x-")
    assert len(layout.seg("y" * 100)) == 40 + 1 + 12
    assert layout.seg("@a/b") != layout.seg("@a-b")
    home = layout.instance_home("/r", "@neo-kimi-iris", "kimi-code")
    assert home == Path("/r") / layout.seg("@neo-kimi-iris") / layout.seg("kimi-code")
    assert layout.memory_dir("/r", "@neo-kimi-iris", "kimi-code") == home / "memory"


def test_generators_never_import_textual():
    import subprocess
    import sys
    code = ("import sys; sys.modules['textual'] = None\n"
            "import generators.composer, generators.hook_format, curator.commands.fleet\n"
            "assert not any(m == 'textual' or m.startswith('textual.') for m in sys.modules if sys.modules[m])\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("agent_id", [KIMI, "@a/b", 'q"uote\\back', "tab\tand\nnewline", "SEATCURATORAGENTIDMARK",
                                      "x" * 80, "üñí"])
def test_per_fleet_config_template_gives_the_direct_render(agent_id):
    # Built past the manifest, which refuses some of these ids: the template must not rely on that.
    residents = '\n[[residents]]\nagent_id = "@placeholder"\nharness = "kimi-code"\nrepo = "r"\n'
    for root in ("/srv/fleet", '/srv/we"ird root'):
        fleet = parse_manifest(BASE_MANIFEST + EXTRA + residents, Path(root) / "fleet.toml")
        resident = dataclasses.replace(fleet.resident("@placeholder"), agent_id=agent_id)
        config = next(f for f in emit_resident(fleet, resident, interpreter=FIXED_PYTHON)
                      if f.path.name == "config.toml")
        direct = kimi.config_toml(agent_id, kimi.config_data(
            fleet, resident, config.path.parent / kimi.HOOK_RELPATH, FIXED_PYTHON))
        assert config.content == direct
