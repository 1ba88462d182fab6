"""A recorded run's request log, read the way every harness's analysis needs it: the chat messages,
the ``<seat-memory-layer>`` blocks in them, a boot file compared byte for byte, and the step that
never reached the model.

A run log is the JSON the runner records (``docs/canary.md``)::

    {"harness": "kimi-code" | "opencode" | "claude-code", "resident": str, "memory_dir": str,
     "boot_files": {"MEMORY.md": text | None, "identity.md": text | None},   # on disk before the run
     "wiring": {"hook_events": [...]} | {"instructions": [...]}          # what the seat's config wires
               | {"settings", "auto_memory_directory", "session_start": [{"matcher", "command"}]},
     "steps": [{"name", "exit_code", "timed_out", "requests": [chat bodies], "state_files": [...]}]}
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from curator.canary.result import FAIL, StepResult

BLOCK_RE = re.compile(r'<seat-memory-layer\b([^>]*)>(.*?)(?:</seat-memory-layer>|\Z)', re.S)
TRIGGER_RE = re.compile(r'\btrigger="([^"]*)"')
BOOT, RELOAD = "session-boot", "post-compact-reload"


# ------------------------------------------------------------------------------------ wire helpers


def content_text(message: dict[str, Any]) -> str:
    """A chat message's text: a plain string, or the text parts of a content list joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    found = request.get("messages")
    return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []


def system_text(request: dict[str, Any]) -> str:
    return "\n".join(content_text(m) for m in messages(request) if m.get("role") == "system")


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


@dataclass(frozen=True)
class Block:
    trigger: str
    text: str  # everything between the opening tag and the closing tag
    closed: bool
    message_index: int


def blocks_in(request: dict[str, Any], start: int = 0) -> list[Block]:
    """Every ``<seat-memory-layer>`` block in the request's messages from index ``start`` on."""
    found = []
    for index, message in enumerate(messages(request)):
        if index < start:
            continue
        for match in BLOCK_RE.finditer(content_text(message)):
            trigger = TRIGGER_RE.search(match.group(1))
            found.append(Block(trigger.group(1) if trigger else "", match.group(2),
                               match.group(0).endswith("</seat-memory-layer>"), index))
    return found


def turn_start(request: dict[str, Any]) -> int:
    """Index of the first message this turn added: everything after the last assistant message."""
    last = -1
    for index, message in enumerate(messages(request)):
        if message.get("role") == "assistant":
            last = index
    return last + 1


def compare_file(name: str, on_disk: str | None, text: str, start: int, ends: tuple[str, ...]) -> tuple[bool, str]:
    """Does ``text`` at ``start`` carry ``on_disk`` exactly? Returns (ok, evidence line).

    A shorter copy that stops at one of ``ends`` (the next marker, the block's end) is reported as
    truncated; anything else as differing at the first byte that differs.
    """
    if on_disk is None:
        return False, f"{name}: not on disk in the memory dir (nothing to load)"
    want = nbytes(on_disk)
    if text.startswith(on_disk, start):
        return True, f"{name}: {want} bytes arrived, identical to disk"
    arrived = text[start:]
    same = 0
    for a, b in zip(arrived, on_disk):
        if a != b:
            break
        same += 1
    rest = arrived[same:]
    if same < len(on_disk) and (not rest.strip() or any(rest.lstrip("\n").startswith(e) for e in ends)):
        return False, f"{name}: truncated — {nbytes(on_disk[:same])} of {want} bytes arrived"
    return False, f"{name}: differs from disk at byte {nbytes(on_disk[:same])} of {want}"


# ------------------------------------------------------------------------------------------ steps


def step_named(log: dict[str, Any], name: str) -> dict[str, Any] | None:
    for step in log.get("steps", []):
        if step.get("name") == name:
            return step
    return None


def did_not_run(step: dict[str, Any] | None, name: str) -> StepResult | None:
    """A FAIL when the turn never reached the model; None when it did."""
    if step is None:
        return StepResult(name, FAIL, "step did not run")
    requests = step.get("requests") or []
    evidence = [f"exit code {step.get('exit_code')}" + (" (timed out)" if step.get("timed_out") else "")]
    if step.get("output_tail"):
        evidence.append("harness said: " + step["output_tail"].strip().splitlines()[-1][:300])
    if not requests:
        return StepResult(name, FAIL, "no request reached the stub model", evidence)
    if step.get("timed_out") or step.get("exit_code") not in (0, None):
        return StepResult(name, FAIL, "the harness turn did not finish cleanly", evidence)
    return None


def ran_step(log: dict[str, Any], name: str) -> dict[str, Any] | StepResult:
    """The step called ``name`` when its turn reached the model and finished cleanly; else the FAIL
    that says why."""
    step = step_named(log, name)
    if step is None:
        return StepResult(name, FAIL, "step did not run")
    return did_not_run(step, name) or step
