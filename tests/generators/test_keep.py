"""Keep by hand: a resident's `keep = [...]` files are KEPT (never written, never blocking), the rest
of the seat provisions, and the canary still reads the kept file as it is. Set-aside names what the
re-created file will lack."""

from __future__ import annotations

import json

import pytest

from curator.canary.sandbox import prepare_kimi
from curator.canary.seat import seats_from_fleet
from curator.cli import main
from generators import composer, layout
from generators.manifest import load_manifest
from tests.support.fleets import KIMI, OPENCODE, tree_bytes, write_fleet

MY_CONFIG = b"""# my own kimi config: no fleet hooks, my own model
default_model = "my-model"
default_permission_mode = "yolo"

[providers.mine]
type = "openai"
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def kept_fleet(tmp_path, keep: str = '["config.toml"]'):
    residents = (f'\n[[residents]]\nagent_id = "{KIMI}"\nharness = "kimi-code"\nrepo = "repos/iris"\nkeep = {keep}\n'
                 f'\n[[residents]]\nagent_id = "{OPENCODE}"\nharness = "opencode"\nrepo = "repos/juno"\n')
    manifest = write_fleet(tmp_path, residents=residents)
    fleet = load_manifest(manifest)
    config = layout.instance_home(fleet.instance_root, KIMI, "kimi-code") / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_bytes(MY_CONFIG)
    return manifest, fleet, config


def test_a_kept_file_is_kept_and_the_rest_of_the_seat_provisions(tmp_path, capsys):
    manifest, fleet, config = kept_fleet(tmp_path)
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest), "--json")
    assert code == 2  # only PENDING files left: the kept file blocks nothing
    arts = {a["path"]: a for r in json.loads(out)["residents"] for a in r["artifacts"]}
    kept = arts[str(config)]
    assert kept["status"] == "KEPT" and "kept by hand" in kept["reason"] and "default_model" in kept["reason"]
    assert not kept["repairable"] and not kept["adoptable"]
    assert {a["status"] for p, a in arts.items() if p != str(config)} == {"PENDING"}

    code, out, _ = run(capsys, "provision", "--fleet", str(manifest))
    assert code == 0 and "1 KEPT" in out.splitlines()[-1]
    assert config.read_bytes() == MY_CONFIG  # never written
    home = config.parent
    assert (home / "hooks" / "identity_anchor_hook.py").is_file() and (home / "memory" / "MEMORY.md").is_file()
    assert (home / "mcp.json").is_file() and (home / "hooks" / "cap_guard_hook.py").is_file()

    before = tree_bytes(tmp_path)
    assert run(capsys, "plan", "--fleet", str(manifest))[0] == 0
    assert run(capsys, "provision", "--fleet", str(manifest), "--repair")[0] == 0  # repair leaves it too
    assert tree_bytes(tmp_path) == before


def test_the_canary_still_reads_the_kept_file_as_it_is(tmp_path, capsys):
    manifest, fleet, config = kept_fleet(tmp_path)
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    seat = seats_from_fleet(fleet, KIMI)[0]
    seat.repo.mkdir(parents=True, exist_ok=True)  # the repo kimi runs in
    sandbox = prepare_kimi(seat, tmp_path / "sandbox", "http://127.0.0.1:1")
    assert sandbox.wiring["hook_events"] == []  # the kept file wires no identity hook: the canary sees that


def test_an_absent_kept_file_is_born_with_the_fleets_version(tmp_path, capsys):
    manifest, fleet, config = kept_fleet(tmp_path)
    config.unlink()
    plan = composer.plan_fleet(fleet, KIMI)[0]
    assert next(a for a in plan.artifacts if a.path == config).status == composer.PENDING
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0 and b"[[hooks]]" in config.read_bytes()


@pytest.mark.parametrize("keep,message", [
    ('["settings.json"]', "keep names 'settings.json', none of this seat's fleet files (config.toml, mcp.json"),
    ('["MEMORY.md"]', "keep names 'MEMORY.md', none of this seat's fleet files"),
])
def test_keep_naming_no_fleet_file_is_one_line_naming_the_manifest(tmp_path, capsys, keep, message):
    manifest, _, _ = kept_fleet(tmp_path, keep)
    before = tree_bytes(tmp_path)
    code, _, err = run(capsys, "plan", "--fleet", str(manifest))
    assert code == 1 and message in err and str(manifest) in err and len(err.strip().splitlines()) == 1
    assert tree_bytes(tmp_path) == before


def test_keep_must_be_a_list_of_strings(tmp_path, capsys):
    manifest = write_fleet(tmp_path, residents=f'\n[[residents]]\nagent_id = "{KIMI}"\nharness = "kimi-code"\n'
                                               'repo = "repos/iris"\nkeep = [1]\n')
    code, _, err = run(capsys, "plan", "--fleet", str(manifest))
    assert code == 1 and "residents[0].keep" in err and "item 0 must be a string" in err


def test_set_aside_names_the_residents_keys_the_new_file_will_lack(tmp_path, capsys):
    manifest = write_fleet(tmp_path)
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    jsonc = tmp_path / "repos" / "juno" / "opencode.jsonc"
    text = jsonc.read_text().replace('"instructions": [', '"model": "anthropic/claude-sonnet",\n  "instructions": ["/x.md",', 1)
    jsonc.write_text(text)
    code, out, _ = run(capsys, "set-aside", "--fleet", str(manifest), "--resident", OPENCODE, str(jsonc))
    assert code == 0
    assert "The re-created file will lack the resident's own model: they stay only in the renamed copy." in out
    assert "`provision --repair` rewrites only the owned values and keeps them." in out


def test_set_aside_of_a_toml_config_names_the_residents_tables(tmp_path, capsys):
    manifest = write_fleet(tmp_path)
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    config = layout.instance_home(load_manifest(manifest).instance_root, KIMI, "kimi-code") / "config.toml"
    config.write_text(config.read_text().replace('"manual"', '"yolo"') + '\n[providers.mine]\ntype = "openai"\n')
    code, out, _ = run(capsys, "set-aside", "--fleet", str(manifest), "--resident", KIMI, str(config))
    assert code == 0 and "will lack the resident's own providers: they stay only in the renamed copy" in out
