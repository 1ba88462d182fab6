"""Reading a recorded Claude Code run: did MEMORY.md (native auto memory) and identity.md (the
SessionStart hook) reach the model at boot and after ``/compact``, and — past the harness's cut —
does the cut the harness reports in its WARNING equal the load simulation's?

Claude Code speaks the Anthropic Messages API. In each main request (one that carries ``tools``)
the first user message holds a ``<system-reminder>`` with
``Contents of <dir>/MEMORY.md (user's auto-memory, persists across conversations):``, a blank line,
then what the harness kept of the index (and its ``> WARNING:`` line past the cut); the SessionStart
hook's stdout arrives as ``SessionStart:<source> hook success: <stdout>``, which for a seat is the
identity-anchor hook's ``<seat-memory-layer>`` block carrying identity.md.
"""

from __future__ import annotations

import os
from typing import Any

from curator import claude_loader
from curator.canary.requestlog import BOOT, RELOAD, blocks_in, compare_file, content_text, messages, nbytes, ran_step
from curator.canary.result import FAIL, INFO, PASS, StepResult

SUMMARY_PREFIX = "CRITICAL: Respond with TEXT ONLY"
CONTINUED_PREFIX = "This session is being continued from a previous conversation"
MEMORY_HEADER = "Contents of {path} (user's auto-memory, persists across conversations):\n\n"
REMINDER_END = "\n</system-reminder>"
HOOK_SCRIPT = "identity_anchor_hook.py"


def _texts(request: dict[str, Any]) -> list[str]:
    """Every text part of every message, in order (a string content counts as one part)."""
    parts = []
    for message in messages(request):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return parts


def is_summary(request: dict[str, Any]) -> bool:
    msgs = messages(request)
    return bool(msgs) and content_text(msgs[-1]).startswith(SUMMARY_PREFIX)


def main_requests(step: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in step.get("requests", []) if r.get("tools") and not is_summary(r)]


def _memory_paths(log: dict[str, Any]) -> list[str]:
    """Where the index may be named from: settings' autoMemoryDirectory, the seat's memory dir, real paths."""
    dirs = [(log.get("wiring") or {}).get("auto_memory_directory"), log.get("memory_dir"), log.get("memory_dir_real")]
    found = []
    for directory in dirs:
        if isinstance(directory, str) and directory:
            for path in (directory, os.path.realpath(directory)):
                candidate = path.rstrip("/") + "/MEMORY.md"
                if candidate not in found:
                    found.append(candidate)
    return found


def memory_block(log: dict[str, Any], request: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the index text the request carries, the path it was named by); (None, None) when absent."""
    for text in _texts(request):
        for path in _memory_paths(log):
            header = MEMORY_HEADER.format(path=path)
            at = text.find(header)
            if at < 0:
                continue
            body = text[at + len(header):]
            end = body.find(REMINDER_END)  # the block's own end: other reminders may follow it
            return (body[:end] if end >= 0 else body), path
    return None, None


def expected_load(log: dict[str, Any]) -> claude_loader.ClaudeLoad | None:
    on_disk = (log.get("boot_files") or {}).get("MEMORY.md")
    return None if on_disk is None else claude_loader.load(claude_loader.strip_hidden(on_disk))


def _check_memory(log: dict[str, Any], request: dict[str, Any]) -> tuple[bool, str]:
    on_disk = (log.get("boot_files") or {}).get("MEMORY.md")
    arrived, path = memory_block(log, request)
    if arrived is None:
        wired = (log.get("wiring") or {}).get("auto_memory_directory")
        hint = ("; settings.json has no autoMemoryDirectory" if log.get("wiring", {}).get("settings") and not wired
                else f"; settings.json autoMemoryDirectory is {wired}" if wired else "")
        return False, f"MEMORY.md: missing from the request (no 'Contents of …/MEMORY.md' block){hint}"
    load = expected_load(log)
    if load is None or on_disk is None:  # one is None when the other is
        return False, "MEMORY.md: not on disk in the memory dir, yet the request names one"
    expected = claude_loader.on_the_wire(load.content)
    if arrived == expected:
        if load.truncated:
            kept = claude_loader.on_the_wire(load.loaded)
            return True, (f"MEMORY.md: lines 1–{load.whole_lines} ({nbytes(kept)} bytes) arrived as on disk, "
                          "then the harness's WARNING (the rest is past its cut)")
        # The harness trims the text: a final newline is the usual difference, anything more is said.
        trimmed = "" if expected in (on_disk, on_disk.removesuffix("\n")) else \
            " (as the harness sends it: trimmed, line ends as LF)"
        return True, f"MEMORY.md: {nbytes(on_disk)} bytes arrived, identical to disk{trimmed}"
    same, line = compare_file("MEMORY.md", expected, arrived, 0, ("> WARNING:",))
    if same:  # everything expected arrived, and more after it
        return False, f"MEMORY.md: {nbytes(arrived) - nbytes(expected)} bytes more arrived than the harness loads from disk"
    return False, line


def _identity_hint(log: dict[str, Any]) -> list[str]:
    wiring = log.get("wiring") or {}
    if not wiring.get("settings"):
        return ["the seat has no settings.json — no SessionStart entry runs the identity-anchor hook"]
    commands = wiring.get("session_start") or []
    if not any(HOOK_SCRIPT in c.get("command", "") for c in commands):
        wired = ", ".join(c.get("command", "") for c in commands) or "none"
        return [f"settings.json has no hooks.SessionStart entry running {HOOK_SCRIPT} (SessionStart commands: "
                f"{wired}) — identity.md cannot load"]
    return []


def _check_identity(log: dict[str, Any], request: dict[str, Any], trigger: str) -> tuple[bool, list[str]]:
    blocks = blocks_in(request)
    on_disk = (log.get("boot_files") or {}).get("identity.md")
    sources = sorted({t.split(" hook success:", 1)[0] for text in _texts(request)
                      for t in text.split("SessionStart:")[1:] if " hook success:" in t[:40]})
    evidence = [f"SessionStart hook output in the request: {', '.join('SessionStart:' + s for s in sources) or 'none'}"]
    mine = [b for b in blocks if b.trigger == trigger]
    if not mine:
        found = ", ".join(f'trigger="{b.trigger}"' for b in blocks) or "none"
        return False, evidence + [f'identity.md: no trigger="{trigger}" <seat-memory-layer> block (found: {found})']
    block = mine[-1]
    marker = "<!-- identity.md -->\n"
    at = block.text.find(marker)
    if at < 0:
        return False, evidence + ["identity.md: missing from the hook's block"
                                  + (" (not on disk either)" if on_disk is None else f" ({nbytes(on_disk)} bytes on disk)")]
    same, line = compare_file("identity.md", on_disk, block.text, at + len(marker), ("</seat-memory-layer>",))
    if not block.closed:
        same = False
        line += "; the block has no closing </seat-memory-layer>: the hook output was cut"
    return same, evidence + [line]


def _check_request(log: dict[str, Any], name: str, request: dict[str, Any], trigger: str, what: str) -> StepResult:
    memory_ok, memory_line = _check_memory(log, request)
    identity_ok, identity_lines = _check_identity(log, request, trigger)
    evidence = [memory_line] + identity_lines
    if not identity_ok:
        evidence += _identity_hint(log)
    if memory_ok and identity_ok:
        return StepResult(name, PASS, f"MEMORY.md and identity.md reached the model {what}, as on disk", evidence)
    missing = [n for n, ok in (("MEMORY.md", memory_ok), ("identity.md", identity_ok)) if not ok]
    return StepResult(name, FAIL, f"{' and '.join(missing)} did not reach the model {what} as on disk", evidence)


def _main_request(log: dict[str, Any], name: str) -> dict[str, Any] | StepResult:
    """The step's first main request (one with tools, not a compaction summary), or the FAIL that
    says why there is none (the turn did not run, did not finish, or sent none)."""
    step = ran_step(log, name)
    if isinstance(step, StepResult):
        return step
    mains = main_requests(step)
    if not mains:
        return StepResult(name, FAIL, "no main request (one with tools) reached the stub this turn",
                          [f"{len(step.get('requests', []))} request(s), none with tools outside a compaction summary"])
    return mains[0]


def _check_cut(log: dict[str, Any], boot: dict[str, Any]) -> StepResult:
    """Past the cut, the harness's WARNING must be the load simulation's, word for word."""
    from curator.index_model import parse_index  # the simulation's own model of the file
    from curator.load_sim import simulate

    on_disk = (log.get("boot_files") or {}).get("MEMORY.md")
    load = expected_load(log)
    if on_disk is None or load is None:  # one is None when the other is
        return StepResult("index-cut", INFO, "no MEMORY.md on disk: nothing to cut")
    sim = simulate(parse_index(on_disk.encode("utf-8")), None, "claude-code")
    if sim.warning is None:
        return StepResult("index-cut", INFO, "the index is within Claude Code's caps: nothing is cut", [
            f"{load.line_count}/{claude_loader.LINE_CAP} lines, {load.char_count:,}/{claude_loader.CHAR_CAP:,} "
            "characters (as the harness counts them)"])
    arrived, _ = memory_block(log, boot)
    said = next((line for line in (arrived or "").split("\n") if line.startswith(claude_loader.WARNING_PREFIX)), None)
    evidence = [f"harness: {said or '(no WARNING line in the request)'}",
                f"load simulation: {sim.warning}",
                f"load simulation: file lines 1–{sim.cut_line} load; {len(sim.lost_entries)} entr"
                f"{'y' if len(sim.lost_entries) == 1 else 'ies'} never reach the model"]
    if said == sim.warning:
        first = load.whole_lines + 1
        return StepResult("index-cut", PASS, f"the harness cut at line {first}, where the load simulation says",
                          evidence)
    return StepResult("index-cut", FAIL, "the harness's WARNING differs from the load simulation's", evidence)


def analyse_claude(log: dict[str, Any]) -> list[StepResult]:
    results: list[StepResult] = []

    boot = _main_request(log, "boot")
    results.append(boot if isinstance(boot, StepResult) else _check_request(log, "boot", boot, BOOT, "at boot"))

    compact = ran_step(log, "compact")
    if isinstance(compact, StepResult):
        results.append(compact)
    else:
        summaries = [r for r in compact.get("requests", []) if is_summary(r)]
        evidence = [f"{len(compact.get('requests', []))} request(s) this turn, {len(summaries)} compaction summary "
                    f"request(s) (last user message starts {SUMMARY_PREFIX!r})"]
        if summaries:
            results.append(StepResult("compact", PASS, "`/compact` ran: a compaction summary request arrived", evidence))
        else:
            results.append(StepResult("compact", FAIL, "the harness did not compact (no summary request arrived)",
                                      evidence))

    after = _main_request(log, "after-compaction")
    if isinstance(after, StepResult):
        results.append(after)
    else:
        result = _check_request(log, "after-compaction", after, RELOAD, "after compaction")
        continued = any(CONTINUED_PREFIX in t for t in _texts(after))
        result.evidence.insert(0, "the request continues from the compaction summary" if continued
                               else "the request does not start from a compaction summary")
        if not continued and result.status == PASS:
            result.status, result.summary = FAIL, "the turn after /compact did not run on the compacted session"
        results.append(result)

    if not isinstance(boot, StepResult):
        results.append(_check_cut(log, boot))
    return results
