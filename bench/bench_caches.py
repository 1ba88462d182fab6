"""Which of the core's caches a fleet re-plan still needs now that the fleet panel re-plans only
when a file changes (curator/fleet_watch.py), not every 3 s. The panel's user-visible paths are the
first plan when it opens (every cache empty) and a re-plan after a change (caches warm). Both are
timed side by side over the same fleet; the ratio is what the caches that live across plans save.
Findings and the decision per cache: bench/caches.md."""

from __future__ import annotations

import functools
import gc
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_generators import PLAN_RESIDENTS, _fleet, _settle
from generators import composer

ROUNDS = 5


def _caches() -> list[functools._lru_cache_wrapper]:  # type: ignore[type-arg]
    """Every functools cache of a loaded curator or generators module (functions and methods)."""
    found = []
    for name, module in list(sys.modules.items()):
        if not name.startswith(("curator.", "generators.")):
            continue
        for value in vars(module).values():
            for item in [value, *vars(value).values()] if isinstance(value, type) else [value]:
                if hasattr(item, "cache_clear") and hasattr(item, "cache_info"):
                    found.append(item)
    return list({id(c): c for c in found}.values())


def bench_plan_fleet_cold_vs_warm() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        fleet = _fleet(Path(tmp), PLAN_RESIDENTS)
        _settle(fleet)
        composer.plan_fleet(fleet)  # every module imported, every cache known
        caches = _caches()
        cold, warm = [], []
        for _ in range(ROUNDS):
            for cache in caches:
                cache.cache_clear()
            gc.collect()
            start = time.perf_counter()
            composer.plan_fleet(fleet)
            cold.append(time.perf_counter() - start)
            gc.collect()
            start = time.perf_counter()
            composer.plan_fleet(fleet)
            warm.append(time.perf_counter() - start)
    measured, baseline = min(cold), min(warm)
    return {"name": f"plan {PLAN_RESIDENTS} residents, caches emptied vs warm",
            "measured_s": measured, "baseline_s": baseline, "ratio": measured / baseline, "goal": "report",
            "note": f"best of {ROUNDS}; {len(caches)} caches emptied before each cold plan"}


ROWS = [bench_plan_fleet_cold_vs_warm]


def per_cache(rounds: int = 3) -> list[tuple[str, float, float]]:
    """(cache, warm plan s, plan s with only that cache emptied first), best of ``rounds`` each:
    ``python -c 'from bench.bench_caches import report; report()'``."""
    with tempfile.TemporaryDirectory() as tmp:
        fleet = _fleet(Path(tmp), PLAN_RESIDENTS)
        _settle(fleet)
        composer.plan_fleet(fleet)
        rows = []
        for cache in _caches():
            warm, emptied = [], []
            for _ in range(rounds):
                start = time.perf_counter()
                composer.plan_fleet(fleet)
                warm.append(time.perf_counter() - start)
                cache.cache_clear()
                start = time.perf_counter()
                composer.plan_fleet(fleet)
                emptied.append(time.perf_counter() - start)
            rows.append((f"{cache.__module__}.{cache.__qualname__}", min(warm), min(emptied)))
    return rows


def report() -> None:
    for name, warm, emptied in sorted(per_cache(), key=lambda row: row[1] - row[2]):
        print(f"{name:<60} warm {warm * 1000:7.1f} ms  emptied {emptied * 1000:7.1f} ms  "
              f"{(emptied / warm - 1) * 100:+6.1f} %")
