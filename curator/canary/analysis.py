"""Reading a recorded run: did the seat's boot files reach the model, when, and byte for byte?
(Claude Code runs are read in ``analysis_claude``.)

Pure functions over a run log (the JSON the runner records; see ``docs/canary.md``), so every verdict
can be unit-tested on logs recorded from the real harnesses. A run log is a dict::

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

from curator.canary.result import FAIL, INFO, PASS, StepResult

BLOCK_RE = re.compile(r'<seat-memory-layer\b([^>]*)>(.*?)(?:</seat-memory-layer>|\Z)', re.S)
TRIGGER_RE = re.compile(r'\btrigger="([^"]*)"')
KIMI_SUMMARY_PREFIX = "You are about to run out of context"
OPENCODE_SUMMARY_PREFIX = "You are a context summarization agent"
OPENCODE_TITLE_PREFIX = "You are a title generator"
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


# --------------------------------------------------------------------------------------- kimi-code


def _step(log: dict[str, Any], name: str) -> dict[str, Any] | None:
    for step in log.get("steps", []):
        if step.get("name") == name:
            return step
    return None


def _ran(step: dict[str, Any] | None, name: str) -> StepResult | None:
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


def _kimi_is_summary(request: dict[str, Any]) -> bool:
    msgs = messages(request)
    return bool(msgs) and content_text(msgs[-1]).startswith(KIMI_SUMMARY_PREFIX)


def _kimi_main(step: dict[str, Any]) -> dict[str, Any]:
    """The turn's own request: the last one that is not a compaction summary."""
    mains = [r for r in step.get("requests", []) if not _kimi_is_summary(r)]
    return mains[-1] if mains else step["requests"][-1]


def _hook_hint(log: dict[str, Any], event: str) -> list[str]:
    events = (log.get("wiring") or {}).get("hook_events")
    if events is not None and event not in events:
        return [f"config.toml has no [[hooks]] entry for {event} (wired: {', '.join(events) or 'none'})"
                " — the identity-anchor hook pair is missing"]
    return []


def _check_block(log: dict[str, Any], name: str, request: dict[str, Any], trigger: str) -> StepResult:
    new = blocks_in(request, turn_start(request))
    total = blocks_in(request)
    evidence = [f"{len(total)} <seat-memory-layer> block(s) in the request, {len(new)} added this turn"]
    if not new:
        return StepResult(name, FAIL, f'no trigger="{trigger}" block reached the model',
                          evidence + _hook_hint(log, "UserPromptSubmit"))
    if len(new) > 1:
        return StepResult(name, FAIL, f"{len(new)} blocks added in one turn, expected one", evidence)
    block = new[0]
    if block.trigger != trigger:
        return StepResult(name, FAIL, f'block arrived with trigger="{block.trigger}", expected "{trigger}"', evidence)
    ok = block.closed
    if not block.closed:
        evidence.append("block has no closing </seat-memory-layer>: the hook output was cut")
    files = log.get("boot_files", {})
    for file_name, on_disk in files.items():
        marker = f"<!-- {file_name} -->\n"
        at = block.text.find(marker)
        if at < 0:
            ok = False
            evidence.append(f"{file_name}: missing from the block"
                            + (" (not on disk either)" if on_disk is None else f" ({nbytes(on_disk)} bytes on disk)"))
            continue
        ends = tuple(f"<!-- {n} -->" for n in files if n != file_name) + ("<!-- wake-route -->",)
        same, line = compare_file(file_name, on_disk, block.text, at + len(marker), ends)
        ok = ok and same
        evidence.append(line)
    if ok:
        return StepResult(name, PASS, f'one trigger="{trigger}" block carrying every boot file as on disk', evidence)
    return StepResult(name, FAIL, f'trigger="{trigger}" block arrived but boot files are missing or differ', evidence)


def analyse_kimi(log: dict[str, Any]) -> list[StepResult]:
    results: list[StepResult] = []

    boot = _step(log, "boot")
    results.append(_ran(boot, "boot") or _check_block(log, "boot", _kimi_main(boot), BOOT))

    silent = _step(log, "silent")
    failed = _ran(silent, "silent")
    if failed:
        results.append(failed)
    else:
        request = _kimi_main(silent)
        new = blocks_in(request, turn_start(request))
        total = blocks_in(request)
        evidence = [f"{len(total)} block(s) in the request, all from earlier turns (history keeps the boot block)"
                    if not new else f"{len(total)} block(s) in the request, {len(new)} added this turn"]
        if new:
            results.append(StepResult("silent", FAIL, "an ordinary turn injected the index again", evidence
                                      + [f'added trigger="{b.trigger}", {nbytes(b.text)} bytes' for b in new]))
        else:
            results.append(StepResult("silent", PASS, "ordinary turn added no block (byte-silent)", evidence))

    compact = _step(log, "compact")
    failed = _ran(compact, "compact")
    if failed:
        results.append(failed)
    else:
        requests = compact.get("requests", [])
        summaries = [i for i, r in enumerate(requests) if _kimi_is_summary(r)]
        markers = [f for f in compact.get("state_files", []) if f.endswith(".compacted")]
        evidence = [f"{len(requests)} request(s) this turn, {len(summaries)} compaction summary request(s)",
                    "state after the turn: " + (", ".join(compact.get("state_files", [])) or "no hook state files")]
        if not summaries:
            results.append(StepResult("compact", FAIL, "the harness did not compact (no summary request arrived)", evidence))
        elif not markers:
            results.append(StepResult("compact", FAIL, "compaction ran but PostCompact did not mark the session",
                                      evidence + _hook_hint(log, "PostCompact")))
        else:
            results.append(StepResult("compact", PASS, "compaction ran and PostCompact marked the session", evidence))
        if summaries and summaries[-1] + 1 < len(requests):
            after = requests[summaries[-1] + 1]
            count = len(blocks_in(after))
            results.append(StepResult(
                "compact-turn-index", INFO,
                "the compacting turn itself ran without the index (expected: the hook fires before compaction)"
                if count == 0 else f"the compacting turn's post-summary request still carried {count} block(s)",
                [f"post-summary request: {len(messages(after))} messages, {count} <seat-memory-layer> block(s)"]))

    reload_step = _step(log, "reload")
    results.append(_ran(reload_step, "reload") or _check_block(log, "reload", _kimi_main(reload_step), RELOAD))
    return results


# ---------------------------------------------------------------------------------------- opencode


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
        failed = _ran(step, step["name"] if step else "boot")
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


def analyse(log: dict[str, Any]) -> list[StepResult]:
    """The verdicts for one recorded run, by harness."""
    if log.get("harness") == "kimi-code":
        return analyse_kimi(log)
    if log.get("harness") == "opencode":
        return analyse_opencode(log)
    if log.get("harness") == "claude-code":
        from curator.canary.analysis_claude import analyse_claude  # it builds on the helpers above

        return analyse_claude(log)
    return [StepResult("analysis", FAIL, f"unknown harness in run log: {log.get('harness')!r}")]
