"""The fit table: `fit` on every over-target index of the shared corpus, each in a temporary copy.

Per index: bytes before/after, steps by kind, target reached, pointer problems before -> after, every
moved clause found in a live memory file, and undo giving back every byte. Run:
`.venv/bin/python -m bench.fit_corpus_table [-v]` (-v lists the steps). The same checks are
``tests/levers/test_fit.py::test_fit_on_the_corpus_over_target_indexes``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from datetime import date
from pathlib import Path

from curator.index_model import parse_index
from curator.levers.fit import plan_fit, unkept_clauses
from curator.store import SeatStore

CORPUS = Path("/work/shared/corpus")
OVER_TARGET = [
    "jasonwilk__baseball-crawl/.claude/agent-memory/product-manager/MEMORY.md",
    "AdielMag__ClashUp/.claude/memory/MEMORY.md",
    "0xsyncroot__moonx-farm/memory-bank/activeContext.md",
    "0xsyncroot__moonx-farm/memory-bank/progress.md",
]


def files_of(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def row(relative: str, verbose: bool) -> str:
    source = CORPUS / relative
    with tempfile.TemporaryDirectory() as tmp:
        memory = Path(tmp) / "memory"
        shutil.copytree(source.parent, memory)
        for path in memory.rglob("*"):
            path.chmod(0o700 if path.is_dir() else 0o600)
        (memory / "MEMORY.md").write_bytes(source.read_bytes())
        before = files_of(memory)
        store = SeatStore.open(memory, state_dir=Path(tmp) / "state")
        raw = store.read("MEMORY.md")
        plan = plan_fit(memory, parse_index(raw), today=date(2026, 12, 1))
        kept = undone = "n/a"
        if plan.change is not None:
            store.apply(plan.change)
            after = {n: (memory / n).read_bytes() if (memory / n).exists() else None
                     for n in set(before) | set(plan.change.files)}
            missing = unkept_clauses(raw, after)
            kept = "yes" if not missing else f"NO ({len(missing)})"
            store.undo()
            undone = "yes" if files_of(memory) == before else "NO"
    counts = plan.counts
    name = relative.split("__", 1)[1]
    line = (f"| {name} | {plan.before:,} | {plan.after:,} | {counts['trim']} | {counts['merge']} | {counts['archive']} "
            f"| {'yes' if plan.reached else 'no'} | {plan.problems_before} → {plan.problems_after} | {kept} | {undone} |")
    if verbose:
        line += "".join(f"\n    {s.number} {s.kind} saves {s.bytes_saved:,} B, lines {s.lines}: {s.reason}"
                        for s in plan.steps)
        line += f"\n    left: {plan.left}" if plan.left else ""
    return line


def main(argv: list[str]) -> int:
    print("| index | bytes before | bytes after | trim | merge | archive | target reached "
          "| pointer problems before → after | moved text kept | undo identical |")
    print("|---|---:|---:|---:|---:|---:|---|---|---|---|")
    for relative in OVER_TARGET:
        print(row(relative, "-v" in argv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
