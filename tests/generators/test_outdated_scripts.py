"""A seat script an earlier seat-curator wrote is OUTDATED, not DIVERGENT: plain ``provision`` writes
this version over it (owner and mode kept) and the fleet's provisioning does not stop. A hand edit
(one byte, or a literal's value) stays DIVERGENT and still refuses. The earlier generations are real
ones from this repository's history (tests.support.prior_scripts)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from curator.cli import main
from generators import composer, layout
from generators.manifest import load_manifest
from tests.support.fleets import KIMI, OPENCODE, tree_bytes, write_fleet
from tests.support.prior_scripts import HOOK_71C2C7F, WAKE_ECC5401, as_emitted_for, make_outdated


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def seats(tmp_path, capsys):
    """A provisioned fleet (kimi-code + opencode), every file MATCH: (manifest, hook, wake script)."""
    manifest = write_fleet(tmp_path)
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    fleet = load_manifest(manifest)
    hook = layout.instance_home(fleet.instance_root, KIMI, "kimi-code") / "hooks" / "identity_anchor_hook.py"
    wake = layout.seat_path(fleet.instance_root, OPENCODE, "opencode", "write_wake_envelope.py")
    assert hook.is_file() and wake.is_file()
    return manifest, hook, wake


def artifact_json(out: str, path: Path) -> dict:
    return next(a for r in json.loads(out)["residents"] for a in r["artifacts"] if a["path"] == str(path))


@pytest.mark.parametrize("earlier", [HOOK_71C2C7F, WAKE_ECC5401], ids=["identity-hook", "wake-script"])
def test_an_earlier_generation_plans_outdated_and_plain_provision_writes_this_version(seats, capsys, earlier):
    manifest, hook, wake = seats
    script = hook if earlier == HOOK_71C2C7F else wake
    current = script.read_bytes()
    assert make_outdated(script, earlier) != current
    os.chmod(script, 0o750)  # the resident's mode (and owner) on the file: the rewrite keeps them
    if os.geteuid() == 0:
        os.chown(script, 4321, 4321)
    before = tree_bytes(manifest.parent)

    code, out, _ = run(capsys, "plan", "--fleet", str(manifest), "--json")
    assert code == 2 and tree_bytes(manifest.parent) == before  # something to write, nothing blocks
    art = artifact_json(out, script)
    assert art["status"] == "OUTDATED" and "earlier seat-curator" in art["reason"]
    assert art["repairable"] is False and art["adoptable"] is False  # no flag is needed to write it

    code, out, _ = run(capsys, "plan", "--fleet", str(manifest))
    assert code == 2
    assert re.search(rf"^  OUTDATED  fleet  {re.escape(str(script))}$", out, re.MULTILINE)
    assert "written by an earlier seat-curator" in out and "1 OUTDATED" in out.splitlines()[-1]

    code, out, _ = run(capsys, "provision", "--fleet", str(manifest))  # no --repair
    assert code == 0
    assert re.search(rf"^  UPDATED   fleet  {re.escape(str(script))}$", out, re.MULTILINE)
    assert "1 UPDATED" in out.splitlines()[-1]
    assert script.read_bytes() == current
    info = script.stat()
    assert info.st_mode & 0o7777 == 0o750
    if os.geteuid() == 0:
        assert (info.st_uid, info.st_gid) == (4321, 4321)
    assert run(capsys, "plan", "--fleet", str(manifest))[0] == 0  # every file MATCH again


def test_provision_json_reports_updated(seats, capsys):
    manifest, hook, _ = seats
    make_outdated(hook)
    code, out, _ = run(capsys, "provision", "--fleet", str(manifest), "--json")
    assert code == 0
    art = artifact_json(out, hook)
    assert art["status"] == "UPDATED" and "earlier seat-curator" in art["reason"]


def test_the_composer_writes_an_outdated_script_through_the_guarded_replace(seats):
    manifest, hook, _ = seats
    current = hook.read_bytes()
    make_outdated(hook)
    fleet = load_manifest(manifest)
    art = next(a for a in composer.plan_fleet(fleet, KIMI)[0].artifacts if a.path == hook)
    assert art.status == composer.OUTDATED and art.repair is None and art.update is not None
    assert art.update.after == current
    after = composer.apply_fleet(fleet)
    assert next(a for p in after for a in p.artifacts if a.path == hook).status == composer.UPDATED


def _one_byte_changed(data: bytes) -> bytes:
    at = data.index(b"def ")  # a byte of code, not of a literal
    return data[:at] + b"D" + data[at + 1:]


@pytest.mark.parametrize("edit", ["earlier-one-byte", "earlier-literal-value", "current-one-byte"])
def test_a_hand_edit_stays_divergent_and_provision_still_refuses(seats, capsys, edit):
    manifest, hook, _ = seats
    current = hook.read_bytes()
    earlier = as_emitted_for(HOOK_71C2C7F.read_bytes(), current)
    if edit == "earlier-one-byte":
        edited = _one_byte_changed(earlier)
    elif edit == "earlier-literal-value":  # the code is an earlier seat-curator's, the memory dir a hand's
        edited = re.sub(rb"^MEMORY_DIR = '", b"MEMORY_DIR = '/elsewhere", earlier, count=1, flags=re.MULTILINE)
    else:
        edited = _one_byte_changed(current)
    assert edited not in (earlier, current)
    hook.write_bytes(edited)
    before = tree_bytes(manifest.parent)
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest), "--json")
    assert code == 3 and artifact_json(out, hook)["status"] == "DIVERGENT"
    code, _, err = run(capsys, "provision", "--fleet", str(manifest))
    assert code == 3 and "FLEET_WORKSPACE_DIVERGENT" in err and tree_bytes(manifest.parent) == before


def test_an_outdated_script_is_not_written_while_another_file_diverges(seats, capsys):
    manifest, hook, wake = seats
    old = make_outdated(hook)
    wake.write_bytes(wake.read_bytes() + b"# a hand edit\n")
    before = tree_bytes(manifest.parent)
    code, _, err = run(capsys, "provision", "--fleet", str(manifest))
    assert code == 3 and str(wake) in err and tree_bytes(manifest.parent) == before
    assert hook.read_bytes() == old
