"""The codex and gemini-cli readers of a recorded run, on logs shaped as the real CLIs send them
(pure functions: no CLI needed)."""

from __future__ import annotations

from curator.canary.analysis import analyse
from curator.canary.stub import GEMINI_SNAPSHOT
from generators.hook_format import injected

MEMORY, IDENTITY = "# Seat memory index\n- one\n", "# Identity\nI am `@x`.\n"
DIR = "/seat/memory"
FILES = {"MEMORY.md": MEMORY, "identity.md": IDENTITY}


def log(harness: str, request: dict, wiring: dict, *later: dict) -> dict:
    """A run log: the boot turn's one request, then (``later``) the second turn's requests."""
    second = "resume" if harness == "codex" else "compress"
    return {"harness": harness, "memory_dir": DIR, "memory_dir_real": DIR, "boot_files": dict(FILES),
            "wiring": wiring, "steps": [{"name": name, "exit_code": 0, "timed_out": False, "output_tail": "",
                                         "requests": requests}
                                        for name, requests in (("boot", [request]), (second, list(later)))]}


def codex_request(*developer: str) -> dict:
    items = [{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "base"}]}]
    items += [{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": t}]}
              for t in developer]
    items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "canary turn one"}]})
    return {"model": "stub-model", "input": items, "tools": []}


def block(memory: str = MEMORY, trigger: str = "session-boot") -> str:
    return injected(DIR, {"MEMORY.md": memory.encode(), "identity.md": IDENTITY.encode()}, trigger).decode()


def compaction_request(*developer: str) -> dict:
    request = codex_request(*developer)
    request["input"].append({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff"}]})
    return request


def resumed_turn(between: tuple[str, ...], mid_turn: tuple[str, ...]) -> list[dict]:
    """The resumed turn as Codex sends it: compaction, the turn's request (``between`` blocks), the
    mid-turn compaction after its tool call, the next request (``mid_turn`` blocks)."""
    return [compaction_request(block()), codex_request(*between), compaction_request(*between),
            codex_request(*mid_turn)]


RELOAD = block(trigger="post-compact-reload")
ALL_EVENTS = {"trusted": True, "matcher": "startup|resume|clear|compact"}


def test_codex_boot_and_both_compactions_pass_when_the_hook_blocks_carry_both_files():
    run = log("codex", codex_request(block()), ALL_EVENTS, *resumed_turn((block(), RELOAD), (RELOAD,)))
    boot, between, mid_turn = analyse(run)
    assert [(r.step, r.status.value) for r in (boot, between, mid_turn)] == [
        ("boot", "PASS"), ("compact-between-turns", "PASS"), ("compact", "PASS")]
    assert boot.evidence == [f"MEMORY.md: {len(MEMORY)} bytes arrived, identical to disk",
                             f"identity.md: {len(IDENTITY)} bytes arrived, identical to disk"]
    assert between.evidence[0].endswith("2 hook block(s): SessionStart resume, compact")


def test_codex_between_turns_names_the_events_that_fired_and_the_matcher_that_skips_the_rest():
    wiring = {"trusted": True, "matcher": "startup|resume|clear"}
    _, between, mid_turn = analyse(log("codex", codex_request(block()), wiring, *resumed_turn((block(),), ())))
    assert between.status.value == "PASS"
    assert between.summary.endswith("came back through SessionStart resume, as on disk")
    assert between.evidence[-1] == "SessionStart matcher in hooks.json: startup|resume|clear (no compact)"
    assert mid_turn.summary == "after compaction the seat's files are gone: the hook's matcher does not name compact"


def test_codex_between_turns_without_any_block_fails_naming_the_matcher():
    wiring = {"trusted": True, "matcher": "startup|clear"}
    _, between, _ = analyse(log("codex", codex_request(block()), wiring, *resumed_turn((), ())))
    assert between.status.value == "FAIL"
    assert between.summary == ("after the compaction between turns the seat's files are gone: the hook's matcher "
                               "names neither resume nor compact")
    assert between.evidence == ["SessionStart matcher in hooks.json: startup|clear"]


def test_codex_after_compaction_without_the_compact_block_fails():
    run = log("codex", codex_request(block()), ALL_EVENTS, *resumed_turn((block(), RELOAD), ()))
    _, _, mid_turn = analyse(run)
    assert mid_turn.status.value == "FAIL"
    assert mid_turn.summary == "after compaction the seat's files are gone: the hook's compact event put nothing back"
    [_, between, no_compaction] = analyse(log("codex", codex_request(block()), ALL_EVENTS, codex_request(RELOAD)))
    assert between.summary == "Codex did not compact at the start of the resumed turn"
    assert no_compaction.summary == "Codex did not compact mid-turn: no compaction request followed the tool call"


def test_codex_without_a_resumed_turn_says_it_did_not_run():
    run = log("codex", codex_request(block()), ALL_EVENTS)
    run["steps"].pop()
    assert [(r.step, r.status.value, r.summary) for r in analyse(run)][1] == ("resume", "FAIL", "step did not run")


def test_codex_without_the_block_names_the_trust_problem():
    problem = 'config.toml does not trust the SessionStart hook: hooks.state."k".trusted_hash is missing'
    [result] = analyse(log("codex", codex_request(), {"trusted": False, "problem": problem, "trust_key": "k"}))
    assert result.status.value == "FAIL"
    assert result.summary == f"no SessionStart hook output reached the model: {problem}"


def test_codex_with_an_edited_file_in_the_block_says_where_it_differs():
    [result, _] = analyse(log("codex", codex_request(block("# Seat memory index\n- other\n")), {"trusted": True}))
    assert result.status.value == "FAIL" and result.evidence[0] == "MEMORY.md: differs from disk at byte 23 of 26"


def gemini_context(*names: str) -> str:
    parts = "\n\n".join(f"--- Context from: {DIR}/{n} ---\n{FILES[n].strip()}\n--- End of Context from: {DIR}/{n} ---"
                        for n in names)
    return f"<session_context>\n<loaded_context>\n<project_context>\n{parts}\n</project_context>"


def gemini_request(*names: str) -> dict:
    return {"contents": [{"role": "user", "parts": [{"text": gemini_context(*names)}]},
                         {"role": "user", "parts": [{"text": "canary turn one"}]}], "tools": [{}]}


def gemini_compression(*names: str) -> list[dict]:
    """What Gemini sends when it compresses: the snapshot request and its check (no tools, a system
    instruction asking for a <state_snapshot>), then the request rebuilt from the snapshot."""
    asks = [{"systemInstruction": {"parts": [{"text": "distil the history into a <state_snapshot>."}]},
             "contents": [{"role": "user", "parts": [{"text": ask}]}]}
            for ask in ("Generate a new <state_snapshot>", "Critically evaluate the <state_snapshot>")]
    rebuilt = {"contents": [{"role": "user", "parts": [{"text": gemini_context(*names)}, {"text": GEMINI_SNAPSHOT}]},
                            {"role": "model", "parts": [{"text": "Got it. Thanks for the additional context!"}]},
                            {"role": "user", "parts": [{"text": "canary turn two"}]}], "tools": [{}]}
    return [gemini_request(*names), *asks, rebuilt]


CONTEXT = {"fileName": ["MEMORY.md", "identity.md"], "includeDirectories": [DIR],
           "loadMemoryFromIncludeDirectories": True}
BOTH = ("MEMORY.md", "identity.md")


def test_gemini_boot_and_compression_pass_when_the_first_message_carries_both_files():
    boot, compress = analyse(log("gemini-cli", gemini_request(*BOTH), {"context": CONTEXT}, *gemini_compression(*BOTH)))
    assert (boot.status.value, compress.step, compress.status.value) == ("PASS", "compress", "PASS")
    assert compress.evidence[0] == "2 compression request(s), then a request rebuilt from the snapshot"


def test_gemini_names_the_setting_that_does_not_load_a_file():
    context = dict(CONTEXT, fileName=["MEMORY.md"])
    boot, compress = analyse(log("gemini-cli", gemini_request("MEMORY.md"), {"context": context},
                                 *gemini_compression("MEMORY.md")))
    for result in (boot, compress):
        assert result.status.value == "FAIL" and result.summary == "identity.md did not reach the model as on disk"
    assert boot.evidence[1] == "identity.md: did not arrive as on disk: context.fileName does not name identity.md"
    assert compress.evidence[2] == boot.evidence[1]


def test_gemini_compression_that_never_happened_or_did_not_carry_on_fails():
    [_, none] = analyse(log("gemini-cli", gemini_request(*BOTH), {"context": CONTEXT}, gemini_request(*BOTH)))
    assert none.summary == "Gemini did not compress: no <state_snapshot> request reached the stub"
    requests = gemini_compression(*BOTH)
    requests[-1]["contents"][0]["parts"].pop()  # the snapshot is not in the next request
    [_, stale] = analyse(log("gemini-cli", gemini_request(*BOTH), {"context": CONTEXT}, *requests))
    assert stale.status.value == "FAIL" and stale.summary.startswith("the request after the compression does not "
                                                                     "carry the snapshot")


def test_gemini_names_the_import_it_made_of_an_at_word_in_a_loaded_file():
    request = gemini_request(*BOTH)
    text = request["contents"][0]["parts"][0]["text"]
    mangled = "I am <!-- Import failed: x - ENOENT: no such file or directory, access '/seat/memory/x' -->."
    request["contents"][0]["parts"][0]["text"] = text.replace("I am `@x`.", mangled)
    [boot, _] = analyse(log("gemini-cli", request, {"context": CONTEXT}))
    assert boot.summary == "identity.md did not reach the model as on disk"
    assert boot.evidence[1] == (f"identity.md: differs from disk at byte {IDENTITY.index('`@x`')} of "
                                f"{len(IDENTITY.strip())}: Gemini took @x in it as an import, which failed (an "
                                "`<!-- Import failed` comment arrived in its place)")
