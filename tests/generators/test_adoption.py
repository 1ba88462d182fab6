"""Adopting a repo's own config: `plan` names the adoptable files and shows the diff,
`provision --adopt` adds the fleet's owned keys and keeps every other key and every comment byte
for byte; a file whose owned keys hold other values stays DIVERGENT."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import json5
import pytest

from curator.cli import main
from generators import adoption, composer
from curator import fsio
from generators.adoption import NotAdoptable, _json_adopt
from generators.emission import OPENCODE_CONFIG
from generators.errors import DivergentError
from generators.layout import instance_home
from generators.manifest import load_manifest
from generators.projection import loads_jsonc
from tests.support.fleets import KIMI, OPENCODE, tree_bytes, write_fleet, USER_JSONC, USER_MCP_JSON
from tests.support.byte_checks import only_insertions
USER_CONFIG_TOML = """\
# my kimi settings: keep these comments
[providers.mine]   # a provider of my own
type = "openai"
base_url = "http://127.0.0.1:9999"   # local

[loop_control]
max_steps_per_turn = 40
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fleet_with_user_files(tmp_path):
    manifest = write_fleet(tmp_path)
    fleet = load_manifest(manifest)
    jsonc = tmp_path / "repos" / "juno" / "opencode.jsonc"
    mcp = instance_home(fleet.instance_root, KIMI, "kimi-code") / "mcp.json"  # the seat's own ($KIMI_CODE_HOME)
    mcp.parent.mkdir(parents=True)
    jsonc.parent.mkdir(parents=True)
    jsonc.write_text(USER_JSONC)
    mcp.write_text(USER_MCP_JSON)
    return manifest, fleet, jsonc, mcp


def test_plan_names_the_adoptable_files_and_shows_the_diff(fleet_with_user_files, capsys):
    manifest, _, jsonc, mcp = fleet_with_user_files
    before = tree_bytes(manifest.parent)
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest), "--json")
    assert code == 3 and tree_bytes(manifest.parent) == before
    arts = {Path(a["path"]): a for r in json.loads(out)["residents"] for a in r["artifacts"]}
    for path in (jsonc, mcp):
        assert arts[path]["status"] == "DIVERGENT" and arts[path]["adoptable"] is True
        assert "provision --adopt" in arts[path]["reason"]
        added = [l for l in arts[path]["adopt_diff"].splitlines() if l.startswith("+") and not l.startswith("+++")]
        removed = [l for l in arts[path]["adopt_diff"].splitlines() if l.startswith("-") and not l.startswith("---")]
        assert any('"neo-mjs-memory-core"' in line for line in added)
        assert all(l[1:].rstrip(",") in {a[1:].rstrip(",") for a in added} for l in removed)  # at most a comma
    assert not any(a["adoptable"] for p, a in arts.items() if p not in (jsonc, mcp))
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest))
    assert "adoptable; `provision --adopt` would write:" in out and "(2 adoptable)" in out


def test_provision_without_adopt_refuses_and_writes_nothing(fleet_with_user_files, capsys):
    manifest = fleet_with_user_files[0]
    before = tree_bytes(manifest.parent)
    code, _, err = run(capsys, "provision", "--fleet", str(manifest))
    assert code == 3 and "FLEET_WORKSPACE_DIVERGENT" in err
    assert tree_bytes(manifest.parent) == before


def test_provision_adopt_keeps_every_user_key_and_comment_byte_for_byte(fleet_with_user_files, capsys):
    manifest, fleet, jsonc, mcp = fleet_with_user_files
    code, out, _ = run(capsys, "provision", "--fleet", str(manifest), "--adopt")
    assert code == 0
    # the diff is shown first, then the report
    for path in (jsonc, mcp):
        assert out.index(f"adopting {path}") < out.index(f"+++ {path} (adopted)") < out.index(f"{OPENCODE} (opencode)")
    assert "2 ADOPTED" in out.splitlines()[-1]

    after = jsonc.read_text()
    assert only_insertions(USER_JSONC, after)
    for kept in ("// my own opencode config: keep every word of this", '"model": "anthropic/claude-sonnet", // my model',
                 "/* servers I run myself,\n     across two lines */", "// keep me", '"permission": { "bash": "ask" },'):
        assert kept in after
    doc = json5.loads(after)
    assert doc["model"] == "anthropic/claude-sonnet" and doc["permission"] == {"bash": "ask"}
    assert doc["mcp"]["my-private-server"] == {"type": "local", "command": ["my-mcp", "--quiet"]}
    assert doc["mcp"]["neo-mjs-memory-core"]["command"] == ["node", "server.js", "--stdio"]
    assert [Path(p).name for p in doc["instructions"]] == ["MEMORY.md", "identity.md"]

    strict = mcp.read_text()
    assert only_insertions(USER_MCP_JSON, strict)
    server_doc = json.loads(strict)  # kimi-code reads mcp.json as strict JSON: it stays strict
    assert server_doc["note"] == "mine" and "my-private-server" in server_doc["mcpServers"]
    assert "neo-mjs-memory-core" in server_doc["mcpServers"]

    assert run(capsys, "plan", "--fleet", str(manifest))[0] == 0  # everything MATCH now
    assert run(capsys, "provision", "--fleet", str(manifest), "--adopt")[0] == 0  # and again: nothing to do
    assert jsonc.read_text() == after


def test_owned_keys_holding_other_values_stay_divergent_and_block_adopt(fleet_with_user_files, capsys):
    manifest, _, jsonc, mcp = fleet_with_user_files
    jsonc.write_text(USER_JSONC.replace('  "permission"', '  "instructions": ["AGENTS.md"],\n  "permission"'))
    before = tree_bytes(manifest.parent)
    plan = composer.plan_fleet(load_manifest(manifest), OPENCODE)[0]
    art = next(a for a in plan.artifacts if a.path == jsonc)
    assert art.status == composer.DIVERGENT and art.adoption is None
    assert art.reason == ("owned keys differ: instructions, mcp.neo-mjs-memory-core, mcp.neo-mjs-seat-curator; "
                          "`provision --repair` "
                          "rewrites them in place and keeps the rest of the file")
    code, out, err = run(capsys, "provision", "--fleet", str(manifest), "--adopt")
    assert code == 3 and str(jsonc) in err
    assert tree_bytes(manifest.parent) == before  # the adoptable mcp.json was not written either


def test_kimi_config_toml_adopts_with_tomlkit_and_keeps_comments(tmp_path, capsys):
    manifest = write_fleet(tmp_path)
    fleet = load_manifest(manifest)
    config = next(a.path for a in composer.plan_fleet(fleet, KIMI)[0].artifacts if a.path.name == "config.toml")
    config.parent.mkdir(parents=True)
    config.write_text(USER_CONFIG_TOML)
    config.chmod(0o640)
    code, _, _ = run(capsys, "provision", "--fleet", str(manifest), "--resident", KIMI, "--adopt")
    assert code == 0
    after = config.read_text()
    assert only_insertions(USER_CONFIG_TOML, after)
    doc = tomllib.loads(after)
    assert doc["providers"]["mine"]["base_url"] == "http://127.0.0.1:9999"
    assert doc["loop_control"] == {"max_steps_per_turn": 40}
    assert doc["default_model"] == "kimi-k2" and [h["event"] for h in doc["hooks"]] == ["UserPromptSubmit", "PostCompact",
                                                                                          "PreToolUse"]
    assert (config.stat().st_mode & 0o777) == 0o640  # the resident's file keeps its mode
    assert composer.plan_exit_code(composer.plan_fleet(fleet, KIMI)) == 0


def test_a_file_changed_after_planning_is_re_planned_not_overwritten(fleet_with_user_files):
    _, fleet, jsonc, _ = fleet_with_user_files
    plans = composer.plan_fleet(fleet)
    jsonc.write_text(USER_JSONC.replace('"model"', '"instructions": ["mine"],\n  "model"'))  # now it holds a value
    edited = jsonc.read_bytes()
    with pytest.raises(DivergentError):
        composer.apply_fleet(fleet, plans=plans, adopt=True)
    assert jsonc.read_bytes() == edited


def test_a_write_racing_the_rename_is_never_overwritten(fleet_with_user_files, monkeypatch):
    _, fleet, jsonc, mcp = fleet_with_user_files
    real = fsio.write_temp

    def racing_write_temp(path, data, mode, **how):
        name = real(path, data, mode, **how)
        if Path(path) == jsonc:
            jsonc.write_text(USER_JSONC + "// the user saved again\n")
        return name

    monkeypatch.setattr(fsio, "write_temp", racing_write_temp)
    mcp_before = mcp.read_bytes()
    with pytest.raises(DivergentError, match="changed on disk while it was being adopted"):
        composer.apply_fleet(fleet, adopt=True)
    assert jsonc.read_text().endswith("// the user saved again\n")
    assert mcp.read_bytes() == mcp_before  # written earlier in the run, then restored
    assert [p.name for p in jsonc.parent.iterdir()] == ["opencode.jsonc"]  # no temp file left
    assert not (fleet.instance_root).exists() or not any(fleet.instance_root.rglob("MEMORY.md"))


# ------------------------------------------------------------------ the splicer on its own


INSERTS = [(("mcp", "neo-a"), {"k": 1}, False), (("mcp", "neo-b"), 2, False), (("instructions",), ["m"], False)]



@pytest.mark.parametrize("editor", ["appends", "saves a new file over it"])
def test_a_write_after_the_last_look_is_never_overwritten(fleet_with_user_files, monkeypatch, editor):
    """The user's editor saves after the last comparison and before the rename: the rename is an
    exchange, so what it replaced is checked too, and the user's file is put back, not dropped."""
    _, fleet, jsonc, mcp = fleet_with_user_files
    real = fsio.hold
    saved = []

    def last_look_passed_then_user_saves(fd):
        real(fd)
        beside = [p.name for p in jsonc.parent.iterdir() if p.name.endswith(".tmp")]
        if os.fstat(fd).st_ino == jsonc.stat().st_ino and beside and not saved:  # the new bytes wait in a temp file
            saved.append(True)
            if editor == "appends":
                with open(jsonc, "a") as handle:
                    handle.write("// the user saved again\n")
            else:
                other = jsonc.with_name(".opencode.jsonc.swp")
                other.write_text(USER_JSONC + "// the user saved again\n")
                other.rename(jsonc)

    monkeypatch.setattr(fsio, "hold", last_look_passed_then_user_saves)
    mcp_before = mcp.read_bytes()
    with pytest.raises(DivergentError, match="changed on disk while it was being adopted"):
        composer.apply_fleet(fleet, adopt=True)
    assert jsonc.read_text() == USER_JSONC + "// the user saved again\n"
    assert mcp.read_bytes() == mcp_before
    assert [p.name for p in jsonc.parent.iterdir()] == ["opencode.jsonc"]

@pytest.mark.parametrize("text", [
    "{}", "{\n}\n", '{"a": 1}', '{"a": 1,}', '{\n  "a": 1 // c\n}', '{\n  "a": 1, // c\n}',
    '{\r\n  "a": 1 /* x */\r\n}\r\n', '{\r\n  "a": 1, // c\r\n  "mcp": {\r\n    "x": 1 // d\r\n  }\r\n}\r\n',
    '{\n  "mcp": {} // none yet\n}', '{\n  "mcp": {\n    "x": 1\n  }\n}',
    "{\n  'mcp': {x: 1,},\n}", "\ufeff{\n\t\"a\": [1, {\"b\": \"}\"}]\n}", '// head\n{ /* empty */ }',
    '{\n  "s": "a // not a comment, \\" }",\n  "t": \'{[\'\n}',
])
def test_splicing_only_inserts_and_gives_the_right_document(text):
    out = _json_adopt(text, INSERTS)
    assert only_insertions(text, out), out
    old, new = loads_jsonc(text), loads_jsonc(out)
    assert new["instructions"] == ["m"] and new["mcp"]["neo-a"] == {"k": 1} and new["mcp"]["neo-b"] == 2
    for key in old:
        if key != "mcp":
            assert new[key] == old[key]
    assert {k: v for k, v in new.get("mcp", {}).items() if not k.startswith("neo-")} == old.get("mcp", {})
    if "\r\n" in text:
        assert "\n" not in out.replace("\r\n", "") and "\r" not in out.replace("\r\n", "")


@pytest.mark.parametrize("text, reason", [
    ('{"mcp": 1}', "not an object"),
    ('{"mcp": {}, "mcp": {}}', "appears twice"),
    ("[1]", "cannot place"),
])
def test_splicing_refuses_what_it_cannot_place(text, reason):
    with pytest.raises(NotAdoptable, match=reason):
        _json_adopt(text, INSERTS)


def test_adopt_proves_its_work_and_refuses_held_values(tmp_path):
    path = tmp_path / "opencode.jsonc"
    expected = {"instructions": ["/m/MEMORY.md"], "mcp.neo-mjs-x": {"type": "remote", "url": "u"}}
    found = b'{\n  "mcp": {"mine": {"type": "remote", "url": "v"}}\n}\n'
    result = adoption.adopt(path, OPENCODE_CONFIG, found, expected, "neo-mjs-")
    assert result.added_keys == ("instructions", "mcp.neo-mjs-x") and result.before == found
    assert json5.loads(result.after)["mcp"]["mine"] == {"type": "remote", "url": "v"}
    assert result.diff.startswith(f"--- {path} (on disk)\n+++ {path} (adopted)\n")
    held = b'{"instructions": ["other"]}'
    with pytest.raises(NotAdoptable, match="already hold other values: instructions") as caught:
        adoption.adopt(path, OPENCODE_CONFIG, held, expected, "neo-mjs-")
    assert caught.value.held


def test_provision_adopt_json_reports_adopted_files_with_what_was_written(fleet_with_user_files, capsys):
    manifest, _, jsonc, mcp = fleet_with_user_files
    code, out, _ = run(capsys, "provision", "--fleet", str(manifest), "--adopt", "--json")
    assert code == 0
    arts = {Path(a["path"]): a for r in json.loads(out)["residents"] for a in r["artifacts"]}
    for path in (jsonc, mcp):
        assert arts[path]["status"] == "ADOPTED" and arts[path]["adoptable"] is False
        assert f"+++ {path} (adopted)" in arts[path]["adopt_diff"]
    assert {a["status"] for p, a in arts.items() if p not in (jsonc, mcp)} == {"CREATED"}


def test_an_edit_that_rewrites_old_bytes_is_refused(monkeypatch, tmp_path):
    expected = {"instructions": ["/m/MEMORY.md"]}
    found = b'{\n  "model": "x"\n}\n'
    monkeypatch.setattr(adoption, "_json_adopt", lambda text, inserts: text.replace('"x"', '"y"').replace(
        "{\n", '{\n  "instructions": ["/m/MEMORY.md"],\n'))
    with pytest.raises(NotAdoptable, match="change keys the fleet does not own"):
        adoption.adopt(tmp_path / "opencode.jsonc", OPENCODE_CONFIG, found, expected, "neo-mjs-")
    monkeypatch.setattr(adoption, "_json_adopt", lambda text, inserts: text.replace('": "x"', '":"x"').replace(
        "{\n", '{\n  "instructions": ["/m/MEMORY.md"],\n'))
    with pytest.raises(NotAdoptable, match="rewrite bytes outside the owned keys"):
        adoption.adopt(tmp_path / "opencode.jsonc", OPENCODE_CONFIG, found, expected, "neo-mjs-")


def test_an_editor_that_trips_is_an_unadoptable_file_not_a_crash(monkeypatch, tmp_path):
    def broken(text, inserts):
        raise KeyError("surprise")

    monkeypatch.setattr(adoption, "_json_adopt", broken)
    with pytest.raises(NotAdoptable, match="cannot be edited safely"):
        adoption.adopt(tmp_path / "opencode.jsonc", OPENCODE_CONFIG, b"{}", {"instructions": ["/m"]}, "neo-mjs-")
    big = b'{"pad": "' + b"x" * adoption.MAX_BYTES + b'"}'
    with pytest.raises(NotAdoptable, match="not edited"):
        adoption.adopt(tmp_path / "opencode.jsonc", OPENCODE_CONFIG, big, {"instructions": ["/m"]}, "neo-mjs-")


def test_random_commented_documents_all_adopt_and_keep_their_bytes():
    """Seeded: documents of random shape, indentation, comments and line endings."""
    import random

    rng = random.Random(7)

    def value(depth=0):
        roll = rng.random()
        if depth > 2 or roll < 0.4:
            return rng.choice([1, 's}{//"', True, None, 2.5, "/* x */", "a'b"])
        if roll < 0.7:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return {f"k{i}": value(depth + 1) for i in range(rng.randint(0, 3))}

    def decorate(text):
        lines = []
        for line in text.split("\n"):
            roll = rng.random()
            if roll < 0.2 and not line.rstrip().endswith(("{", "[")):
                line += f" // note {rng.randint(0, 9)}"
            elif roll < 0.3:
                line += " /* b */"
            lines.append(line)
        out = ("// header\n" if rng.random() < 0.3 else "") + "\n".join(lines) + "\n"
        return out.replace("\n", "\r\n") if rng.random() < 0.2 else out

    expected = {"instructions": ["/m/MEMORY.md", "/m/identity.md"], "mcp.neo-mjs-a": {"type": "local", "command": ["x"]}}
    for _ in range(60):  # json5 parses slowly; 400 seeds were also run once by hand, all green
        doc = {f"u{i}": value() for i in range(rng.randint(0, 4))}
        if rng.random() < 0.5:
            doc["mcp"] = {"mine": value()}
        text = decorate(json.dumps(doc, indent=rng.choice([2, 4, "\t"])))
        result = adoption.adopt(Path("/r/opencode.jsonc"), OPENCODE_CONFIG, text.encode(), expected, "neo-mjs-")
        after = result.after.decode()
        assert only_insertions(text, after)
        new = loads_jsonc(after)
        assert {k: v for k, v in new.items() if k not in ("instructions", "mcp")} == \
            {k: v for k, v in doc.items() if k != "mcp"}
        assert new["mcp"].get("mine") == doc.get("mcp", {}).get("mine")


def test_array_entries_append_after_comments_and_trailing_commas_and_the_proof_strips_them():
    text = '{\n  "allow": [\n    "mine", // my rule\n  ],\n  /* keep */ "deny": ["x"],\n}\n'
    out = _json_adopt(text, [(("allow",), ["neo-a", "neo-b"], True), (("hooks", "start"), [{"k": 1}], True)])
    assert only_insertions(text, out), out
    new = loads_jsonc(out)
    assert new["allow"] == ["mine", "neo-a", "neo-b"] and new["hooks"] == {"start": [{"k": 1}]}
    assert new["deny"] == ["x"] and "// my rule" in out and "/* keep */" in out
    stripped = json5.loads(out)
    adoption._remove(stripped, ("allow",), ["neo-a", "neo-b"])
    assert stripped["allow"] == ["mine"]
    with pytest.raises(NotAdoptable):  # entries that are not the array's last ones: the proof refuses
        adoption._remove(stripped, ("allow",), ["neo-a"])
