"""The boot canary against the real Codex CLI and Gemini CLI, offline against the loopback stub, on
seats the generators birth — boot, then compaction (Codex: between turns at `exec resume`, and
mid-turn; Gemini: its automatic compression in a resumed turn) — and the negative cases, which must
fail naming what is missing.

Outside CI these skip, with the reason, when a CLI is absent (`seat-curator install-harnesses`).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading

import pytest

from curator.canary import CliNotFound, find_cli, run_canary
from curator.canary.seat import seats_from_fleet
from generators.composer import apply_fleet
from generators.manifest import load_manifest
from tests.support.fleets import CODEX, CODEX_RESIDENT, GEMINI, GEMINI_RESIDENT, write_fleet

pytestmark = [pytest.mark.canary, pytest.mark.xdist_group("canary")]


def cli_or_skip(harness: str):
    try:
        return find_cli(harness)
    except CliNotFound as err:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the {harness} CLI is missing: {err}")
        pytest.skip(f"{harness} CLI not installed (run `seat-curator install-harnesses`): {err}")


def born(tmp_path, residents: str):
    fleet = load_manifest(write_fleet(tmp_path / "fleet", residents=residents))
    apply_fleet(fleet)
    for seat in seats_from_fleet(fleet):
        seat.repo.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(seat.repo)], check=True)
    return fleet


def boot(fleet, agent_id: str, tmp_path, monkeypatch):
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "state"))
    result = run_canary(fleet, agent_id, progress=lambda _msg: None, save=False)
    (resident,) = result.residents
    return resident


def test_codex_boot_and_both_compactions_carry_both_files_without_the_trust_bypass(tmp_path, monkeypatch):
    cli_or_skip("codex")
    fleet = born(tmp_path, CODEX_RESIDENT)
    resident = boot(fleet, CODEX, tmp_path, monkeypatch)
    assert resident.status == "PASS", resident
    assert [(s.step, s.status.value) for s in resident.steps] == [
        ("boot", "PASS"), ("compact-between-turns", "PASS"), ("compact", "PASS")]
    assert list(resident.step_seconds) == ["boot", "resume"]  # two codex exec processes: the turn, the resume
    memory = seats_from_fleet(fleet, CODEX)[0].memory_dir
    sizes = {name: len((memory / name).read_bytes()) for name in ("MEMORY.md", "identity.md")}
    boot_step, between, mid_turn = resident.steps
    for step in (boot_step, mid_turn):
        for name, size in sizes.items():
            assert f"{name}: {size} bytes arrived, identical to disk" in step.evidence
    # Between turns Codex 0.171.0 fires both the resume and the compact SessionStart events.
    assert between.summary.endswith("came back through SessionStart resume and compact, as on disk")
    for event in ("resume", "compact"):
        for name, size in sizes.items():
            assert f"{event}: {name}: {size} bytes arrived, identical to disk" in between.evidence


@pytest.mark.parametrize("break_trust", ["stale", "missing"])
def test_codex_with_its_hook_trust_stale_or_missing_fails_naming_the_trust(tmp_path, monkeypatch, break_trust):
    cli_or_skip("codex")
    fleet = born(tmp_path, CODEX_RESIDENT)
    config = seats_from_fleet(fleet, CODEX)[0].instance_home / "config.toml"
    text = config.read_text()
    start = text.index('trusted_hash = "sha256:') + len('trusted_hash = "sha256:')
    text = (text[:start] + "0" * 64 + text[start + 64:]) if break_trust == "stale" else \
        text.replace("trusted_hash = ", "# trusted_hash = ")
    config.write_text(text)
    resident = boot(fleet, CODEX, tmp_path, monkeypatch)
    assert resident.status == "FAIL"
    (step,) = resident.steps
    assert step.summary.startswith("no SessionStart hook output reached the model: config.toml does not trust")
    assert ("sha256:" + "0" * 64 if break_trust == "stale" else "missing") in step.summary


def test_gemini_boot_and_compression_carry_both_files_as_on_disk(tmp_path, monkeypatch):
    cli_or_skip("gemini-cli")
    fleet = born(tmp_path, GEMINI_RESIDENT)
    resident = boot(fleet, GEMINI, tmp_path, monkeypatch)
    assert resident.status == "PASS", resident
    assert [(s.step, s.status.value) for s in resident.steps] == [("boot", "PASS"), ("compress", "PASS")]
    boot_step, compress = resident.steps
    assert [line.split(":")[0] for line in boot_step.evidence] == ["MEMORY.md", "identity.md"]
    assert compress.evidence[0] == "2 compression request(s), then a request rebuilt from the snapshot"
    assert [line.split(":")[0] for line in compress.evidence[1:]] == ["MEMORY.md", "identity.md"]
    assert all("identical to disk" in line for line in boot_step.evidence + compress.evidence[1:])


def test_gemini_without_the_context_wiring_fails_boot_and_compression_naming_the_missing_setting(tmp_path, monkeypatch):
    cli_or_skip("gemini-cli")
    fleet = born(tmp_path, GEMINI_RESIDENT)
    settings = seats_from_fleet(fleet, GEMINI)[0].instance_home / ".gemini" / "settings.json"
    doc = json.loads(settings.read_text())
    del doc["context"]["includeDirectories"]
    settings.write_text(json.dumps(doc))
    resident = boot(fleet, GEMINI, tmp_path, monkeypatch)
    assert resident.status == "FAIL"
    assert [(s.step, s.status.value) for s in resident.steps] == [("boot", "FAIL"), ("compress", "FAIL")]
    boot_step, compress = resident.steps
    assert boot_step.summary == "MEMORY.md and identity.md did not reach the model as on disk"
    assert "context.includeDirectories does not hold the memory dir" in boot_step.evidence[0]
    # Gemini did compress; the session context it rebuilt has no files because nothing wires them.
    assert compress.summary == "MEMORY.md and identity.md did not reach the model as on disk"
    assert compress.evidence[0] == "2 compression request(s), then a request rebuilt from the snapshot"
    assert all("context.includeDirectories does not hold the memory dir" in line for line in compress.evidence[1:])


def canary_with_matcher(tmp_path, monkeypatch, matcher: str):
    """A born Codex seat whose SessionStart matcher is narrowed to ``matcher`` and whose edited hook is
    trusted anew (so the boot still runs), canaried: its step results."""
    from generators import codex_trust
    cli_or_skip("codex")
    fleet = born(tmp_path, CODEX_RESIDENT)
    home = seats_from_fleet(fleet, CODEX)[0].instance_home
    hooks = json.loads((home / "hooks.json").read_text())
    group = hooks["hooks"]["SessionStart"][0]
    group["matcher"] = matcher
    (home / "hooks.json").write_text(json.dumps(hooks))
    config = (home / "config.toml").read_text()
    start = config.index('trusted_hash = "') + len('trusted_hash = "')
    fresh = codex_trust.trusted_hash("SessionStart", group["matcher"], group["hooks"][0])
    (home / "config.toml").write_text(config[:start] + fresh + config[start + len(fresh):])
    steps = boot(fleet, CODEX, tmp_path, monkeypatch).steps
    return [(s.step, s.status.value) for s in steps], steps


def test_codex_whose_hook_skips_compact_fails_after_the_mid_turn_compaction(tmp_path, monkeypatch):
    """The matcher without `compact`: between turns the resume event still carries the files (and the
    verdict says only resume fired); mid-turn only the compact re-injection could, and they are gone."""
    verdicts, steps = canary_with_matcher(tmp_path, monkeypatch, "startup|resume|clear")
    assert verdicts == [("boot", "PASS"), ("compact-between-turns", "PASS"), ("compact", "FAIL")]
    between, mid_turn = steps[1:]
    assert between.summary.endswith("came back through SessionStart resume, as on disk")
    assert "SessionStart matcher in hooks.json: startup|resume|clear (no compact)" in between.evidence
    assert mid_turn.summary == "after compaction the seat's files are gone: the hook's matcher does not name compact"


def test_codex_whose_hook_skips_resume_and_compact_fails_after_the_compaction_between_turns(tmp_path, monkeypatch):
    verdicts, steps = canary_with_matcher(tmp_path, monkeypatch, "startup|clear")
    assert verdicts == [("boot", "PASS"), ("compact-between-turns", "FAIL"), ("compact", "FAIL")]
    between = steps[1]
    assert between.summary == ("after the compaction between turns the seat's files are gone: the hook's matcher "
                               "names neither resume nor compact")
    assert between.evidence == ["SessionStart matcher in hooks.json: startup|clear"]


def test_codex_app_server_lists_the_fleets_hook_as_trusted_with_our_hash(tmp_path):
    """`hooks/list` is Codex's own answer: the key, its currentHash and trust status."""
    import tomllib
    cli = cli_or_skip("codex")
    fleet = born(tmp_path, CODEX_RESIDENT)
    seat = seats_from_fleet(fleet, CODEX)[0]
    (tmp_path / "home").mkdir()
    lines = [{"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "seat-curator-test", "version": "0"}}},
             {"method": "initialized"}, {"id": 2, "method": "hooks/list", "params": {"cwds": [str(seat.repo)]}}]
    proc = subprocess.Popen([*cli.argv, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True,
                            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"),
                                 "CODEX_HOME": str(seat.instance_home), "TMPDIR": str(tmp_path)})
    watchdog = threading.Timer(60, proc.kill)  # a server that never answers ends the read, not the suite
    watchdog.start()
    try:
        for line in lines:
            proc.stdin.write(json.dumps(line) + "\n")
        proc.stdin.flush()
        answer = None
        for line in proc.stdout:  # notifications may come first
            message = json.loads(line)
            if message.get("id") == 2:
                answer = message
                break
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
    assert answer is not None, "codex app-server gave no answer to hooks/list"
    (listed,) = answer["result"]["data"][0]["hooks"]
    state = tomllib.loads((seat.instance_home / "config.toml").read_text())["hooks"]["state"]
    assert list(state) == [listed["key"]]
    assert listed["trustStatus"] == "trusted"
    assert listed["currentHash"] == state[listed["key"]]["trusted_hash"]
