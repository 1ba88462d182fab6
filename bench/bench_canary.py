"""Boot-canary wall time: a full canary of a generator-born fleet of three seats — kimi-code (boot,
ordinary turn, forced compaction, reload), opencode (one turn that compacts) and claude-code (boot,
`/compact`, the turn after) — against the real CLIs, as `seat-curator canary` runs it (two seats at
a time); then the five harnesses, with codex (boot turn; `exec resume`, which compacts between turns
and again mid-turn) and gemini-cli (boot turn; a resumed turn Gemini compresses automatically).

Baseline, measured in the same run: the bare process start-up of the same harness invocations
(`--version` once per turn the canary runs: 4 kimi-code, 2 opencode, 3 claude-code, 2 codex,
2 gemini-cli, side by side as the canary runs the seats). The ratio says how much of the canary is the harness's own turn work
beyond starting. Goal: a full canary under 30 s wall (60 s with all five harnesses). A second row is the same fleet without the
claude-code seat, so the difference between the two rows is what Claude Code adds; the note says
where the time goes, per seat and turn. Rows skip (and say so) when a CLI is not installed
(`seat-curator install-harnesses`).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from curator.canary import CliNotFound, find_cli, run_canary
from generators.composer import apply_fleet
from generators.manifest import load_manifest

GOAL_S = 30.0
TURNS = {"kimi-code": 4, "opencode": 2, "claude-code": 3, "codex": 2, "gemini-cli": 2}
FIVE_GOAL_S = 60.0  # all five harnesses
BASE = """\
instance_root = "instances"
default_model = "kimi-k2"
mcp_prefix = "neo-mjs-"

[mcp.neo-mjs-memory-core]
command = "node"
args = ["server.js", "--stdio"]
"""
RESIDENTS = {
    "kimi-code": '\n[[residents]]\nagent_id = "@bench-kimi"\nharness = "kimi-code"\nrepo = "repos/kimi"\n',
    "opencode": '\n[[residents]]\nagent_id = "@bench-opencode"\nharness = "opencode"\nrepo = "repos/opencode"\n',
    "claude-code": '\n[[residents]]\nagent_id = "@bench-claude"\nharness = "claude-code"\nrepo = "repos/claude"\n',
    "codex": '\n[[residents]]\nagent_id = "@bench-codex"\nharness = "codex"\nrepo = "repos/codex"\n',
    "gemini-cli": '\n[[residents]]\nagent_id = "@bench-gemini"\nharness = "gemini-cli"\nrepo = "repos/gemini"\n',
}


def _startups(argv: tuple[str, ...], times: int) -> float:
    started = time.perf_counter()
    for _ in range(times):
        subprocess.run([*argv, "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60, check=False)
    return time.perf_counter() - started


def _canary_row(name: str, harnesses: tuple[str, ...], goal: float = GOAL_S) -> dict:
    try:
        clis = {h: find_cli(h) for h in harnesses}
    except CliNotFound as err:
        return {"name": name, "measured_s": 0.0, "baseline_s": 0.0, "ratio": 0.0, "goal": f"<{goal:.0f}s",
                "note": f"SKIPPED: {err}"}
    with ThreadPoolExecutor(max_workers=2) as pool:  # two at a time, as the canary runs the seats
        started = time.perf_counter()
        list(pool.map(lambda h: _startups(clis[h].argv, TURNS[h]), harnesses))
        baseline = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="bench-canary-") as tmp:
        manifest = Path(tmp) / "fleet.toml"
        manifest.write_text(BASE + "".join(RESIDENTS[h] for h in harnesses), encoding="utf-8")
        fleet = load_manifest(manifest)
        apply_fleet(fleet)
        for resident in fleet.residents:  # codex and gemini-cli seats write nothing into their repo
            resident.repo.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        result = run_canary(fleet, save=False)
        measured = time.perf_counter() - started
    seats = "; ".join(
        f"{r.harness} {r.status} {r.seconds:.1f}s (" + ", ".join(f"{k} {v:.1f}" for k, v in r.step_seconds.items()) + ")"
        for r in result.residents)
    verdict = "goal met" if measured < goal else "OVER GOAL"
    return {"name": name, "measured_s": measured, "baseline_s": baseline, "ratio": measured / baseline,
            "goal": f"<{goal:.0f}s", "note": f"{verdict}; {seats}"}


def full_canary() -> dict:
    return _canary_row("canary: full fleet (kimi-code + opencode + claude-code)", ("kimi-code", "opencode", "claude-code"))


def canary_without_claude() -> dict:
    return _canary_row("canary: the same fleet without claude-code", ("kimi-code", "opencode"))


def claude_alone() -> dict:
    return _canary_row("canary: the claude-code seat alone", ("claude-code",))


def five_harnesses() -> dict:
    return _canary_row("canary: one seat of each of the five harnesses", tuple(TURNS), FIVE_GOAL_S)


def codex_and_gemini() -> dict:
    return _canary_row("canary: the codex and gemini-cli seats alone (what they add)", ("codex", "gemini-cli"))


ROWS = [full_canary, canary_without_claude, claude_alone, five_harnesses, codex_and_gemini]

if __name__ == "__main__":
    for row in ROWS:
        print(row(), file=sys.stdout)
