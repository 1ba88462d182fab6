"""Reading a recorded Codex CLI run: did MEMORY.md and identity.md reach the model at boot, and again
after each automatic compaction (between turns, at ``exec resume``; and in the middle of a turn), as on
disk?

Codex speaks the Responses API: a request's ``input`` is a list of items, and a SessionStart hook's
``additionalContext`` arrives as a ``developer`` message. For a seat that message is the
identity-anchor hook's ``<seat-memory-layer>`` block, each boot file after its ``<!-- name -->``
line. Codex skips an untrusted hook without a word, so when the block is missing the verdict names
what the seat's ``config.toml`` trusts (the run log's ``wiring``), not just the absence. After a
compaction Codex drops every earlier developer message: the request after the compaction request
carries the files only if the hook put them back: between turns both its ``resume`` event (a
``session-boot`` block) and its ``compact`` event (``trigger="post-compact-reload"``) fire, and the verdict
says which arrived; mid-turn only ``compact`` fires. A missing block is named by the matcher in the
run log's ``wiring``.
"""

from __future__ import annotations

from typing import Any

from curator.canary.requestlog import compare_file, ran_step
from curator.canary.result import FAIL, PASS, StepResult

BLOCK_START = "<seat-memory-layer "
BLOCK_END = "</seat-memory-layer>"
COMPACTION_PROMPT = "You are performing a CONTEXT CHECKPOINT COMPACTION."
RELOAD_TRIGGER = 'trigger="post-compact-reload"'


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def developer_blocks(request: dict[str, Any]) -> list[str]:
    """The seat-memory blocks among a request's developer messages, in order."""
    items = request.get("input")
    if not isinstance(items, list):
        items = []
    return [text for item in items if isinstance(item, dict) and item.get("role") == "developer"
            and (text := _text(item)).startswith(BLOCK_START)]


def boot_verdict(step: dict[str, Any], boot_files: dict[str, str | None], wiring: dict[str, Any]) -> StepResult:
    requests = [r for r in step.get("requests", []) if isinstance(r.get("input"), list)]
    if not requests:
        return StepResult("boot", FAIL, "codex sent no request to the stub", [step.get("output_tail", "")[-400:]])
    blocks = developer_blocks(requests[0])
    if not blocks:
        why = wiring.get("problem") or "the seat's hook is trusted, yet its output did not arrive"
        return StepResult("boot", FAIL, f"no SessionStart hook output reached the model: {why}",
                          [f"trust key: {wiring.get('trust_key', '?')}"])
    ok, evidence = files_in_block(blocks[0], boot_files)
    return StepResult("boot", PASS if ok else FAIL,
                      "MEMORY.md and identity.md reached the model at boot, as on disk" if ok
                      else "the boot files did not reach the model as on disk", evidence)


def files_in_block(block: str, boot_files: dict[str, str | None]) -> tuple[bool, list[str]]:
    evidence, ok = [], True
    for name, on_disk in boot_files.items():
        marker = f"<!-- {name} -->\n"
        at = block.find(marker)
        if at < 0:
            ok = False
            evidence.append(f"{name}: not in the hook's block")
            continue
        same, line = compare_file(name, on_disk, block, at + len(marker), ("<!-- ", BLOCK_END))
        ok = ok and same
        evidence.append(line)
    return ok, evidence


def is_compaction(request: dict[str, Any]) -> bool:
    items = request.get("input")
    if not isinstance(items, list):
        items = []
    last = items[-1] if items and isinstance(items[-1], dict) else {}
    return last.get("role") == "user" and _text(last).startswith(COMPACTION_PROMPT)


def _trigger(block: str) -> str:
    head = block.split("\n", 1)[0]
    return RELOAD_TRIGGER if RELOAD_TRIGGER in head else "session-boot"


def _missing_sources(wiring: dict[str, Any], *sources: str) -> list[str]:
    """Which of ``sources`` the seat's SessionStart matcher does not name (Codex then never runs the hook)."""
    matcher = wiring.get("matcher")
    named = str(matcher).split("|") if isinstance(matcher, str) else []
    return [source for source in sources if source not in named]


def _matcher_line(wiring: dict[str, Any]) -> str:
    return f"SessionStart matcher in hooks.json: {wiring.get('matcher', '?')!s}"


def _after_compaction(requests: list[dict[str, Any]], at: int) -> dict[str, Any] | None:
    """The request that follows the compaction request at ``at`` (None when the turn stopped there)."""
    return requests[at + 1] if at + 1 < len(requests) else None


def between_turns_verdict(step: dict[str, Any], boot_files: dict[str, str | None],
                          wiring: dict[str, Any]) -> StepResult:
    """The resumed turn compacts before anything else; its request must bring the files back through the
    hook's ``resume`` event (a session-boot block) or its ``compact`` event (a post-compact-reload block)."""
    name = "compact-between-turns"
    requests = [r for r in step.get("requests", []) if isinstance(r.get("input"), list)]
    if not requests or not is_compaction(requests[0]):
        return StepResult(name, FAIL, "Codex did not compact at the start of the resumed turn",
                          [f"{len(requests)} request(s) in the resumed turn"])
    after = _after_compaction(requests, 0)
    if after is None:
        return StepResult(name, FAIL, "no request followed the compaction", ["1 request in the resumed turn"])
    blocks = developer_blocks(after)
    if not blocks:
        missing = _missing_sources(wiring, "resume", "compact")
        why = (f"the hook's matcher names neither {' nor '.join(missing)}" if len(missing) == 2
               else "the hook's resume and compact events put nothing back")
        return StepResult(name, FAIL, f"after the compaction between turns the seat's files are gone: {why}",
                          [_matcher_line(wiring)])
    fired = [("compact" if _trigger(b) == RELOAD_TRIGGER else "resume") for b in blocks]
    evidence = [f"compaction request, then the resumed turn's request with {len(blocks)} hook block(s): "
                f"SessionStart {', '.join(fired)}"]
    ok = True
    for event, block in zip(fired, blocks):
        same, lines = files_in_block(block, boot_files)
        ok = ok and same
        evidence += [f"{event}: {line}" for line in lines]
    missing = _missing_sources(wiring, "resume", "compact")
    if missing:
        evidence.append(f"{_matcher_line(wiring)} (no {' or '.join(missing)})")
    return StepResult(name, PASS if ok else FAIL,
                      f"after the compaction between turns, MEMORY.md and identity.md came back through "
                      f"SessionStart {' and '.join(fired)}, as on disk" if ok
                      else "after the compaction between turns the files did not come back as on disk", evidence)


def mid_turn_verdict(step: dict[str, Any], boot_files: dict[str, str | None], wiring: dict[str, Any]) -> StepResult:
    """A compaction after a tool call, inside the turn: only the ``compact`` event can put the files back."""
    requests = [r for r in step.get("requests", []) if isinstance(r.get("input"), list)]
    at = next((i for i, r in enumerate(requests) if i > 0 and is_compaction(r)), None)
    if at is None:
        return StepResult("compact", FAIL, "Codex did not compact mid-turn: no compaction request followed the "
                          "tool call", [f"{len(requests)} request(s) this turn"])
    after = _after_compaction(requests, at)
    if after is None:
        return StepResult("compact", FAIL, "no request followed the compaction", [f"{len(requests)} request(s)"])
    blocks = [b for b in developer_blocks(after) if _trigger(b) == RELOAD_TRIGGER]
    if not blocks:
        why = ("the hook's matcher does not name compact" if _missing_sources(wiring, "compact")
               else "the hook's compact event put nothing back")
        return StepResult("compact", FAIL, f"after compaction the seat's files are gone: {why}",
                          [f"developer blocks after compaction: {len(developer_blocks(after))}", _matcher_line(wiring)])
    ok, evidence = files_in_block(blocks[0], boot_files)
    return StepResult("compact", PASS if ok else FAIL,
                      "after the mid-turn compaction, MEMORY.md and identity.md came back, as on disk" if ok
                      else "after compaction the files did not come back as on disk",
                      ["compaction request, then the hook's compact block in the next request", *evidence])


def analyse_codex(log: dict[str, Any]) -> list[StepResult]:
    step = ran_step(log, "boot")
    if isinstance(step, StepResult):
        return [step]
    files, wiring = log.get("boot_files") or {}, log.get("wiring") or {}
    boot = boot_verdict(step, files, wiring)
    if boot.status == FAIL and not developer_blocks(next(iter(step.get("requests") or []), {})):
        return [boot]  # no hook output at all: the compactions would only say so again
    resumed = ran_step(log, "resume")
    if isinstance(resumed, StepResult):
        return [boot, resumed]
    return [boot, between_turns_verdict(resumed, files, wiring), mid_turn_verdict(resumed, files, wiring)]
