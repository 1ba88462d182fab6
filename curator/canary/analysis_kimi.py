"""Reading a recorded Kimi Code run: the identity-anchor hook's block at boot, nothing on an ordinary
turn, PostCompact marking the session, and the block again on the turn after compaction."""

from __future__ import annotations

from typing import Any

from curator.canary.requestlog import (BOOT, RELOAD, blocks_in, compare_file, content_text, messages, nbytes, ran_step,
                                       turn_start)
from curator.canary.result import FAIL, INFO, PASS, StepResult

KIMI_SUMMARY_PREFIX = "You are about to run out of context"


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

    boot = ran_step(log, "boot")
    results.append(boot if isinstance(boot, StepResult) else _check_block(log, "boot", _kimi_main(boot), BOOT))

    silent = ran_step(log, "silent")
    if isinstance(silent, StepResult):
        results.append(silent)
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

    compact = ran_step(log, "compact")
    if isinstance(compact, StepResult):
        results.append(compact)
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

    reload_step = ran_step(log, "reload")
    results.append(reload_step if isinstance(reload_step, StepResult)
                   else _check_block(log, "reload", _kimi_main(reload_step), RELOAD))
    return results
