"""The codex and gemini-cli readers of a recorded run, on logs shaped as the real CLIs send them
(pure functions: no CLI needed)."""

from __future__ import annotations

from curator.canary.analysis import analyse
from generators.hook_format import injected

MEMORY, IDENTITY = "# Seat memory index\n- one\n", "# Identity\nI am `@x`.\n"
DIR = "/seat/memory"
FILES = {"MEMORY.md": MEMORY, "identity.md": IDENTITY}


def log(harness: str, request: dict, wiring: dict) -> dict:
    return {"harness": harness, "memory_dir": DIR, "memory_dir_real": DIR, "boot_files": dict(FILES),
            "wiring": wiring, "steps": [{"name": "boot", "exit_code": 0, "timed_out": False, "output_tail": "",
                                         "requests": [request]}]}


def codex_request(*developer: str) -> dict:
    items = [{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "base"}]}]
    items += [{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": t}]}
              for t in developer]
    items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "canary turn one"}]})
    return {"model": "stub-model", "input": items, "tools": []}


def block(memory: str = MEMORY, trigger: str = "session-boot") -> str:
    return injected(DIR, {"MEMORY.md": memory.encode(), "identity.md": IDENTITY.encode()}, trigger).decode()


def compaction_request() -> dict:
    request = codex_request(block())
    request["input"].append({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff"}]})
    return request


def test_codex_boot_and_compaction_pass_when_the_hook_blocks_carry_both_files():
    run = log("codex", codex_request(block()), {"trusted": True})
    run["steps"][0]["requests"] += [compaction_request(), codex_request(block(trigger="post-compact-reload"))]
    boot, compact = analyse(run)
    assert (boot.step, boot.status.value, compact.step, compact.status.value) == ("boot", "PASS", "compact", "PASS")
    assert boot.evidence == [f"MEMORY.md: {len(MEMORY)} bytes arrived, identical to disk",
                             f"identity.md: {len(IDENTITY)} bytes arrived, identical to disk"]


def test_codex_after_compaction_without_the_compact_block_fails():
    run = log("codex", codex_request(block()), {"trusted": True})
    run["steps"][0]["requests"] += [compaction_request(), codex_request()]
    boot, compact = analyse(run)
    assert boot.status.value == "PASS" and compact.status.value == "FAIL"
    assert compact.summary.startswith("after compaction the seat's files are gone")
    [_, no_compaction] = analyse(log("codex", codex_request(block()), {"trusted": True}))
    assert no_compaction.summary == "Codex did not compact: no compaction request reached the stub"


def test_codex_without_the_block_names_the_trust_problem():
    problem = 'config.toml does not trust the SessionStart hook: hooks.state."k".trusted_hash is missing'
    [result] = analyse(log("codex", codex_request(), {"trusted": False, "problem": problem, "trust_key": "k"}))
    assert result.status.value == "FAIL"
    assert result.summary == f"no SessionStart hook output reached the model: {problem}"


def test_codex_with_an_edited_file_in_the_block_says_where_it_differs():
    [result, _] = analyse(log("codex", codex_request(block("# Seat memory index\n- other\n")), {"trusted": True}))
    assert result.status.value == "FAIL" and result.evidence[0] == "MEMORY.md: differs from disk at byte 23 of 26"


def gemini_request(*names: str) -> dict:
    parts = "\n\n".join(f"--- Context from: {DIR}/{n} ---\n{FILES[n].strip()}\n--- End of Context from: {DIR}/{n} ---"
                        for n in names)
    text = f"<session_context>\n<loaded_context>\n<project_context>\n{parts}\n</project_context>"
    return {"contents": [{"role": "user", "parts": [{"text": text}]},
                         {"role": "user", "parts": [{"text": "canary turn one"}]}]}


CONTEXT = {"fileName": ["MEMORY.md", "identity.md"], "includeDirectories": [DIR],
           "loadMemoryFromIncludeDirectories": True}


def test_gemini_boot_passes_when_the_first_message_carries_both_files():
    [result] = analyse(log("gemini-cli", gemini_request("MEMORY.md", "identity.md"), {"context": CONTEXT}))
    assert result.status.value == "PASS"


def test_gemini_names_the_setting_that_does_not_load_a_file():
    context = dict(CONTEXT, fileName=["MEMORY.md"])
    [result] = analyse(log("gemini-cli", gemini_request("MEMORY.md"), {"context": context}))
    assert result.status.value == "FAIL" and result.summary == "identity.md did not reach the model as on disk"
    assert result.evidence[1] == "identity.md: did not arrive as on disk: context.fileName does not name identity.md"
