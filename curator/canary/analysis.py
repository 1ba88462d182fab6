"""Reading a recorded run: did the seat's boot files reach the model, when, and byte for byte? One
reader per harness (``analysis_kimi``, ``analysis_opencode``, ``analysis_claude``) over the shared
request log (``requestlog``); pure functions, unit-tested on logs recorded from the real harnesses."""

from __future__ import annotations

from typing import Any

from curator.canary.analysis_claude import analyse_claude
from curator.canary.analysis_kimi import analyse_kimi
from curator.canary.analysis_opencode import analyse_opencode
from curator.canary.result import FAIL, StepResult


READERS = {"kimi-code": analyse_kimi, "opencode": analyse_opencode, "claude-code": analyse_claude}


def analyse(log: dict[str, Any]) -> list[StepResult]:
    """The verdicts for one recorded run, by harness."""
    reader = READERS.get(str(log.get("harness")))
    if reader is None:
        return [StepResult("analysis", FAIL, f"unknown harness in run log: {log.get('harness')!r}")]
    return reader(log)
