"""Trimming a run log for keeping (test fixtures, --record): the harness's own system prompt and
tool schemas are large and say nothing about the seat, so only what the analysis reads is kept."""

from __future__ import annotations

import copy
from typing import Any

from curator.canary.requestlog import BLOCK_RE, content_text

KEEP_HEAD = 160  # enough to tell a main request from a summary or title request
INSTRUCTIONS = "Instructions from: "


AUTO_MEMORY = "(user's auto-memory, persists across conversations)"  # Claude Code's MEMORY.md block


def _keep_blocks(text: str) -> str:
    """The seat's blocks (with Claude Code's ``SessionStart:… hook success:`` label before each),
    the rest of the text trimmed to a marker: the harness's environment text says nothing here."""
    out, at = [], 0
    for match in BLOCK_RE.finditer(text):
        start = match.start()
        label = text.rfind("SessionStart:", at, start)
        if label >= 0 and " hook success: " in text[label:start] and start - label < 80:
            start = label
        if start - at > 40:
            out.append(text[at:at + 40] + f" …[{start - at - 40} chars trimmed]…\n")
        else:
            out.append(text[at:start])
        out.append(text[start:match.end()])
        at = match.end()
    rest = text[at:]
    out.append(rest if len(rest) <= 80 else rest[:40] + f" …[{len(rest) - 40} chars trimmed]")
    return "".join(out)


def _trim_text(text: str) -> str:
    if AUTO_MEMORY in text or len(text) <= 400:
        return text
    if "<seat-memory-layer" in text:
        return _keep_blocks(text)
    at = text.find(INSTRUCTIONS)
    if at >= 0:  # opencode's system prompt: keep its head and every instruction block
        return text[:KEEP_HEAD] + f" …[{at - KEEP_HEAD} chars trimmed]…\n" + text[at:]
    return text[:KEEP_HEAD] + f" …[{len(text) - KEEP_HEAD} chars trimmed]"


def trim_log(log: dict[str, Any]) -> dict[str, Any]:
    trimmed = copy.deepcopy(log)
    for step in trimmed.get("steps", []):
        step["output_tail"] = step.get("output_tail", "")[-300:]
        for request in step.get("requests", []):
            tools = request.get("tools")
            if isinstance(tools, list) and tools:
                request["tools"] = [f"{len(tools)} tool schemas trimmed"]
            if isinstance(request.get("system"), (str, list)):  # the Anthropic wire's own system prompt
                request["system"] = _trim_text(content_text({"content": request["system"]}))
            for message in request.get("messages", []):
                message["content"] = _trim_text(content_text(message))
                message.pop("tool_calls", None)
    return trimmed
