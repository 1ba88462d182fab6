"""Reading a recorded OpenCode run: every main request, before and after compaction, carries each boot
file in its system prompt (opencode.jsonc ``instructions``) as on disk."""

from __future__ import annotations

from typing import Any

from curator.canary.requestlog import compare_file, did_not_run, system_text
from curator.canary.result import FAIL, PASS, StepResult

OPENCODE_SUMMARY_PREFIX = "You are a context summarization agent"


OPENCODE_TITLE_PREFIX = "You are a title generator"


def _instruction_paths(log: dict[str, Any], name: str) -> list[str]:
    paths = []
    for key in ("memory_dir", "memory_dir_real"):
        if log.get(key):
            paths.append(log[key].rstrip("/") + "/" + name)
    return paths


def _check_system(log: dict[str, Any], request: dict[str, Any], label: str) -> tuple[bool, list[str]]:
    text = system_text(request)
    ok, evidence = True, []
    files = log.get("boot_files", {})
    for name, on_disk in files.items():
        header_at, header = -1, ""
        for path in _instruction_paths(log, name):
            header = f"Instructions from: {path}\n"
            header_at = text.find(header)
            if header_at >= 0:
                break
        if header_at < 0:
            ok = False
            wired = (log.get("wiring") or {}).get("instructions")
            hint = ""
            if wired is not None and not any(str(entry).endswith(name) for entry in wired):
                hint = f"; {name} is not in opencode.jsonc instructions ({', '.join(map(str, wired)) or 'empty'})"
            evidence.append(f"{label}: {name} missing from the system prompt{hint}")
            continue
        same, line = compare_file(name, on_disk, text, header_at + len(header), ("Instructions from: ",))
        ok = ok and same
        evidence.append(f"{label}: {line}")
    return ok, evidence


def _opencode_kind(request: dict[str, Any]) -> str:
    system = system_text(request)
    if system.startswith(OPENCODE_SUMMARY_PREFIX):
        return "summary"
    if system.startswith(OPENCODE_TITLE_PREFIX) or not request.get("tools"):
        return "aside"  # title and other tool-less helper requests carry no instructions
    return "main"


def _check_mains(log: dict[str, Any], name: str, requests: list[dict[str, Any]], what: str) -> StepResult:
    if not requests:
        return StepResult(name, FAIL, f"no main request {what}")
    ok, evidence = True, []
    for number, request in enumerate(requests, 1):
        same, lines = _check_system(log, request, f"main request {number}")
        ok = ok and same
        evidence.extend(lines)
    if ok:
        return StepResult(name, PASS, f"all {len(requests)} main request(s) {what} carry every boot file as on disk", evidence)
    return StepResult(name, FAIL, f"a main request {what} lacks a boot file or carries a stale copy", evidence)


def analyse_opencode(log: dict[str, Any]) -> list[StepResult]:
    """Main requests before the compaction (the first is the boot request), the compaction, and the
    main requests after it, over every turn the run made, in order."""
    steps = log.get("steps") or []
    for step in steps or [None]:
        failed = did_not_run(step, step["name"] if step else "boot")
        if failed:
            return [failed]
    requests = [r for step in steps for r in step["requests"]]
    kinds = [_opencode_kind(r) for r in requests]
    evidence = [f"request kinds, in order: {', '.join(kinds)}"]
    if "summary" not in kinds:
        return [_check_mains(log, "boot", [r for r, k in zip(requests, kinds) if k == "main"], "at boot"),
                StepResult("compact", FAIL, "the harness did not compact (no summarization request arrived)", evidence)]
    cut = kinds.index("summary")
    return [
        _check_mains(log, "boot", [r for r, k in zip(requests[:cut], kinds[:cut]) if k == "main"], "before compaction"),
        StepResult("compact", PASS, "compaction ran (a summarization request arrived)", evidence),
        _check_mains(log, "after-compaction", [r for r, k in zip(requests[cut:], kinds[cut:]) if k == "main"],
                     "after compaction"),
    ]
