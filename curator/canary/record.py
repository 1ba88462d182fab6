"""Trimming a run log for keeping (test fixtures, --record): the harness's own system prompt and
tool schemas are large and say nothing about the seat, so only what the analysis reads is kept."""

from __future__ import annotations

import copy
from typing import Any

from curator.canary.analysis import content_text

KEEP_HEAD = 160  # enough to tell a main request from a summary or title request
INSTRUCTIONS = "Instructions from: "


def _trim_text(text: str) -> str:
    if "<seat-memory-layer" in text or len(text) <= 400:
        return text
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
            for message in request.get("messages", []):
                message["content"] = _trim_text(content_text(message))
                message.pop("tool_calls", None)
    return trimmed
