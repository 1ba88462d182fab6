"""The canary against the real Kimi Code, OpenCode and Claude Code CLIs, on seats the generators birth.

Outside CI these skip, with the reason, when the CLIs are absent (install them with
`.ci/install-harnesses`). Under CI (CI=true) a missing CLI is a failure, never a silent skip.
"""

from __future__ import annotations

import json
import os

import json5
import pytest

import hashlib
import re
import subprocess

from curator import claude_loader
from curator.canary import CliNotFound, find_cli, fingerprint, load_result, run_canary
from curator.canary.runner import CLAUDE_ARGS
from curator.canary.sandbox import prepare_claude
from curator.canary.seat import Seat, seats_from_fleet
from curator.canary.stub import StubModel
from curator.cli import main
from curator.index_model import parse_index
from curator.load_sim import simulate
from generators.composer import apply_fleet
from generators.manifest import load_manifest
from tests.support.canary import born_fleet, remove_kimi_hook_pair
from tests.support.claude_indexes import ascii_index_cut_at_127, korean_index, loader_cases
from tests.support.fleets import KIMI, OPENCODE, write_fleet
from tests.support.paths import DATA

pytestmark = [pytest.mark.canary, pytest.mark.xdist_group("canary")]


def seat_files(fleet) -> dict[str, str]:
    return fingerprint(*[p for seat in seats_from_fleet(fleet) for p in (seat.instance_home, seat.memory_dir, seat.repo)])


def test_born_fleet_passes_and_seats_stay_untouched(harness_clis, tmp_path, monkeypatch):
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "state"))
    fleet = born_fleet(tmp_path / "fleet")
    before = seat_files(fleet)
    assert len(before) >= 13  # four memory files a seat, config, hook, mcp.json, opencode.jsonc, wake script

    result = run_canary(fleet, progress=lambda _msg: None)

    assert [(r.resident, r.status) for r in result.residents] == [(KIMI, "PASS"), (OPENCODE, "PASS")], result.to_json()
    kimi, opencode = result.residents
    assert [(s.step, s.status) for s in kimi.steps] == [
        ("boot", "PASS"), ("silent", "PASS"), ("compact", "PASS"), ("compact-turn-index", "INFO"), ("reload", "PASS")]
    assert [(s.step, s.status) for s in opencode.steps] == [
        ("boot", "PASS"), ("compact", "PASS"), ("after-compaction", "PASS")]
    memory = (seats_from_fleet(fleet, KIMI)[0].memory_dir / "MEMORY.md").read_bytes()
    assert f"MEMORY.md: {len(memory)} bytes arrived, identical to disk" in kimi.steps[0].evidence
    assert result.exit_code == 0
    assert seat_files(fleet) == before  # every file under home, memory dir and repo byte-identical
    assert load_result(fleet.path, KIMI).status == "PASS"  # kept for the app's fleet panel


def test_broken_wiring_fails_naming_the_missing_piece(harness_clis, tmp_path, capsys, monkeypatch):
    """kimi-code without its hook pair; opencode without identity.md in ``instructions`` (one run, both seats)."""
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "state"))
    fleet = born_fleet(tmp_path / "fleet")
    remove_kimi_hook_pair(fleet)
    jsonc = seats_from_fleet(fleet, OPENCODE)[0].repo / "opencode.jsonc"
    project = json5.loads(jsonc.read_text(encoding="utf-8"))
    project["instructions"] = [p for p in project["instructions"] if not p.endswith("/identity.md")]
    assert len(project["instructions"]) == 1
    jsonc.write_text(json.dumps(project, indent=2), encoding="utf-8")

    code = main(["canary", "--fleet", str(fleet.path), "--json"])

    assert code == 4
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "FAIL"
    kimi, opencode = ({s["step"]: s for s in r["steps"]} for r in report["residents"])
    assert kimi["boot"]["status"] == "FAIL"
    assert any("no [[hooks]] entry for UserPromptSubmit" in e for e in kimi["boot"]["evidence"])
    assert any("no [[hooks]] entry for PostCompact" in e for e in kimi["compact"]["evidence"])
    assert kimi["reload"]["status"] == "FAIL"
    for name in ("boot", "after-compaction"):
        assert opencode[name]["status"] == "FAIL"
        assert any("identity.md missing from the system prompt; identity.md is not in opencode.jsonc instructions" in e
                   for e in opencode[name]["evidence"])
    assert any("MEMORY.md" in e and "identical to disk" in e for e in opencode["boot"]["evidence"])
    assert load_result(fleet.path, OPENCODE).status == "FAIL"


# ------------------------------------------------------------------------------------- Claude Code

CLAUDE = "@neo-claude-vega"
CLAUDE_RESIDENT = f"""
[[residents]]
agent_id = "{CLAUDE}"
harness = "claude-code"
repo = "repos/vega"
"""
RECORDED_LOADS = DATA / "claude-code-memory-loads.json"


@pytest.fixture(scope="module")
def claude_cli():
    try:
        return find_cli("claude-code")
    except CliNotFound as err:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the Claude Code CLI is missing — .ci/run must install it: {err}")
        pytest.skip(f"Claude Code CLI not installed (run `seat-curator install-harnesses`): {err}")


def born_claude_seat(directory, memory_md: bytes | None = None):
    fleet = load_manifest(write_fleet(directory, residents=CLAUDE_RESIDENT))
    apply_fleet(fleet)
    seat = seats_from_fleet(fleet, CLAUDE)[0]
    if memory_md is not None:
        (seat.memory_dir / "MEMORY.md").write_bytes(memory_md)
    return fleet, seat


def claude_canary(fleet, cli):
    return run_canary(fleet, progress=lambda _msg: None, claude_cli=cli.argv[0])  # the CLI the fixture found


def test_born_claude_seat_passes_and_stays_untouched(claude_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "state"))
    fleet, seat = born_claude_seat(tmp_path / "fleet")
    before = fingerprint(seat.instance_home, seat.memory_dir, seat.repo)
    assert len(before) == 8  # four memory files, settings.json, the two hooks, the repo's .mcp.json

    result = claude_canary(fleet, claude_cli)

    (resident,) = result.residents
    assert resident.status == "PASS", result.to_json()
    assert [(s.step, s.status) for s in resident.steps] == [
        ("boot", "PASS"), ("compact", "PASS"), ("after-compaction", "PASS"), ("index-cut", "INFO")]
    memory = (seat.memory_dir / "MEMORY.md").read_bytes()
    identity = (seat.memory_dir / "identity.md").read_bytes()
    for step in resident.steps[0], resident.steps[2]:
        assert f"MEMORY.md: {len(memory)} bytes arrived, identical to disk" in step.evidence
        assert f"identity.md: {len(identity)} bytes arrived, identical to disk" in step.evidence
    assert fingerprint(seat.instance_home, seat.memory_dir, seat.repo) == before
    assert load_result(fleet.path, CLAUDE).status == "PASS"


def test_claude_seat_without_its_session_start_entry_fails_naming_it(claude_cli, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "state"))
    fleet, seat = born_claude_seat(tmp_path / "fleet")
    settings = seat.instance_home / "settings.json"
    doc = json.loads(settings.read_text(encoding="utf-8"))
    assert doc["hooks"].pop("SessionStart")
    settings.write_text(json.dumps(doc, indent=2), encoding="utf-8")

    code = main(["canary", "--fleet", str(fleet.path), "--claude-cli", claude_cli.argv[0], "--json"])

    assert code == 4
    (report,) = json.loads(capsys.readouterr().out)["residents"]
    steps = {s["step"]: s for s in report["steps"]}
    for name in ("boot", "after-compaction"):
        assert steps[name]["status"] == "FAIL"
        assert any(e.startswith("settings.json has no hooks.SessionStart entry running identity_anchor_hook.py")
                   for e in steps[name]["evidence"])
        assert any(e.startswith("MEMORY.md: ") and "identical to disk" in e for e in steps[name]["evidence"])
    assert steps["compact"]["status"] == "PASS"


def test_claude_korean_index_under_200_lines_loads_whole_and_the_profile_agrees(claude_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "state"))
    raw = korean_index()  # 122 lines, 37,687 B, 14,438 characters
    fleet, seat = born_claude_seat(tmp_path / "fleet", raw)
    profile = simulate(parse_index(raw), None, "claude-code")
    assert (profile.cut_line, profile.dropped, profile.warning) == (None, (), None)

    (resident,) = claude_canary(fleet, claude_cli).residents

    steps = {s.step: s for s in resident.steps}
    assert resident.status == "PASS", resident.to_json()
    assert f"MEMORY.md: {len(raw)} bytes arrived, identical to disk" in steps["boot"].evidence
    assert f"MEMORY.md: {len(raw)} bytes arrived, identical to disk" in steps["after-compaction"].evidence
    assert steps["index-cut"].status == "INFO"
    assert steps["index-cut"].evidence == ["122/200 lines, 14,438/25,000 characters (as the harness counts them)"]


def test_claude_ascii_index_is_cut_where_the_profile_says(claude_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "state"))
    raw = ascii_index_cut_at_127()  # 152 lines, 29,857 B
    fleet, seat = born_claude_seat(tmp_path / "fleet", raw)
    profile = simulate(parse_index(raw), None, "claude-code")
    assert (profile.cut_line, profile.cut_offset) == (127, 24_881)

    (resident,) = claude_canary(fleet, claude_cli).residents

    steps = {s.step: s for s in resident.steps}
    assert resident.status == "PASS", resident.to_json()
    cut = steps["index-cut"]
    assert cut.status == "PASS" and cut.summary == "the harness cut at line 128, where the load simulation says"
    assert cut.evidence[0] == f"harness: {profile.warning}"
    assert cut.evidence[1] == f"load simulation: {profile.warning}"
    assert "starting at line 128" in profile.warning


def test_claude_loader_cases_recorded_are_what_the_real_cli_sends_now(claude_cli, tmp_path):
    """Re-records every case of tests/data/claude-code-memory-loads.json against the installed CLI:
    the recording the unit tests trust must be what the pinned harness does. With
    SEAT_CURATOR_RERECORD=1 it writes the recording instead (after a deliberate CLI upgrade)."""
    document = json.loads(RECORDED_LOADS.read_text(encoding="utf-8"))
    recorded, fresh = document["cases"], {}
    mismatched = []
    with StubModel() as stub:
        for name, raw in loader_cases().items():
            root = tmp_path / name
            home, repo = root / "config", root / "repo"
            (home / "memory").mkdir(parents=True)
            repo.mkdir()
            (home / "memory" / "MEMORY.md").write_bytes(raw)
            (home / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(home / "memory")}))
            box = prepare_claude(Seat(name, "claude-code", home, home / "memory", repo), root / "run",
                                 stub.anthropic_base_url)
            subprocess.run([*claude_cli.argv, "-p", "hi", *CLAUDE_ARGS], cwd=box.cwd, env=box.env, timeout=60,
                           stdin=subprocess.DEVNULL, capture_output=True, check=True)
            first = stub.take_requests()[0]["messages"][0]["content"][0]["text"]
            header = f"Contents of {home / 'memory' / 'MEMORY.md'} (user's auto-memory, persists across conversations):\n\n"
            wire = first[first.index(header) + len(header):]
            wire = wire[:wire.index("\n</system-reminder>")]
            warning = re.search(r"^> WARNING: .*$", wire, re.M)
            got = {"sha256": hashlib.sha256(wire.encode("utf-8", "surrogatepass")).hexdigest(),
                   "characters": claude_loader.units(wire), "warning": warning.group(0) if warning else None}
            fresh[name] = got
            if got != recorded.get(name):
                mismatched.append(name)
    if os.environ.get("SEAT_CURATOR_RERECORD") == "1":
        document["cases"] = fresh
        RECORDED_LOADS.write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")
        return
    assert set(recorded) == set(fresh) and mismatched == []
