"""Reading a recorded Gemini CLI run: did MEMORY.md and identity.md reach the model at boot, and again
after Gemini compressed the conversation, as on disk?

Gemini puts workspace context (the repo and ``context.includeDirectories``) into the first user
message, each file trimmed between ``--- Context from: <path> ---`` and ``--- End of Context from:
<path> ---``. When a file is missing the verdict names the settings that should have loaded it
(the run log's ``wiring``: the seat's ``context`` settings). A compression replaces the history with
the snapshot the stub answered and rebuilds the session context in front of it: the request after the
compression requests must carry that snapshot (it continues from the compressed history) and, in its
first user message, both files again.
"""

from __future__ import annotations

import re
from typing import Any

from curator.canary.requestlog import compare_file, ran_step
from curator.canary.result import FAIL, PASS, StepResult
from curator.canary.stub import GEMINI_SNAPSHOT as SNAPSHOT, is_gemini_compression


# What Gemini leaves in place of an @word it took as an import and could not resolve.
IMPORT_FAILED_RE = re.compile(r"<!-- Import failed: (.*?) - ")


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


def files_verdict(name: str, request: dict[str, Any], log: dict[str, Any], passed: str) -> StepResult:
    """Does the request's first user message carry both boot files as on disk? Else name the setting."""
    text = first_user_text(request)
    memory_dirs = [d for d in (log.get("memory_dir"), log.get("memory_dir_real")) if isinstance(d, str)]
    context = (log.get("wiring") or {}).get("context")
    evidence, missing = [], []
    for file_name, on_disk in (log.get("boot_files") or {}).items():
        if on_disk is None:
            evidence.append(f"{file_name}: not on disk in the memory dir (nothing to load)")
            missing.append(file_name)
            continue
        want = on_disk.strip()
        blocks = [f"--- Context from: {d.rstrip('/')}/{file_name} ---\n{want}\n--- End of Context from: "
                  for d in memory_dirs]
        if any(block in text for block in blocks):
            evidence.append(f"{file_name}: {len(want.encode('utf-8'))} bytes arrived, identical to disk (trimmed, as "
                            "Gemini trims)")
            continue
        missing.append(file_name)
        changed = _arrived_changed(file_name, want, text, memory_dirs)
        evidence.append(changed or
                        f"{file_name}: did not arrive as on disk: {_missing_wiring(file_name, memory_dirs, context)}")
    if missing:
        return StepResult(name, FAIL, f"{' and '.join(missing)} did not reach the model as on disk", evidence)
    return StepResult(name, PASS, passed, evidence)


def _arrived_changed(name: str, want: str, text: str, memory_dirs: list[str]) -> str | None:
    """When the file's context block arrived but its text is not the file's: where it differs, and the
    import Gemini failed on when an ``@word`` in the file was taken as one. None when no block arrived."""
    for directory in memory_dirs:
        start = f"--- Context from: {directory.rstrip('/')}/{name} ---\n"
        at = text.find(start)
        if at < 0:
            continue
        arrived = text[at + len(start):].split("\n--- End of Context from: ", 1)[0]
        _, line = compare_file(name, want, arrived, 0, ())
        failed = IMPORT_FAILED_RE.search(arrived)
        return line + (f": Gemini took @{failed.group(1)} in it as an import, which failed (an `<!-- Import "
                       "failed` comment arrived in its place)" if failed else "")
    return None


def _turns(step: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in step.get("requests", []) if isinstance(r.get("contents"), list)]


def boot_verdict(step: dict[str, Any], log: dict[str, Any]) -> StepResult:
    requests = _turns(step)
    if not requests:
        return StepResult("boot", FAIL, "gemini sent no turn to the stub", [step.get("output_tail", "")[-400:]])
    return files_verdict("boot", requests[0], log, "MEMORY.md and identity.md reached the model at boot, as on disk")


def _carries(request: dict[str, Any], text: str) -> bool:
    return any(isinstance(p, dict) and p.get("text") == text for c in request.get("contents", []) if isinstance(c, dict)
               for p in c.get("parts", []))


def compress_verdict(step: dict[str, Any], log: dict[str, Any]) -> StepResult:
    """Gemini compressed the resumed conversation (its snapshot requests reached the stub) and the next
    request, rebuilt from the snapshot, still carries both files in its first user message."""
    requests = _turns(step)
    at = [i for i, r in enumerate(requests) if is_gemini_compression(r)]
    if not at:
        return StepResult("compress", FAIL, "Gemini did not compress: no <state_snapshot> request reached the stub",
                          [f"{len(requests)} request(s) in the resumed turn"])
    after = requests[at[-1] + 1:at[-1] + 2]
    if not after:
        return StepResult("compress", FAIL, "no request followed the compression", [f"{len(at)} compression request(s)"])
    if not _carries(after[0], SNAPSHOT):
        return StepResult("compress", FAIL, "the request after the compression does not carry the snapshot: "
                          "Gemini did not continue from the compressed history", [f"{len(at)} compression request(s)"])
    verdict = files_verdict("compress", after[0], log,
                            "after Gemini compressed the conversation, MEMORY.md and identity.md reached the model "
                            "again, as on disk")
    verdict.evidence.insert(0, f"{len(at)} compression request(s), then a request rebuilt from the snapshot")
    return verdict


def analyse_gemini(log: dict[str, Any]) -> list[StepResult]:
    step = ran_step(log, "boot")
    if isinstance(step, StepResult):
        return [step]
    resumed = ran_step(log, "compress")
    return [boot_verdict(step, log), resumed if isinstance(resumed, StepResult) else compress_verdict(resumed, log)]
