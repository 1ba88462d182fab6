"""Reading a recorded Codex CLI run: did MEMORY.md and identity.md reach the model at boot, and again
after the automatic compaction in the middle of the turn, as on disk?

Codex speaks the Responses API: a request's ``input`` is a list of items, and a SessionStart hook's
``additionalContext`` arrives as a ``developer`` message. For a seat that message is the
identity-anchor hook's ``<seat-memory-layer>`` block, each boot file after its ``<!-- name -->``
line. Codex skips an untrusted hook without a word, so when the block is missing the verdict names
what the seat's ``config.toml`` trusts (the run log's ``wiring``), not just the absence. After a
compaction Codex drops every earlier developer message: the request after the compaction request
carries the files only if the hook's ``compact`` event put them back (``trigger="post-compact-reload"``).
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


def compact_verdict(step: dict[str, Any], boot_files: dict[str, str | None]) -> StepResult:
    requests = [r for r in step.get("requests", []) if isinstance(r.get("input"), list)]
    at = next((i for i, r in enumerate(requests) if is_compaction(r)), None)
    if at is None:
        return StepResult("compact", FAIL, "Codex did not compact: no compaction request reached the stub",
                          [f"{len(requests)} request(s) this turn"])
    after = requests[at + 1:at + 2]
    if not after:
        return StepResult("compact", FAIL, "no request followed the compaction", [f"{len(requests)} request(s)"])
    blocks = [b for b in developer_blocks(after[0]) if RELOAD_TRIGGER in b.split("\n", 1)[0]]
    if not blocks:
        return StepResult("compact", FAIL, "after compaction the seat's files are gone: the hook's compact event "
                          "put nothing back", [f"developer blocks after compaction: {len(developer_blocks(after[0]))}"])
    ok, evidence = files_in_block(blocks[0], boot_files)
    return StepResult("compact", PASS if ok else FAIL,
                      "after the mid-turn compaction, MEMORY.md and identity.md came back, as on disk" if ok
                      else "after compaction the files did not come back as on disk",
                      ["compaction request, then the hook's compact block in the next request", *evidence])


def analyse_codex(log: dict[str, Any]) -> list[StepResult]:
    step = ran_step(log, "boot")
    if isinstance(step, StepResult):
        return [step]
    boot = boot_verdict(step, log.get("boot_files") or {}, log.get("wiring") or {})
    if boot.status == FAIL and not developer_blocks(next(iter(step.get("requests") or []), {})):
        return [boot]  # no hook output at all: the compaction would only say so again
    return [boot, compact_verdict(step, log.get("boot_files") or {})]
