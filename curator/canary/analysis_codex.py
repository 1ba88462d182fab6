"""Reading a recorded Codex CLI run: did MEMORY.md and identity.md reach the model at boot, as on disk?

Codex speaks the Responses API: a request's ``input`` is a list of items, and a SessionStart hook's
``additionalContext`` arrives as a ``developer`` message. For a seat that message is the
identity-anchor hook's ``<seat-memory-layer>`` block, each boot file after its ``<!-- name -->``
line. Codex skips an untrusted hook without a word, so when the block is missing the verdict names
what the seat's ``config.toml`` trusts (the run log's ``wiring``), not just the absence.
"""

from __future__ import annotations

from typing import Any

from curator.canary.requestlog import compare_file, ran_step
from curator.canary.result import FAIL, PASS, StepResult

BLOCK_START = "<seat-memory-layer "
BLOCK_END = "</seat-memory-layer>"


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def developer_blocks(request: dict[str, Any]) -> list[str]:
    """The seat-memory blocks among a request's developer messages, in order."""
    items = request.get("input") if isinstance(request.get("input"), list) else []
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
    block, evidence, ok = blocks[0], [], True
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
    return StepResult("boot", PASS if ok else FAIL,
                      "MEMORY.md and identity.md reached the model at boot, as on disk" if ok
                      else "the boot files did not reach the model as on disk", evidence)


def analyse_codex(log: dict[str, Any]) -> list[StepResult]:
    step = ran_step(log, "boot")
    if isinstance(step, StepResult):
        return [step]
    return [boot_verdict(step, log.get("boot_files") or {}, log.get("wiring") or {})]
