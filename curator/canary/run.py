"""The canary end to end: resolve the CLIs, run each seat's harness, analyse, keep the last result."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from collections.abc import Callable

from curator.canary.analysis import analyse
from curator.canary.clis import HarnessCli, find_cli
from curator.canary.last_result import save_results
from curator.canary.record import trim_log
from curator.canary.result import CanaryResult, ResidentResult
from curator.canary.runner import TURN_TIMEOUT_S, run_seat
from curator.canary.seat import HARNESSES, Seat, seats_from_fleet
from curator.errors import CuratorError
from curator.fsio import atomic_write


def resolve_clis(seats: list[Seat], flags: dict[str, str | None], manifest: dict[str, str] | None) -> dict[str, HarnessCli]:
    """Every CLI the seats need, before anything runs: a missing one stops the whole canary."""
    clis = {}
    for harness in HARNESSES:
        if any(seat.harness == harness for seat in seats):
            clis[harness] = find_cli(harness, flag=flags.get(harness), manifest=manifest)
    return clis


def canary_seat(seat: Seat, cli: HarnessCli, *, timeout: float = TURN_TIMEOUT_S,
                progress: Callable[[str], None] | None = None,
                record_dir: Path | None = None) -> ResidentResult:
    """Run and judge one seat. A harness that cannot be run at all is an ``error``, not a FAIL."""
    started = time.monotonic()
    result = ResidentResult(seat.resident, seat.harness, cli=f"{' '.join(cli.argv)} ({cli.source})")
    try:
        log = run_seat(seat, cli, timeout=timeout, progress=progress)
    except CuratorError as err:
        result.error = str(err)
    except OSError as err:
        result.error = f"cannot run {seat.harness}: {err.strerror or err}"
    else:
        result.steps = analyse(log)
        result.step_seconds = {step["name"]: step["seconds"] for step in log["steps"]}
        if record_dir is not None:
            record_dir.mkdir(parents=True, exist_ok=True)
            name = f"{seat.harness}-{''.join(c if c.isalnum() else '-' for c in seat.resident).strip('-')}.json"
            atomic_write(record_dir / name, json.dumps(trim_log(log), indent=1, ensure_ascii=False).encode("utf-8"))
    result.seconds = round(time.monotonic() - started, 3)
    result.finished_at = time.time()
    return result


def run_canary(fleet: Any, resident: str | None = None, *,
               progress: Callable[[str], None] | None = None,
               kimi_cli: str | None = None, opencode_cli: str | None = None, claude_cli: str | None = None,
               timeout: float = TURN_TIMEOUT_S, save: bool = True, state_root: Path | None = None,
               record_dir: Path | None = None, parallel: int = 2) -> CanaryResult:
    """Canary every resident of ``fleet`` (a ``generators.manifest.Fleet`` or a path to fleet.toml),
    or only ``resident``. Raises ``CliNotFound`` (nothing run) when a needed CLI is missing; saves
    each resident's result as its last result unless ``save`` is false. Up to ``parallel`` seats run
    at once (each has its own stub, port and sandbox); ``progress`` may be called from those threads."""
    if not hasattr(fleet, "residents"):
        from generators.manifest import load_manifest
        fleet = load_manifest(fleet)
    seats = seats_from_fleet(fleet, resident)
    clis = resolve_clis(seats, {"kimi-code": kimi_cli, "opencode": opencode_cli, "claude-code": claude_cli},
                        getattr(fleet, "harness_cli", None))

    def one(seat: Seat) -> ResidentResult:
        if progress:
            progress(f"{seat.resident}: starting {seat.harness} canary")
        res = canary_seat(seat, clis[seat.harness], timeout=timeout, progress=progress, record_dir=record_dir)
        if progress:
            progress(f"{seat.resident}: {res.status} in {res.seconds:.1f}s")
        return res

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        results = list(pool.map(one, seats))  # manifest order, whatever order they finish in
    if save:
        save_results(fleet.path, results, state_root)
    return CanaryResult(str(fleet.path), results)
