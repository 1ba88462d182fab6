"""Reading a recorded Gemini CLI run: did MEMORY.md and identity.md reach the model at boot, as on disk?

Gemini puts workspace context (the repo and ``context.includeDirectories``) into the first user
message, each file trimmed between ``--- Context from: <path> ---`` and ``--- End of Context from:
<path> ---``. When a file is missing the verdict names the settings that should have loaded it
(the run log's ``wiring``: the seat's ``context`` settings).
"""

from __future__ import annotations

from typing import Any

from curator.canary.requestlog import ran_step
from curator.canary.result import FAIL, PASS, StepResult


def first_user_text(request: dict[str, Any]) -> str:
    contents = request.get("contents")
    if not isinstance(contents, list):
        contents = []
    for content in contents:
        if isinstance(content, dict) and content.get("role") == "user":
            return "".join(p.get("text", "") for p in content.get("parts", []) if isinstance(p, dict)
                           and isinstance(p.get("text"), str))
    return ""


def _missing_wiring(name: str, memory_dirs: list[str], context: Any) -> str:
    """Which part of the seat's context settings does not load ``name`` from the memory dir."""
    if not isinstance(context, dict):
        return "the seat's settings.json has no context settings"
    problems = []
    if name not in (context.get("fileName") or []):
        problems.append(f"context.fileName does not name {name}")
    if not set(memory_dirs) & set(context.get("includeDirectories") or []):
        problems.append("context.includeDirectories does not hold the memory dir")
    if context.get("loadMemoryFromIncludeDirectories") is not True:
        problems.append("context.loadMemoryFromIncludeDirectories is not true")
    return "; ".join(problems) or "the settings wire it, yet it did not arrive"


def boot_verdict(step: dict[str, Any], log: dict[str, Any]) -> StepResult:
    requests = [r for r in step.get("requests", []) if isinstance(r.get("contents"), list)]
    if not requests:
        return StepResult("boot", FAIL, "gemini sent no turn to the stub", [step.get("output_tail", "")[-400:]])
    text = first_user_text(requests[0])
    memory_dirs = [d for d in (log.get("memory_dir"), log.get("memory_dir_real")) if isinstance(d, str)]
    context = (log.get("wiring") or {}).get("context")
    evidence, missing = [], []
    for name, on_disk in (log.get("boot_files") or {}).items():
        if on_disk is None:
            evidence.append(f"{name}: not on disk in the memory dir (nothing to load)")
            missing.append(name)
            continue
        want = on_disk.strip()
        blocks = [f"--- Context from: {d.rstrip('/')}/{name} ---\n{want}\n--- End of Context from: "
                  for d in memory_dirs]
        if any(block in text for block in blocks):
            evidence.append(f"{name}: {len(want.encode('utf-8'))} bytes arrived, identical to disk (trimmed, as "
                            "Gemini trims)")
            continue
        missing.append(name)
        evidence.append(f"{name}: did not arrive as on disk: {_missing_wiring(name, memory_dirs, context)}")
    if missing:
        return StepResult("boot", FAIL, f"{' and '.join(missing)} did not reach the model as on disk", evidence)
    return StepResult("boot", PASS, "MEMORY.md and identity.md reached the model at boot, as on disk", evidence)


def analyse_gemini(log: dict[str, Any]) -> list[StepResult]:
    step = ran_step(log, "boot")
    if isinstance(step, StepResult):
        return [step]
    return [boot_verdict(step, log)]
