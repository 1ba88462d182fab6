"""The canary against the real Kimi Code and OpenCode CLIs, on seats the generators birth.

Outside CI these skip, with the reason, when the CLIs are absent (install them with
`.ci/install-harnesses`). Under CI (CI=true) a missing CLI is a failure, never a silent skip.
"""

from __future__ import annotations

import json
import os

import json5
import pytest

from curator.canary import CliNotFound, find_cli, fingerprint, load_result, run_canary
from curator.canary.seat import seats_from_fleet
from curator.cli import main
from test_canary_fleet import KIMI, OPENCODE, born_fleet, remove_kimi_hook_pair


@pytest.fixture(scope="module")
def harness_clis():
    try:
        return {h: find_cli(h) for h in ("kimi-code", "opencode")}
    except CliNotFound as err:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but a harness CLI is missing — .ci/run must install them: {err}")
        pytest.skip(f"harness CLIs not installed (run `seat-curator install-harnesses`): {err}")


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
