"""Run every ``bench/bench_*.py`` row and print one line each: measured, baseline, ratio, goal, note.

``python -m bench [substring]`` runs only the rows whose module or name contains the substring.
Each module exposes ``ROWS``: callables returning ``{"name", "measured_s", "baseline_s", "ratio",
"goal", "note"}``. Times are ratios against a baseline measured in the same run, never absolute goals.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path


def modules() -> list[str]:
    here = Path(__file__).resolve().parent
    return [f"bench.{path.stem}" for path in sorted(here.glob("bench_*.py"))]


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    failed = 0
    print(f"{'benchmark':<58} {'measured':>10} {'baseline':>10} {'ratio':>7}  goal      note")
    for name in modules():
        module = importlib.import_module(name)
        for row_func in getattr(module, "ROWS", []):
            label = f"{name}.{row_func.__name__}"
            if wanted and wanted not in label:
                continue
            try:
                row = row_func()
            except Exception:  # one broken row must not hide the others
                failed += 1
                print(f"{label:<58} FAILED")
                traceback.print_exc()
                continue
            print(f"{row['name']:<58} {row['measured_s'] * 1000:>8.2f}ms {row['baseline_s'] * 1000:>8.2f}ms "
                  f"{row['ratio']:>6.2f}x  {row['goal']:<9} {row['note']}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
