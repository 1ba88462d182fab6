"""The request-log analysis, on logs recorded from the real harnesses (tests/data/canary/): the seats
were born by the generators; the *-no-hooks / *-no-identity logs come from seats whose wiring was
broken on purpose. Further failures are made by editing a recorded log the way a broken harness would."""

from __future__ import annotations

import copy
import json

import pytest

from curator.canary.analysis import analyse
from curator.canary.requestlog import blocks_in, compare_file, content_text
from curator.canary.record import trim_log
from tests.support import paths

DATA = paths.DATA / "canary"


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def verdicts(log: dict) -> dict[str, str]:
    return {r.step: r.status for r in analyse(log)}


def by_step(log: dict) -> dict:
    return {r.step: r for r in analyse(log)}


def step(log: dict, name: str) -> dict:
    return next(s for s in log["steps"] if s["name"] == name)


# ------------------------------------------------------------------------------------ kimi-code


def test_kimi_recorded_pass():
    log = load("kimi-code-pass.json")
    assert verdicts(log) == {"boot": "PASS", "silent": "PASS", "compact": "PASS",
                             "compact-turn-index": "INFO", "reload": "PASS"}
    results = by_step(log)
    memory = len(log["boot_files"]["MEMORY.md"].encode())
    identity = len(log["boot_files"]["identity.md"].encode())
    assert f"MEMORY.md: {memory} bytes arrived, identical to disk" in results["boot"].evidence
    assert f"identity.md: {identity} bytes arrived, identical to disk" in results["reload"].evidence
    assert "ran without the index" in results["compact-turn-index"].summary


def test_kimi_boot_block_is_counted_not_searched():
    log = load("kimi-code-pass.json")
    silent_request = step(log, "silent")["requests"][-1]
    assert [b.trigger for b in blocks_in(silent_request)] == ["session-boot"]  # still in history
    # The silent turn re-injecting the index is a FAIL even though a block was there anyway.
    broken = copy.deepcopy(log)
    request = step(broken, "silent")["requests"][-1]
    boot_block = next(m for m in step(broken, "boot")["requests"][-1]["messages"] if "<seat-memory-layer" in m["content"])
    request["messages"].insert(len(request["messages"]) - 2, copy.deepcopy(boot_block))
    result = by_step(broken)["silent"]
    assert result.status == "FAIL"
    assert "injected the index again" in result.summary


def test_kimi_recorded_no_hooks_names_the_missing_pair():
    results = by_step(load("kimi-code-no-hooks.json"))
    assert results["boot"].status == "FAIL"
    assert any("no [[hooks]] entry for UserPromptSubmit" in e for e in results["boot"].evidence)
    assert results["compact"].status == "FAIL"
    assert any("no [[hooks]] entry for PostCompact" in e for e in results["compact"].evidence)
    assert results["reload"].status == "FAIL"


def _boot_block_message(log: dict) -> dict:
    return next(m for m in step(log, "boot")["requests"][-1]["messages"] if "<seat-memory-layer" in m["content"])


def test_kimi_truncated_index_reports_bytes():
    log = copy.deepcopy(load("kimi-code-pass.json"))
    memory = log["boot_files"]["MEMORY.md"]
    cut = memory[: len(memory) // 2]
    message = _boot_block_message(log)
    message["content"] = message["content"].replace(memory, cut + "\n")
    result = by_step(log)["boot"]
    assert result.status == "FAIL"
    assert f"MEMORY.md: truncated — {len(cut.encode())} of {len(memory.encode())} bytes arrived" in result.evidence


def test_kimi_unclosed_block_is_a_cut():
    log = copy.deepcopy(load("kimi-code-pass.json"))
    message = _boot_block_message(log)
    message["content"] = message["content"].split("<!-- identity.md -->")[0]
    result = by_step(log)["boot"]
    assert result.status == "FAIL"
    assert any("no closing </seat-memory-layer>" in e for e in result.evidence)
    assert any(e.startswith("identity.md: missing from the block") for e in result.evidence)


def test_kimi_stale_disk_copy_differs():
    log = copy.deepcopy(load("kimi-code-pass.json"))
    original = log["boot_files"]["identity.md"]
    log["boot_files"]["identity.md"] = original.replace("\n", "\nedited since boot\n", 1)
    result = by_step(log)["boot"]
    assert result.status == "FAIL"
    offset = len(original.split("\n", 1)[0].encode()) + 1
    assert any(e.startswith(f"identity.md: differs from disk at byte {offset} of") for e in result.evidence)


def test_kimi_no_compaction_and_no_marker():
    log = copy.deepcopy(load("kimi-code-pass.json"))
    compact = step(log, "compact")
    compact["state_files"] = [f for f in compact["state_files"] if not f.endswith(".compacted")]
    assert by_step(log)["compact"].status == "FAIL"
    assert "PostCompact did not mark" in by_step(log)["compact"].summary
    compact["requests"] = compact["requests"][-1:]  # only the turn's own request: nothing compacted
    result = by_step(log)["compact"]
    assert result.status == "FAIL" and "did not compact" in result.summary
    assert "compact-turn-index" not in verdicts(log)


def test_kimi_reload_with_wrong_trigger_fails():
    log = copy.deepcopy(load("kimi-code-pass.json"))
    for message in step(log, "reload")["requests"][-1]["messages"]:
        message["content"] = message["content"].replace('trigger="post-compact-reload"', 'trigger="session-boot"')
    result = by_step(log)["reload"]
    assert result.status == "FAIL"
    assert 'trigger="session-boot", expected "post-compact-reload"' in result.summary


def test_kimi_missing_turns_and_crashes_fail():
    log = copy.deepcopy(load("kimi-code-pass.json"))
    log["steps"] = log["steps"][:1]
    assert verdicts(log) == {"boot": "PASS", "silent": "FAIL", "compact": "FAIL", "reload": "FAIL"}
    step(log, "boot").update(exit_code=None, timed_out=True)
    result = by_step(log)["boot"]
    assert result.status == "FAIL" and "(timed out)" in result.evidence[0]


# ------------------------------------------------------------------------------------- opencode


OPENCODE_PASS = {"boot": "PASS", "compact": "PASS", "after-compaction": "PASS"}


@pytest.mark.parametrize("name", ["opencode-pass.json", "opencode-two-turns-pass.json"])
def test_opencode_recorded_pass(name):
    log = load(name)  # one turn that compacts inside itself, and an older recording split over two turns
    assert verdicts(log) == OPENCODE_PASS
    memory = len(log["boot_files"]["MEMORY.md"].encode())
    assert f"main request 1: MEMORY.md: {memory} bytes arrived, identical to disk" in by_step(log)["after-compaction"].evidence


def test_opencode_recorded_no_identity_names_it():
    results = by_step(load("opencode-no-identity.json"))
    for name in ("boot", "after-compaction"):
        assert results[name].status == "FAIL"
        assert any("identity.md missing from the system prompt; identity.md is not in opencode.jsonc instructions" in e
                   for e in results[name].evidence)
    assert results["compact"].status == "PASS"


def test_opencode_lost_after_compaction_only():
    log = copy.deepcopy(load("opencode-pass.json"))
    last = log["steps"][-1]["requests"][-1]
    system = last["messages"][0]
    system["content"] = system["content"].split("Instructions from: ")[0]
    assert verdicts(log) == dict(OPENCODE_PASS, **{"after-compaction": "FAIL"})
    assert by_step(log)["after-compaction"].evidence == [
        "main request 1: MEMORY.md missing from the system prompt",
        "main request 1: identity.md missing from the system prompt",
    ]


def test_opencode_stale_instruction_differs():
    log = copy.deepcopy(load("opencode-pass.json"))
    memory = log["boot_files"]["MEMORY.md"]
    log["boot_files"]["MEMORY.md"] = memory.replace("## Weak-spots", "## Weak spots")
    offset = len(memory[:memory.index("## Weak-spots") + len("## Weak")].encode())
    results = by_step(log)
    assert results["boot"].status == "FAIL"
    assert f"main request 1: MEMORY.md: differs from disk at byte {offset} of {len(memory.encode())}" in results["boot"].evidence


def test_opencode_without_compaction_fails():
    log = copy.deepcopy(load("opencode-pass.json"))
    turn = log["steps"][-1]
    turn["requests"] = [r for r in turn["requests"] if not content_text(r["messages"][0]).startswith("You are a context")]
    result = by_step(log)["compact"]
    assert result.status == "FAIL" and "did not compact" in result.summary
    assert by_step(log)["boot"].status == "PASS"


def test_opencode_turn_that_never_reached_the_model():
    log = copy.deepcopy(load("opencode-pass.json"))
    log["steps"][0].update(requests=[], exit_code=1, output_tail="Error: provider stub not found\n")
    [result] = analyse(log)
    assert (result.step, result.status) == ("turn", "FAIL")
    assert result.evidence == ["exit code 1", "harness said: Error: provider stub not found"]


def test_unknown_harness():
    assert verdicts({"harness": "gemini-cli", "steps": []}) == {"analysis": "FAIL"}


# ------------------------------------------------------------------------------------- helpers


@pytest.mark.parametrize(("arrived", "ok", "line"), [
    ("<!-- x -->\nabc\ndef\n</seat", True, "f: 8 bytes arrived, identical to disk"),
    ("<!-- x -->\nabc\n\n<!-- g -->", False, "f: truncated — 4 of 8 bytes arrived"),
    ("<!-- x -->\nabc\nXef\n", False, "f: differs from disk at byte 4 of 8"),
    ("<!-- x -->\nabé", False, "f: differs from disk at byte 2 of 8"),
])
def test_compare_file(arrived, ok, line):
    assert compare_file("f", "abc\ndef\n", arrived, len("<!-- x -->\n"), ("<!-- g -->",)) == (ok, line)


def test_compare_file_counts_utf8_bytes_and_absent_files():
    assert compare_file("f", "é\n", "é\n", 0, ()) == (True, "f: 3 bytes arrived, identical to disk")
    assert compare_file("f", None, "", 0, ())[0] is False


def test_trim_keeps_what_the_analysis_reads():
    for name in ("kimi-code-pass.json", "opencode-pass.json", "opencode-two-turns-pass.json", "opencode-no-identity.json"):
        log = load(name)
        assert [(r.step, r.status, r.evidence) for r in analyse(trim_log(log))] == \
               [(r.step, r.status, r.evidence) for r in analyse(log)]
