"""Boot-canary wall time: a full canary of a generator-born fleet (one kimi-code and one opencode
seat; boot, ordinary turn, forced compaction, reload) against the real CLIs.

Baseline, measured in the same run: the bare process start-up of the same harness invocations
(`--version` once per turn the canary runs: 4 kimi-code + 2 opencode, the two seats side by side as
the canary runs them). The ratio says how much of the canary is the harness's own turn work beyond
starting. Goal: a full canary under 30 s wall. The note says where the time goes, per turn.
Skipped (row says so) when the CLIs are not installed (`.ci/install-harnesses`).
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
MANIFEST = """\
instance_root = "instances"
default_model = "kimi-k2"
mcp_prefix = "neo-mjs-"

[mcp.neo-mjs-memory-core]
command = "node"
args = ["server.js", "--stdio"]

[[residents]]
agent_id = "@bench-kimi"
harness = "kimi-code"
repo = "repos/kimi"

[[residents]]
agent_id = "@bench-opencode"
harness = "opencode"
repo = "repos/opencode"
"""


def _startups(argv: tuple[str, ...], times: int) -> float:
    started = time.perf_counter()
    for _ in range(times):
        subprocess.run([*argv, "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60, check=False)
    return time.perf_counter() - started


def full_canary() -> dict:
    name = "canary: full fleet (kimi-code + opencode, boot + compaction)"
    try:
        kimi, opencode = find_cli("kimi-code"), find_cli("opencode")
    except CliNotFound as err:
        return {"name": name, "measured_s": 0.0, "baseline_s": 0.0, "ratio": 0.0, "goal": "<30s",
                "note": f"SKIPPED: {err}"}
    with ThreadPoolExecutor(max_workers=2) as pool:  # side by side, as the canary runs the two seats
        started = time.perf_counter()
        list(pool.map(lambda job: _startups(*job), [(kimi.argv, 4), (opencode.argv, 2)]))
        baseline = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="bench-canary-") as tmp:
        manifest = Path(tmp) / "fleet.toml"
        manifest.write_text(MANIFEST, encoding="utf-8")
        fleet = load_manifest(manifest)
        apply_fleet(fleet)
        started = time.perf_counter()
        result = run_canary(fleet, save=False)
        measured = time.perf_counter() - started
    turns = "; ".join(
        f"{r.harness} {r.status} {r.seconds:.1f}s (" + ", ".join(f"{k} {v:.1f}" for k, v in r.step_seconds.items()) + ")"
        for r in result.residents)
    verdict = "goal met" if measured < GOAL_S else "OVER GOAL"
    return {"name": name, "measured_s": measured, "baseline_s": baseline, "ratio": measured / baseline,
            "goal": "<30s", "note": f"{verdict}; {turns}"}


ROWS = [full_canary]

if __name__ == "__main__":
    row = full_canary()
    print(row, file=sys.stdout)
