"""Repair: a fleet file whose owned keys hold other values gets only those values rewritten, in place;
every other byte (the resident's keys, comments, blank lines, CRLF line endings) stays."""

from __future__ import annotations

import json
import re
import tomllib

import json5
import pytest

from curator.cli import main
from generators import composer, layout, repair
from generators.manifest import load_manifest
from tests.support.byte_checks import only_insertions
from tests.support.fleets import KIMI, OPENCODE, RESIDENTS, tree_bytes
from tests.support.fleets import write_fleet as write_any_fleet
from tests.support.byte_checks import outside_unchanged

# The files here hold the owned values seats had before the fleet added its own curator server (and
# the cap guard beside it): these residents turn it off, so each file is repaired, not extended.
NO_CURATOR = "\nmcp = { neo-mjs-seat-curator = false }"


def write_fleet(directory, extra: str = "", *, residents: str = RESIDENTS):
    residents = re.sub(r'(repo = "[^"]*")', lambda m: m.group(1) + NO_CURATOR, residents)
    return write_any_fleet(directory, extra, residents=residents)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


@pytest.fixture
def seats(tmp_path, capsys):
    """A provisioned fleet (kimi-code + opencode), every file MATCH."""
    manifest = write_fleet(tmp_path)
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    fleet = load_manifest(manifest)
    home = layout.instance_home(fleet.instance_root, KIMI, "kimi-code")
    return manifest, {"toml": home / "config.toml", "json": home / "mcp.json",
                      "jsonc": tmp_path / "repos" / "juno" / "opencode.jsonc"}


USER_JSONC = """\
// my own opencode config: keep every word of this
{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet", // my model, not the fleet's
  "instructions": ["/somewhere/else/NOTES.md"], /* I pointed this elsewhere */
  /* servers I run myself,
     across two lines */
  "mcp": {
    "my-private-server": { "type": "local", "command": ["my-mcp", "--quiet"] }, // keep me
    "neo-mjs-memory-core": {
      "type": "local",
      "command": ["node", "old-server.js"], // fleet's, but edited by hand
      "environment": { "TOKEN": "t0k" },
      "enabled": true,
    },
  },
  "permission": { "bash": "ask" },
}
"""

USER_JSON = """{
  "mcpServers": {
    "my-private-server": {"command": "my-mcp", "args": []},
    "neo-mjs-memory-core": {
      "command": "node",
      "args": ["old.js"],
      "env": {"TOKEN": "t0k"},
      "enabled": true
    }
  },
  "note": "mine"
}
"""


def user_toml(generated: str) -> tuple[str, list[str]]:
    """The generated config.toml as a resident keeps it: comments and tables of their own, CRLF, and
    two owned values changed by hand (the model, the first hook's command)."""
    command = re.search(r'^command = (".*")$', generated, flags=re.MULTILINE).group(1)
    text = generated.replace('default_model = "kimi-k2"', 'default_model = "my-model"  # I prefer this one', 1)
    text = text.replace(f"command = {command}", 'command = "/old/python -I -S hook.py"', 1)
    text = "# my notes on top\n" + text + "\n[providers.mine]   # a provider of my own\ntype = \"openai\"\n"
    return crlf(text), ['"my-model"', '"/old/python -I -S hook.py"']


def test_plan_offers_repair_and_provision_without_it_writes_nothing(seats, capsys):
    manifest, files = seats
    files["jsonc"].write_bytes(crlf(USER_JSONC).encode())
    before = tree_bytes(manifest.parent)
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest), "--json")
    assert code == 3 and tree_bytes(manifest.parent) == before
    art = next(a for r in json.loads(out)["residents"] for a in r["artifacts"] if a["path"] == str(files["jsonc"]))
    assert art["status"] == "DIVERGENT" and art["repairable"] is True and "provision --repair" in art["reason"]
    assert "+++ " + str(files["jsonc"]) + " (repaired)" in art["repair_diff"]
    code, _, err = run(capsys, "provision", "--fleet", str(manifest))
    assert code == 3 and "FLEET_WORKSPACE_DIVERGENT" in err and tree_bytes(manifest.parent) == before


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_repair_jsonc_rewrites_only_the_owned_values(seats, capsys, line_end):
    manifest, files = seats
    path = files["jsonc"]
    before = USER_JSONC.replace("\n", line_end)
    path.write_bytes(before.encode())
    code, out, _ = run(capsys, "provision", "--fleet", str(manifest), "--repair")
    assert code == 0, out
    assert out.index(f"repairing {path}") < out.index(f"+++ {path} (repaired)") < out.index(f"{OPENCODE} (opencode)")
    assert "1 REPAIRED" in out.splitlines()[-1]
    after = path.read_bytes().decode()
    assert outside_unchanged(before, after, ['["/somewhere/else/NOTES.md"]', '"old-server.js"'])
    assert line_end == "\n" or "\n" not in after.replace("\r\n", "")  # no bare LF in a CRLF file
    doc = json5.loads(after)
    assert doc["model"] == "anthropic/claude-sonnet" and doc["permission"] == {"bash": "ask"}
    assert doc["mcp"]["neo-mjs-memory-core"]["command"] == ["node", "server.js", "--stdio"]
    assert [p.rsplit("/", 1)[1] for p in doc["instructions"]] == ["MEMORY.md", "identity.md"]
    assert run(capsys, "plan", "--fleet", str(manifest))[0] == 0
    assert run(capsys, "provision", "--fleet", str(manifest), "--repair")[0] == 0 and path.read_bytes().decode() == after


def test_repair_strict_json_stays_strict_with_crlf(seats, capsys):
    manifest, files = seats
    path, before = files["json"], crlf(USER_JSON)
    path.write_bytes(before.encode())
    assert run(capsys, "provision", "--fleet", str(manifest), "--repair")[0] == 0
    after = path.read_bytes().decode()
    assert outside_unchanged(before, after, ['"old.js"'])
    assert "\n" not in after.replace("\r\n", "")
    doc = json.loads(after)  # kimi-code reads mcp.json as strict JSON
    assert doc["note"] == "mine" and doc["mcpServers"]["my-private-server"] == {"command": "my-mcp", "args": []}
    assert doc["mcpServers"]["neo-mjs-memory-core"]["args"] == ["server.js", "--stdio"]


def test_repair_toml_keeps_comments_user_tables_and_crlf(seats, capsys):
    manifest, files = seats
    path = files["toml"]
    before, held = user_toml(path.read_text())
    path.write_bytes(before.encode())
    assert run(capsys, "plan", "--fleet", str(manifest))[0] == 3
    assert run(capsys, "provision", "--fleet", str(manifest), "--repair")[0] == 0
    after = path.read_bytes().decode()
    assert outside_unchanged(before, after, held)
    assert "# I prefer this one" in after and "\n" not in after.replace("\r\n", "")
    doc = tomllib.loads(after)
    assert doc["default_model"] == "kimi-k2" and doc["providers"]["mine"]["type"] == "openai"
    assert doc["hooks"][0]["command"] == doc["hooks"][1]["command"]
    assert run(capsys, "plan", "--fleet", str(manifest))[0] == 0


def test_repair_rewrites_a_hand_edited_script_whole(seats, capsys):
    manifest, files = seats
    fleet = load_manifest(manifest)
    hook = layout.instance_home(fleet.instance_root, KIMI, "kimi-code") / "hooks" / "identity_anchor_hook.py"
    original = hook.read_bytes()
    hook.write_bytes(original + b"# a hand edit\n")
    plan = composer.plan_fleet(fleet, KIMI)[0]
    art = next(a for a in plan.artifacts if a.path == hook)
    assert art.status == composer.DIVERGENT and art.repair is not None and art.repair.after == original
    assert run(capsys, "provision", "--fleet", str(manifest), "--repair")[0] == 0
    assert hook.read_bytes() == original


def test_a_file_that_does_not_parse_is_not_repairable(seats, capsys):
    manifest, files = seats
    files["json"].write_text('{"mcpServers": ')
    plan = composer.plan_fleet(load_manifest(manifest), KIMI)[0]
    art = next(a for a in plan.artifacts if a.path == files["json"])
    assert art.status == composer.DIVERGENT and art.repair is None
    before = tree_bytes(manifest.parent)
    code, _, err = run(capsys, "provision", "--fleet", str(manifest), "--repair")
    assert code == 3 and "invalid JSON" in err and tree_bytes(manifest.parent) == before


def test_repair_claude_settings_owned_entries_in_place(tmp_path, capsys):
    """settings.json: the identity hook entry's command moved and a stale fleet rule sits among the
    resident's own rules; only those entries change, the resident's hooks, rules and model stay."""
    manifest = write_fleet(tmp_path, residents='\n[[residents]]\nagent_id = "@c"\nharness = "claude-code"\n'
                                               'repo = "repos/c"\n')
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    settings = next(tmp_path.rglob("settings.json"))
    doc = json.loads(settings.read_text())
    doc["hooks"]["SessionStart"][0]["hooks"][0]["command"] = "'/old/py' -I -S '/x/identity_anchor_hook.py'"
    doc["hooks"]["SessionStart"].insert(0, {"matcher": "startup", "hooks": [{"type": "command", "command": "echo mine"}]})
    doc["permissions"]["allow"] = ["Bash(ls)", "mcp__neo-mjs-memory-core", "Read", "mcp__neo-mjs-retired"]
    doc["model"] = "opus"
    before = crlf(json.dumps(doc, indent=2) + "\n")
    settings.write_bytes(before.encode())
    assert run(capsys, "provision", "--fleet", str(manifest), "--repair")[0] == 0
    after = settings.read_bytes().decode()
    assert outside_unchanged(before, after, ['"\'/old/py\' -I -S \'/x/identity_anchor_hook.py\'"',
                                             ',\r\n      "mcp__neo-mjs-retired"'])
    fixed = json.loads(after)
    assert fixed["model"] == "opus" and fixed["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "echo mine"
    assert fixed["permissions"]["allow"] == ["Bash(ls)", "mcp__neo-mjs-memory-core", "Read"]
    assert run(capsys, "plan", "--fleet", str(manifest))[0] == 0


def test_repair_toml_appends_a_new_fleet_hook_table_and_keeps_what_follows(tmp_path, capsys):
    """The fleet gained a hook after the seat was born: the array of tables grows by one, in place;
    the resident's table after it, its comments, blank lines and CRLF stay byte for byte."""
    manifest = write_fleet(tmp_path)
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    config = layout.instance_home(load_manifest(manifest).instance_root, KIMI, "kimi-code") / "config.toml"
    before = crlf(config.read_text() + "\n[providers.mine]   # a provider of my own\ntype = \"openai\"\n")
    config.write_bytes(before.encode())
    write_fleet(tmp_path, '\n[[hooks]]\nevent = "Stop"\ncommand = "/usr/local/bin/notify"\n')
    assert run(capsys, "provision", "--fleet", str(manifest), "--repair")[0] == 0
    after = config.read_bytes().decode()
    assert only_insertions(before, after) and "\n" not in after.replace("\r\n", "")
    assert after.endswith('\r\n\r\n[providers.mine]   # a provider of my own\r\ntype = "openai"\r\n')
    assert [h["event"] for h in tomllib.loads(after)["hooks"]] == ["UserPromptSubmit", "PostCompact", "Stop"]
    assert run(capsys, "plan", "--fleet", str(manifest))[0] == 0


def _random_jsonc(rng, newline: str) -> tuple[str, list[str]]:
    """An opencode.jsonc as a resident might keep it: their own keys and comments around the two
    owned values, which hold other values. Returns (text, the owned value texts in order)."""
    comments = ["", " // mine", " /* note */"]
    instructions = rng.choice(['["/elsewhere/NOTES.md"]', '[]', '[\n    "/a.md",\n    "/b.md"\n  ]', '"AGENTS.md"'])
    server = rng.choice(['{ "type": "local", "command": ["old"], "enabled": true }',
                         '{\n      "type": "local", // edited\n      "command": ["node", "old.js"],\n'
                         '      "environment": { "TOKEN": "t0k" },\n      "enabled": false\n    }',
                         '{ "type": "remote", "url": "https://x.invalid" }'])
    mcp = [('"my-server": { "type": "local", "command": ["mine"] }', rng.choice(comments)),
           (f'"neo-mjs-memory-core": {server}', rng.choice(comments))]
    rng.shuffle(mcp)
    members = [(f'"user_{n}": ' + rng.choice(['"anthropic/claude-sonnet"', "42", "true", '{ "bash": "ask" }',
                                              '["a", "b",]', "null"]), rng.choice(comments))
               for n in range(rng.randint(0, 3))]
    members.insert(rng.randint(0, len(members)), (f'"instructions": {instructions}', rng.choice(comments)))
    members.insert(rng.randint(0, len(members)),
                   ('"mcp": {\n    ' + "\n    ".join(f"{m},{c}" for m, c in mcp) + "\n  }", ""))
    trailing = rng.random() < 0.5  # JSONC allows a comma after the last member; many files have none
    lines = [f"{m}{',' if trailing or i < len(members) - 1 else ''}{c}" for i, (m, c) in enumerate(members)]
    text = "// my config\n{\n  " + "\n  ".join(lines) + "\n}\n"
    held = sorted([instructions, server], key=text.index)
    return text.replace("\n", newline), [h.replace("\n", newline) for h in held]


@pytest.mark.slow  # json5 reads each case a few times: ~0.2 s a case on a shared machine
def test_repair_fuzz_jsonc_never_touches_a_byte_outside_the_owned_values(tmp_path, capsys):
    import random

    manifest = write_fleet(tmp_path)
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    fleet = load_manifest(manifest)
    item = next(f for f in composer.emit_resident(fleet, fleet.resident(OPENCODE)) if f.path.name == "opencode.jsonc")
    rng, repaired = random.Random(20261202), 0
    for case in range(100):
        text, held = _random_jsonc(rng, rng.choice(["\n", "\r\n"]))
        json5.loads(text)  # a valid JSONC file to begin with
        fixed = repair.repair(item.path, item.convergence, text.encode(), item.owned, fleet.mcp_prefix)
        after = fixed.after.decode()
        assert outside_unchanged(text, after, held), (case, text, after)
        assert composer.project(item.convergence, fixed.after, fleet.mcp_prefix) == item.owned
        assert ("\r\n" not in text) or "\n" not in after.replace("\r\n", "")
        repaired += 1
    assert repaired == 100
