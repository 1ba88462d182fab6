"""The fleet commands end to end through the real CLI entry point: exit codes, --json, files on disk."""

from __future__ import annotations

import json

from curator.cli import main
from tests.support.fleets import KIMI, OPENCODE, tree_bytes, write_fleet


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_init_fleet_writes_once_and_never_overwrites(tmp_path, capsys):
    code, out, _ = run(capsys, "init-fleet", str(tmp_path / "ops"))
    manifest = tmp_path / "ops" / "fleet.toml"
    assert code == 0 and str(manifest) in out
    written = manifest.read_bytes()
    assert b'harness = "kimi-code"' in written and b'harness = "opencode"' in written
    code, _, err = run(capsys, "init-fleet", str(tmp_path / "ops"))
    assert code == 1 and "already exists" in err and "FLEET_WORKSPACE_PREPARATION_FAILED" in err
    assert manifest.read_bytes() == written
    code, _, _ = run(capsys, "plan", "--fleet", str(manifest))
    assert code == 2


def test_plan_provision_plan_cycle_with_json(tmp_path, capsys):
    manifest = write_fleet(tmp_path)
    before = tree_bytes(tmp_path)
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest), "--json")
    assert code == 2 and tree_bytes(tmp_path) == before
    report = json.loads(out)
    assert list(report) == ["residents"]
    kimi, oc = report["residents"]
    assert list(kimi) == ["agent_id", "harness", "instance_home", "memory_dir", "repo", "artifacts"]
    assert (kimi["agent_id"], kimi["harness"], oc["agent_id"]) == (KIMI, "kimi-code", OPENCODE)
    assert list(kimi["artifacts"][0]) == ["path", "owner", "status", "owned_keys", "reason", "diff",
                                         "adoptable", "adopt_diff", "repairable", "repair_diff"]
    assert [a["status"] for a in kimi["artifacts"]] == ["PENDING"] * 8
    assert [a["owner"] for a in oc["artifacts"]] == ["bearer"] * 4 + ["fleet"] * 2

    code, out, _ = run(capsys, "provision", "--fleet", str(manifest))
    assert code == 0 and "14 CREATED" in out
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest))
    assert code == 0 and "14 MATCH, 0 PENDING, 0 DIVERGENT" in out


def test_divergence_exit_3_writes_nothing_then_set_aside_recovers(tmp_path, capsys):
    manifest = write_fleet(tmp_path)
    assert run(capsys, "provision", "--fleet", str(manifest), "--resident", KIMI)[0] == 0
    plan = json.loads(run(capsys, "plan", "--fleet", str(manifest), "--resident", KIMI, "--json")[1])
    config = next(a["path"] for a in plan["residents"][0]["artifacts"] if a["path"].endswith("config.toml"))
    with open(config, "a") as handle:
        handle.write('\n[[hooks]]\nevent = "Stop"\ncommand = "sneaky"\n')
    before = tree_bytes(tmp_path)

    code, out, _ = run(capsys, "plan", "--fleet", str(manifest), "--json")
    assert code == 3
    found = next(a for r in json.loads(out)["residents"] for a in r["artifacts"] if a["path"] == config)
    assert found["status"] == "DIVERGENT" and found["reason"].startswith("owned keys differ: hooks; `provision --repair`")
    assert '+      "command": "sneaky",' in found["diff"]

    code, out, err = run(capsys, "provision", "--fleet", str(manifest))
    assert code == 3 and out == ""
    assert err.startswith("seat-curator: FLEET_WORKSPACE_DIVERGENT: ")
    assert config in err and "hooks" in err and "nothing was written" in err and len(err.splitlines()) == 1
    assert tree_bytes(tmp_path) == before  # the opencode seat was not born either

    code, out, _ = run(capsys, "set-aside", "--fleet", str(manifest), "--resident", KIMI, config)
    assert code == 0 and ".divergent-" in out
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    assert run(capsys, "plan", "--fleet", str(manifest))[0] == 0
    kept = list((tmp_path / "instances").rglob("config.toml.divergent-*"))
    assert len(kept) == 1 and b"sneaky" in kept[0].read_bytes()


def test_errors_are_one_line_with_exit_1(tmp_path, capsys):
    manifest = write_fleet(tmp_path, residents='\n[[residents]]\nagent_id = "@x"\nharness = "kimi"\nrepo = "r"\n')
    code, out, err = run(capsys, "plan", "--fleet", str(manifest))
    assert code == 1 and out == "" and len(err.splitlines()) == 1
    line = manifest.read_text().splitlines().index('harness = "kimi"') + 1
    assert "FLEET_WORKSPACE_UNSUPPORTED" in err and f"residents[0].harness (line {line})" in err and str(manifest) in err
    code, _, err = run(capsys, "plan", "--fleet", str(tmp_path / "nope.toml"))
    assert code == 1 and "no such file" in err
    good = write_fleet(tmp_path / "good")
    code, _, err = run(capsys, "set-aside", "--fleet", str(good), "--resident", "@ghost", "/tmp/x")
    assert code == 1 and "no resident '@ghost'" in err
    code, _, err = run(capsys, "plan", "--fleet", str(good), "--resident", "@ghost")
    assert code == 1 and "no resident '@ghost'" in err


def test_hook_python_is_a_per_host_setting_and_a_moved_interpreter_is_repaired(tmp_path, capsys):
    manifest = write_fleet(tmp_path)
    code, _, _ = run(capsys, "provision", "--fleet", str(manifest), "--hook-python", "/opt/host-a/bin/python3")
    assert code == 0
    config = next(tmp_path.rglob("config.toml"))
    assert "'/opt/host-a/bin/python3' -I -S" in config.read_text()
    # The host's interpreter moved: the owned hook commands differ, and repair rewrites just them.
    assert run(capsys, "plan", "--fleet", str(manifest), "--hook-python", "/opt/host-b/bin/python3")[0] == 3
    code, out, _ = run(capsys, "provision", "--fleet", str(manifest), "--hook-python", "/opt/host-b/bin/python3",
                       "--repair")
    assert code == 0 and "REPAIRED" in out
    assert "host-a" not in config.read_text() and "'/opt/host-b/bin/python3' -I -S" in config.read_text()
    code, _, err = run(capsys, "plan", "--fleet", str(manifest), "--hook-python", "python3")
    assert code == 1 and "--hook-python must be an absolute interpreter path" in err
