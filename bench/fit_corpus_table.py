"""The fit table: `fit` on every over-target index we have, each in a temporary copy.

Indexes: the shared corpus (its index files over the target), ``bench/heldout/`` and
``bench/heldout_fit/`` (real memory directories fetched for this table; each has a manifest naming
repository, commit and path). Per index: bytes before/after, steps by kind, whether the identity
lines, the weak spots and the header fit under the target at all, target reached, pointer problems
before -> after (never more), every moved clause found verbatim in a live file that MEMORY.md
reaches, the questions left to the bearer (entries that look finished, splits: fit never archives or
splits on its own), standing-rule entries folded out of the index (must be 0), new lines that start
with a piece of a sentence (must be 0), and undo giving back every byte. Run: ``.venv/bin/python -m bench.fit_corpus_table [-v]`` (-v lists the steps and
the questions left to the bearer). The same checks on the corpus are
``tests/levers/test_fit.py::test_fit_on_the_corpus_over_target_indexes``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from datetime import date
from pathlib import Path

from curator.index_model import parse_index
from curator.levers.fit import plan_fit
from curator.levers.fit_checks import broken_lines, unkept_clauses
from curator.levers.standing import standing_rule
from curator.meter import Limits
from curator.pointers import check_pointers
from curator.store import SeatStore

CORPUS = Path("/work/shared/corpus")
HELDOUT = [Path(__file__).parent / "heldout", Path(__file__).parent / "heldout_fit"]
INDEX_NAMES = {"MEMORY.md", "memory-index.md", "activeContext.md", "progress.md", "CLAUDE.md"}
TARGET = Limits.target


def over_target() -> list[tuple[str, Path]]:
    """(label, index file) for every index over the target: the corpus's, then the held-out ones."""
    found = []
    if CORPUS.is_dir():
        found += [(str(p.relative_to(CORPUS)).split("__", 1)[-1], p) for p in sorted(CORPUS.rglob("*.md"))
                  if p.name in INDEX_NAMES and p.stat().st_size > TARGET]
    for root in HELDOUT:
        if root.is_dir():
            found += [(f"{root.name}/{p.relative_to(root)}", p) for p in sorted(root.rglob("MEMORY.md"))
                      if p.stat().st_size > TARGET]
    return found


def files_of(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def measure(source: Path) -> dict:
    """Fit on a copy of ``source``'s directory (``source`` as its MEMORY.md), applied and undone."""
    with tempfile.TemporaryDirectory() as tmp:
        memory = Path(tmp) / "memory"
        shutil.copytree(source.parent, memory)
        for path in memory.rglob("*"):
            path.chmod(0o700 if path.is_dir() else 0o600)
        (memory / "MEMORY.md").write_bytes(source.read_bytes())
        before = files_of(memory)
        store = SeatStore.open(memory, state_dir=Path(tmp) / "state")
        raw = store.read("MEMORY.md")
        index = parse_index(raw)
        plan = plan_fit(memory, index, target=TARGET, today=date(2026, 12, 1))
        result = {"plan": plan, "kept": "n/a", "reachable": "n/a", "undone": "n/a", "rules": 0, "broken": 0}
        folded = {i for s in plan.steps if s.kind == "fold" and s.selected for i in s.entry_ids}
        result["rules"] = sum(1 for e in index.entries if e.id in folded and standing_rule(e.text, e.section))
        if plan.change is not None:
            result["broken"] = len(broken_lines(raw, plan.change.files["MEMORY.md"] or b""))
        if plan.change is not None:
            orphans_before = set(check_pointers(memory).orphans)
            store.apply(plan.change)
            after = {n: (memory / n).read_bytes() if (memory / n).exists() else None
                     for n in set(before) | set(plan.change.files)}
            missing = unkept_clauses(raw, after)
            result["kept"] = "yes" if not missing else f"NO ({len(missing)})"
            cut_off = (set(check_pointers(memory).orphans) - orphans_before) & set(plan.change.files)
            result["reachable"] = "yes" if not cut_off else f"NO ({', '.join(sorted(cut_off))})"
            store.undo()
            result["undone"] = "yes" if files_of(memory) == before else "NO"
        return result


def row(label: str, source: Path, verbose: bool) -> tuple[str, dict]:
    result = measure(source)
    plan = result["plan"]
    counts = plan.counts
    fits = plan.protected_bytes <= plan.target
    asked = {kind: sum(len(q.entry_ids) for q in plan.questions if q.kind == kind) for kind in ("archive", "split")}
    line = (f"| {label} | {plan.before:,} | {plan.after:,} | {counts['trim']} | {counts['merge']} | "
            f"{counts['fold']} | {asked['archive']} | {asked['split']} | {'yes' if fits else 'no'} "
            f"| {'yes' if plan.reached else 'no'} | {plan.problems_before} → {plan.problems_after} | {result['kept']} "
            f"| {result['reachable']} | {result['rules']} | {result['broken']} | {result['undone']} |")
    if verbose:
        line += "".join(f"\n    {s.number} {s.kind} saves {s.bytes_saved:,} B: {s.reason}" for s in plan.steps)
        line += "".join(f"\n    question: {q.question}" for q in plan.questions)
        line += f"\n    left: {plan.left}" if plan.left else ""
    return line, {"fits": fits, "reached": plan.reached, "more_problems": plan.problems_after > plan.problems_before,
                  "ok": result["kept"] in ("yes", "n/a") and result["reachable"] in ("yes", "n/a")
                  and result["undone"] in ("yes", "n/a") and not result["rules"] and not result["broken"]}


def main(argv: list[str]) -> int:
    print("| index | bytes before | bytes after | trim | merge | fold | asked: archive? | asked: split? "
          "| protected lines fit | target reached | pointer problems before → after | moved text kept | reachable "
          "| standing rules folded | broken lines | undo identical |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|---|---:|---:|---|")
    outcomes = []
    for label, source in over_target():
        line, outcome = row(label, source, "-v" in argv)
        print(line)
        outcomes.append(outcome)
    fitting = [o for o in outcomes if o["fits"]]
    print(f"\ntarget reached on {sum(o['reached'] for o in fitting)} of {len(fitting)} indexes whose identity lines, "
          f"weak spots and header fit under it ({len(outcomes)} over-target indexes in all); "
          f"more pointer problems after: {sum(o['more_problems'] for o in outcomes)}; "
          f"every check held on {sum(o['ok'] for o in outcomes)} of {len(outcomes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
