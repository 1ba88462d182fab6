"""Which of the project's caches (curator/caches.py) pay for the user-visible path they serve.

Every cache is timed on its path three ways, interleaved round by round so machine load hits all
three alike: ``warm`` (the cache as the running app has it), ``emptied`` (the cache emptied just
before the call: a first plan, a first analysis) and ``absent`` (the cache replaced, wherever a module
holds it, by the function it wraps, as an identity decorator would leave it: no hit even within the
call). The ratios absent/warm and absent/emptied are what the cache saves on a repeat and on a first
call; ``noise`` is the same path timed twice, warm both times. Times are the thread's CPU
seconds, best of interleaved rounds, each variant first in turn. Findings and the rule: bench/caches.md.

    python -m bench.bench_caches [rounds] [name-substring]   # the table, one row per cache and path
    python -m bench.bench_caches together|first PATH NAME...  # a set of caches as one row
    python -m bench bench_caches                              # the fleet plan, every cache emptied vs warm
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

from bench.bench_generators import _CATALOG, PLAN_RESIDENTS, _settle
from bench.bench_levers import SMALL, build_index
from bench.bench_mcp import _index as mcp_index
from curator import caches

ROUNDS = 11
Run = Callable[[], object]


@contextlib.contextmanager
def absent(*names: str) -> Iterator[None]:
    """The named caches replaced by the functions they wrap in every loaded module's namespace (each
    module looks a function up there at call time), put back on exit."""
    kept = caches.registered()
    plain = {id(kept[name]): kept[name].__wrapped__ for name in names}
    undo = []
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            if id(value) in plain:  # the wrappers are alive (registered), so an equal id is the same object
                namespace[key] = plain[id(value)]
                undo.append((namespace, key, value))
    try:
        yield
    finally:
        for namespace, key, value in undo:
            namespace[key] = value


# -- the paths: each returns the call the user waits for, over a seat or fleet kept by ``stack`` --

def fleet_plan(stack: contextlib.ExitStack) -> Run:
    """The fleet panel's plan of a 1000-resident fleet (all MATCH), as bench_generators.bench_plan_fleet
    but with the five harnesses in turn, so every emitter's caches are on the path."""
    from generators import composer
    from generators.manifest import HARNESSES, parse_manifest
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
    text = _CATALOG + "".join(
        f'\n[[residents]]\nagent_id = "@seat-{i}"\nharness = "{HARNESSES[i % len(HARNESSES)]}"\nrepo = "repos/r{i}"\n'
        for i in range(PLAN_RESIDENTS))
    (tmp / "fleet.toml").write_text(text, encoding="utf-8")
    fleet = parse_manifest(text, tmp / "fleet.toml")
    _settle(fleet)
    return lambda: composer.plan_fleet(fleet)


def _corpus_seat(stack: contextlib.ExitStack, name: str = "MEMORY.md") -> tuple[Path, bytes]:
    index = build_index(SMALL)
    if index is None:
        raise SystemExit("bench_caches needs the corpus (bench/bench_levers.py: CORPUS)")
    memory = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "memory"
    memory.mkdir()
    (memory / name).write_bytes(index.raw)
    return memory, index.raw


def index_edit(stack: contextlib.ExitStack) -> Run:
    """The index screen after one typed character: analysis, merge candidates and trim suggestions of
    a 250-entry index of real entries (the screen's ``analyse``), a new edit each call."""
    from curator.analysis import analyze
    from curator.levers.merge import find_candidates
    from curator.levers.trim import suggestions
    memory, raw = _corpus_seat(stack)
    counter = itertools.count()

    def run() -> object:
        n = next(counter)
        at = 200 + n * 7919 % (len(raw) - 400)
        result = analyze(memory, index_bytes=raw[:at] + b"z" + raw[at:])
        return find_candidates(result.index), suggestions(memory, result.index)
    return run


def fit_plan(stack: contextlib.ExitStack) -> Run:
    """The fit preview's plan of the same 250-entry index (re-planned with the same index: a new target)."""
    from curator.index_model import parse_index
    from curator.levers.fit import plan_fit
    memory, raw = _corpus_seat(stack)
    index = parse_index(raw)
    return lambda: plan_fit(memory, index, today=date(2026, 12, 1))


def candidates(stack: contextlib.ExitStack) -> Run:
    """Merge candidates of the same 250-entry index again (bench_levers' candidates_250, the MCP candidates tool)."""
    from curator.levers.merge import find_candidates
    index = build_index(SMALL)
    return lambda: find_candidates(index, limit=50)


def near_duplicates(stack: contextlib.ExitStack) -> Run:
    """Merge candidates of bench_candidates' adversarial 2,000 near-duplicates (words asked again and again)."""
    from bench.bench_candidates import near_duplicates as make
    from curator.index_model import parse_index
    from curator.levers.merge import find_candidates
    index = parse_index(make())
    return lambda: find_candidates(index)


def mcp_str_replace(stack: contextlib.ExitStack) -> Run:
    """The MCP memory tool's str_replace in process on bench_mcp's 18 KB MEMORY.md, a new text each
    call, the seat on tmpfs when there is one (the fsyncs are the disk's noise, not the caches')."""
    from curator.mcp import memory_tool
    from curator.mcp.seat import Seat
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=shm)))
    memory = tmp / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(mcp_index())
    seat = Seat(memory, state_dir=tmp / "state")
    counter = itertools.count()

    def run() -> object:
        n = next(counter)
        old = "lesson 100:" if n == 0 else f"lesson 100 r{n - 1:05d}:"
        return memory_tool.str_replace(seat, "/memories/MEMORY.md", old, f"lesson 100 r{n:05d}:")
    return run


def archive_search(stack: contextlib.ExitStack) -> Run:
    """The archive panel's search as the bearer types, one keystroke per call, over a 250-entry ARCHIVE.md."""
    from curator.levers.archive_search import search_archive
    memory, _raw = _corpus_seat(stack, "ARCHIVE.md")
    queries = itertools.cycle(["f", "fi", "fix", "fixt", "fixtu", "fixtur", "fixture", "fixture t", "fixture ti"])
    return lambda: search_archive(memory, next(queries))


PATHS: dict[str, Callable[[contextlib.ExitStack], Run]] = {
    "fleet plan": fleet_plan, "index edit": index_edit, "fit plan": fit_plan, "candidates": candidates, "near-duplicates": near_duplicates,
    "mcp str_replace": mcp_str_replace,
    "archive search": archive_search,
}
_LEVERS = ["index edit", "fit plan", "candidates", "near-duplicates"]
# The paths each cache serves (where its module is called from); a generators cache serves the fleet plan.
SERVES: dict[str, list[str]] = {
    "curator.analysis.parse_cached": ["index edit", "mcp str_replace"],
    "curator.markdown.parser": ["index edit", "mcp str_replace"],
    "curator.pointers.documents._from_content": ["fit plan", "mcp str_replace"],
    "curator.levers.archive_search._parse_archive": ["archive search"],
    "curator.levers.fit._flat": ["fit plan"],
}


def served(name: str) -> list[str]:
    if name.startswith("generators."):
        return ["fleet plan"]
    return SERVES.get(name, _LEVERS)


def _timed(run: Run) -> float:
    """CPU seconds of one call (the thread's: a busy machine changes it least), from a collected heap
    so one variant does not pay for the garbage of the one before."""
    gc.collect()
    start = time.thread_time()
    run()
    return time.thread_time() - start


def compare(run: Run, names: tuple[str, ...], rounds: int = ROUNDS, first: bool = False) -> dict[str, float]:
    """Best CPU seconds of ``run`` warm, with the named caches emptied first, and with them absent,
    over ``rounds`` interleaved rounds (each variant first in turn); emptying and swapping are not timed.
    ``first``: every other cache emptied before each call too (the first plan, the first analysis)."""
    kept = caches.registered()
    times: dict[str, list[float]] = {"warm": [], "emptied": [], "absent": []}
    run()
    for n in range(rounds):
        for key in itertools.islice(itertools.cycle(list(times)), n % 3, n % 3 + 3):
            if first:
                caches.clear_all()
            if key == "emptied":
                for name in names:
                    kept[name].cache_clear()
            with absent(*names) if key == "absent" else contextlib.nullcontext():
                times[key].append(_timed(run))
    return {key: min(value) for key, value in times.items()}


def noise(run: Run, rounds: int = ROUNDS) -> float:
    """The ratio between two identical warm timings of ``run``, interleaved: what a ratio can be by chance."""
    run()
    first, second = [], []
    for _ in range(rounds):
        first.append(_timed(run))
        second.append(_timed(run))
    return min(second) / min(first)


def table(rounds: int = ROUNDS, only: str = "") -> Iterator[tuple[str, str, dict[str, float]]]:
    """(cache, path, medians) for every kept cache whose name contains ``only``, path by path;
    (``noise``, path, {"ratio": …}) first for each path."""
    for path, make in PATHS.items():
        names = [name for name in sorted(caches.KEPT) if only in name and path in served(name)]
        if not names:
            continue
        with contextlib.ExitStack() as stack:
            run = make(stack)
            run()  # every module on the path imported, every cache registered
            yield "noise", path, {"ratio": noise(run, rounds)}
            for name in names:
                yield name, path, compare(run, (name,), rounds)


def report(rounds: int = ROUNDS, only: str = "") -> None:
    print(f"{'cache':<48} {'path':<16} {'warm':>8} {'emptied':>8} {'absent':>8}  abs/warm abs/empt")
    for name, path, m in table(rounds, only):
        if name == "noise":
            print(f"{'(noise: two identical warm runs)':<48} {path:<16} {'':>8} {'':>8} {'':>8}  {m['ratio']:7.3f}", flush=True)
            continue
        print(f"{name:<48} {path:<16} {m['warm'] * 1e3:7.1f}ms {m['emptied'] * 1e3:7.1f}ms {m['absent'] * 1e3:7.1f}ms  "
              f"{m['absent'] / m['warm']:7.3f} {m['absent'] / m['emptied']:7.3f}", flush=True)


def together(path: str, names: list[str], rounds: int = ROUNDS, first: bool = False) -> dict[str, float]:
    """The named caches emptied together and absent together on one path (caches cover for each other:
    an outer cache kept warm hides an inner one's value, so the removed set is timed as a whole). Names
of caches the path never loads are left out."""
    with contextlib.ExitStack() as stack:
        run = PATHS[path](stack)
        run()
        return compare(run, tuple(name for name in names if name in caches.registered()), rounds, first)


def bench_plan_fleet_cold_vs_warm() -> dict:
    """The fleet panel's first plan (every cache empty) against a re-plan (every cache warm)."""
    with contextlib.ExitStack() as stack:
        run = fleet_plan(stack)
        run()
        cold, warm = [], []
        for _ in range(5):
            caches.clear_all()
            cold.append(_timed(run))
            warm.append(_timed(run))
    measured, baseline = min(cold), min(warm)
    return {"name": f"plan {PLAN_RESIDENTS} residents, caches emptied vs warm",
            "measured_s": measured, "baseline_s": baseline, "ratio": measured / baseline, "goal": "report",
            "note": f"best of 5; all {len(caches.registered())} kept caches emptied before each cold plan"}


ROWS = [bench_plan_fleet_cold_vs_warm]


def main(argv: list[str]) -> None:
    """``[rounds] [substring]``: the table; ``together PATH NAME...``: those caches as one row;
    ``first PATH NAME...``: the same with every other cache emptied before each call."""
    if argv[:1] in (["together"], ["first"]):
        m = together(argv[1], argv[2:], first=argv[0] == "first")
        print(f"{len(argv) - 2} caches {argv[0]} on {argv[1]}: warm {m['warm'] * 1e3:.1f} ms, emptied "
              f"{m['emptied'] * 1e3:.1f} ms, absent {m['absent'] * 1e3:.1f} ms; absent/warm "
              f"{m['absent'] / m['warm']:.3f}, absent/emptied {m['absent'] / m['emptied']:.3f}")
        return
    report(int(argv[0]) if argv else ROUNDS, argv[1] if len(argv) > 1 else "")


if __name__ == "__main__":
    main(sys.argv[1:])
