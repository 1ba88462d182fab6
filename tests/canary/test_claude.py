"""The Claude Code canary without the CLI: the stub's Anthropic Messages wire, the sandbox, and the
analysis of runs recorded from the real CLI (tests/data/canary/claude-code-*.json: a born seat, the
same seat with its SessionStart entry removed, and one whose index is past the harness's cut).
Further failures are made by editing a recorded log the way a broken harness would."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from curator.canary.analysis import analyse
from curator.canary.analysis_claude import memory_block
from curator.canary.record import trim_log
from curator.canary.run import resolve_clis
from curator.canary.sandbox import CLAUDE_HOME_SKIP, prepare_claude
from curator.canary.seat import Seat
from curator.canary.stub import REPLY_TEXT, SUMMARY_TEXT, StubModel
from curator.errors import CuratorError
from tests.support import paths
from tests.support.canary import post
from tests.support.claude_indexes import ascii_index_cut_at_127
DATA = paths.DATA / "canary"


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def by_step(log: dict) -> dict:
    return {r.step: r for r in analyse(log)}


def verdicts(log: dict) -> dict[str, str]:
    return {step: r.status for step, r in by_step(log).items()}


def events(raw: bytes) -> list[tuple[str, dict]]:
    out = []
    for chunk in raw.decode().split("\n\n"):
        if chunk.strip():
            name, data = chunk.split("\n", 1)
            out.append((name.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


# ------------------------------------------------------------------------------------------ stub


def test_stub_speaks_the_messages_api_streamed():
    with StubModel() as stub:
        assert stub.anthropic_base_url == f"http://127.0.0.1:{stub.port}"
        body = {"model": "m", "stream": True, "tools": [{"name": "Read"}],
                "messages": [{"role": "user", "content": [{"type": "text", "text": "turn one"}]}]}
        status, raw = post(stub.anthropic_base_url + "/v1/messages?beta=true", json.dumps(body).encode())
        assert status == 200
        got = events(raw)
        assert [name for name, _ in got] == ["message_start", "content_block_start", "content_block_delta",
                                             "content_block_stop", "message_delta", "message_stop"]
        assert all(data["type"] == name for name, data in got)
        assert got[2][1]["delta"] == {"type": "text_delta", "text": REPLY_TEXT}
        assert got[4][1]["delta"]["stop_reason"] == "end_turn"
        assert stub.take_requests() == [body]


def test_stub_answers_a_compaction_prompt_with_a_summary_and_counts_tokens_unlogged():
    with StubModel() as stub:
        url = stub.anthropic_base_url + "/v1/messages"
        summary = {"messages": [{"role": "user", "content": "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools."}]}
        status, raw = post(url, json.dumps(summary).encode())  # not streamed: one JSON message
        assert status == 200 and json.loads(raw)["content"] == [{"type": "text", "text": SUMMARY_TEXT}]
        plain = {"messages": [{"role": "user", "content": "hello"}]}
        assert json.loads(post(url, json.dumps(plain).encode())[1])["content"][0]["text"] == REPLY_TEXT
        status, raw = post(url + "/count_tokens", json.dumps(plain).encode())
        assert status == 200 and json.loads(raw) == {"input_tokens": 10}
        assert post(url, b"[1]")[0] == 400 and post(url, b"{")[0] == 400
        assert stub.take_requests() == [summary, plain]  # size estimates and refused bodies are not turns


# --------------------------------------------------------------------------------------- sandbox


def seat_at(tmp_path: Path, settings: bytes | None) -> Seat:
    home, repo = tmp_path / "home", tmp_path / "repo"
    (home / "memory").mkdir(parents=True)
    repo.mkdir()
    for skipped in ("projects", "sessions"):
        (home / skipped).mkdir()
        (home / skipped / "transcript.jsonl").write_text("private")
    if settings is not None:
        (home / "settings.json").write_bytes(settings)
    return Seat("@c", "claude-code", home, home / "memory", repo)


def test_sandbox_copies_the_config_dir_and_reads_what_it_wires(tmp_path):
    settings = {"autoMemoryDirectory": "/m", "model": "mine", "hooks": {"SessionStart": [
        {"matcher": "startup", "hooks": [{"type": "command", "command": "py identity_anchor_hook.py"}]},
        {"hooks": "garbage"}]}}
    seat = seat_at(tmp_path, json.dumps(settings).encode())
    box = prepare_claude(seat, tmp_path / "run", "http://127.0.0.1:9")
    config = Path(box.env["CLAUDE_CONFIG_DIR"])
    assert config != seat.instance_home and json.loads((config / "settings.json").read_text()) == settings
    assert not any((config / name).exists() for name in CLAUDE_HOME_SKIP)
    assert box.env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9" and box.env["PWD"] == str(seat.repo) == str(box.cwd)
    assert box.env["HOME"] != str(Path.home()) and box.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert box.wiring == {"settings": True, "auto_memory_directory": "/m",
                          "session_start": [{"matcher": "startup", "command": "py identity_anchor_hook.py"}]}


@pytest.mark.parametrize(("settings", "message"), [
    (b"{not json", "settings.json is not valid JSON"),
    (b"\xff\xfe{}", "settings.json is not UTF-8"),
    (b"[]", "settings.json is not a JSON object"),
])
def test_sandbox_refuses_a_settings_file_it_cannot_read_naming_it(tmp_path, settings, message):
    seat = seat_at(tmp_path, settings)
    with pytest.raises(CuratorError) as caught:
        prepare_claude(seat, tmp_path / "run", "http://127.0.0.1:9")
    assert message in str(caught.value) and str(seat.instance_home / "settings.json") in str(caught.value)
    assert "\n" not in str(caught.value)


def test_sandbox_refuses_a_symlinked_settings_file_naming_the_seats_file(tmp_path):
    seat = seat_at(tmp_path, None)
    (tmp_path / "elsewhere.json").write_text("{}")
    (seat.instance_home / "settings.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(CuratorError) as caught:
        prepare_claude(seat, tmp_path / "run", "http://127.0.0.1:9")
    assert str(seat.instance_home / "settings.json") in str(caught.value)
    assert not (tmp_path / "run" / "claude-config").exists()  # refused before anything was copied


def test_sandbox_without_settings_still_runs_and_says_so(tmp_path):
    box = prepare_claude(seat_at(tmp_path, None), tmp_path / "run", "http://127.0.0.1:9")
    assert box.wiring == {"settings": False, "auto_memory_directory": None, "session_start": []}


def test_the_claude_cli_flag_names_the_cli_a_claude_seat_runs(tmp_path):
    seat = seat_at(tmp_path, None)
    cli = tmp_path / "claude"
    cli.write_text("#!/bin/sh\n")
    cli.chmod(0o755)
    found = resolve_clis([seat], {"claude-code": str(cli)}, None)
    assert found["claude-code"].argv == (str(cli),) and found["claude-code"].source == "flag"


# -------------------------------------------------------------------------------------- analysis


def test_recorded_pass():
    log = load("claude-code-pass.json")
    results = by_step(log)
    assert verdicts(log) == {"boot": "PASS", "compact": "PASS", "after-compaction": "PASS", "index-cut": "INFO"}
    memory = log["boot_files"]["MEMORY.md"]
    for step in ("boot", "after-compaction"):
        assert f"MEMORY.md: {len(memory.encode())} bytes arrived, identical to disk" in results[step].evidence
        assert f"identity.md: {len(log['boot_files']['identity.md'].encode())} bytes arrived, identical to disk" \
            in results[step].evidence
    assert "SessionStart hook output in the request: SessionStart:startup" in results["boot"].evidence
    assert any("SessionStart:compact" in line for line in results["after-compaction"].evidence)
    assert results["after-compaction"].evidence[0] == "the request continues from the compaction summary"
    assert results["index-cut"].evidence == ["31/200 lines, 1,751/25,000 characters (as the harness counts them)"]


def test_recorded_run_without_the_session_start_entry_fails_naming_it():
    results = by_step(load("claude-code-no-session-start.json"))
    for step in ("boot", "after-compaction"):
        assert results[step].status == "FAIL"
        assert results[step].summary.startswith("identity.md did not reach the model")
        assert any(line.startswith("settings.json has no hooks.SessionStart entry running identity_anchor_hook.py")
                   for line in results[step].evidence)
        assert any("MEMORY.md" in line and "identical to disk" in line for line in results[step].evidence)


def test_recorded_cut_the_harness_warning_equals_the_load_simulation():
    log = load("claude-code-cut.json")
    results = by_step(log)
    assert verdicts(log) == {"boot": "PASS", "compact": "PASS", "after-compaction": "PASS", "index-cut": "PASS"}
    cut = results["index-cut"]
    assert cut.summary == "the harness cut at line 128, where the load simulation says"
    harness, simulation, lines = cut.evidence
    assert harness.removeprefix("harness: ") == simulation.removeprefix("load simulation: ")
    assert "25 of 152 lines were cut off, starting at line 128" in harness
    assert lines == "load simulation: file lines 1–127 load; 25 entries never reach the model"
    assert log["boot_files"]["MEMORY.md"].encode() == ascii_index_cut_at_127()
    assert "MEMORY.md: lines 1–127 (24880 bytes) arrived as on disk" in results["boot"].evidence[0]


def test_a_different_cut_than_simulated_fails_showing_both():
    log = load("claude-code-cut.json")
    # The seat's index as the simulation reads it gains a line near the top: its cut moves, the harness's did not.
    log["boot_files"]["MEMORY.md"] = "- added\n" + log["boot_files"]["MEMORY.md"]
    results = by_step(log)
    assert results["index-cut"].status == "FAIL"
    assert results["index-cut"].summary == "the harness's WARNING differs from the load simulation's"
    assert "starting at line 128" in results["index-cut"].evidence[0]
    assert "starting at line 129" in results["index-cut"].evidence[1]
    assert results["boot"].status == "FAIL"  # and what arrived is no longer what is on disk


def test_a_stale_or_missing_index_or_identity_fails():
    log = load("claude-code-pass.json")
    stale = copy.deepcopy(log)
    stale["boot_files"]["MEMORY.md"] = stale["boot_files"]["MEMORY.md"].replace("Hot index", "Cold index")
    result = by_step(stale)["boot"]
    assert result.status == "FAIL" and result.summary.startswith("MEMORY.md did not reach")
    assert any(line.startswith("MEMORY.md: differs from disk at byte") for line in result.evidence)

    identity = copy.deepcopy(log)
    identity["boot_files"]["identity.md"] += "a line the hook never printed\n"
    assert by_step(identity)["after-compaction"].status == "FAIL"

    gone = copy.deepcopy(log)
    gone["wiring"]["auto_memory_directory"] = "/elsewhere"
    gone["memory_dir"] = gone["memory_dir_real"] = "/elsewhere"
    result = by_step(gone)["boot"]
    assert result.status == "FAIL"
    assert any("MEMORY.md: missing from the request" in line and "/elsewhere" in line for line in result.evidence)


def test_no_compaction_and_a_failed_turn_fail():
    log = load("claude-code-pass.json")
    no_summary = copy.deepcopy(log)
    compact = next(s for s in no_summary["steps"] if s["name"] == "compact")
    for request in compact["requests"]:
        request["messages"][-1]["content"] = "just a turn"
    assert by_step(no_summary)["compact"].status == "FAIL"

    crashed = copy.deepcopy(log)
    crashed["steps"][0].update(exit_code=1, output_tail="Error: something\n")
    result = by_step(crashed)["boot"]
    assert result.status == "FAIL" and "harness said: Error: something" in result.evidence

    not_resumed = copy.deepcopy(log)
    not_resumed["steps"] = not_resumed["steps"][:1]
    assert {r.step: r.summary for r in analyse(not_resumed)}["compact"] == "step did not run"


def test_trimming_keeps_what_the_analysis_reads():
    for name in ("claude-code-pass.json", "claude-code-cut.json", "claude-code-no-session-start.json"):
        log = load(name)
        assert [(r.step, r.status, r.evidence) for r in analyse(trim_log(log))] == \
               [(r.step, r.status, r.evidence) for r in analyse(log)]
        boot = next(s for s in log["steps"] if s["name"] == "boot")["requests"][0]
        assert memory_block(log, boot)[0] is not None
