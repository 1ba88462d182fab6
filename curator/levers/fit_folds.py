"""Which folds fit makes: each facet as fit may fold it (its standing rules stay where they stand),
and the order to try them in, so the index ends under the target and no further."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from curator.change import Change
from curator.index_model import Entry, HotIndex
from curator.levers import fold
from curator.levers.standing import standing_rule


@dataclass(frozen=True)
class FoldOption:
    """A facet fit may fold: without the entries that state a standing rule (they stay where they stand)."""

    facet: fold.Facet
    ids: tuple[str, ...]  # what folds
    rules: tuple[tuple[Entry, str], ...]  # (entry, its rule word) that stay

    def saving(self, memory_dir: Path, index: HotIndex, taken: Mapping[str, bytes | None]) -> int:
        """About what the fold saves (the entries' bytes less its line), to choose by before planning it."""
        folding = [index.entry(i) for i in self.ids]
        name = fold.detail_name(memory_dir, self.facet.name, taken)
        line = fold.fold_line(self.facet.name, name, folding)
        return self.facet.nbytes - sum(e.nbytes for e, _w in self.rules) - len(line.encode("utf-8")) - 3

    def plan(self, memory_dir: Path, index: HotIndex, overrides: Mapping[str, bytes | None]) -> Change:
        if not self.rules:
            return self.facet.plan(memory_dir, index, overrides=overrides)
        return fold.plan_fold(memory_dir, index, ids=self.ids, facet=self.facet.name, overrides=overrides)


def fold_option(index: HotIndex, facet: fold.Facet) -> FoldOption | None:
    """The facet as fit may fold it (None: with its rules kept, too little or a table row is left)."""
    entries = [index.entry(i) for i in facet.entry_ids]
    rules = tuple((e, w) for e in entries for w in [standing_rule(e.text, e.section)] if w)
    if not rules:
        return FoldOption(facet, facet.entry_ids, ())
    held = {e.id for e, _w in rules}
    rest = [e for e in entries if e.id not in held]
    if len(rest) < fold.MIN_FACET or any(e.kind == "row" for e in rest):
        return None
    return FoldOption(facet, tuple(e.id for e in rest), rules)


def fold_order(options: list[FoldOption], saving: Mapping[fold.Facet, int], need: int) -> list[FoldOption]:
    """The options in the order to try them, the best first: the smallest facet that alone saves
    ``need`` bytes, unless facets that each save less reach it together moving fewer bytes (the
    largest of them first, and the next round goes on); then the rest, the largest first."""
    by_size = sorted(options, key=lambda o: (-saving[o.facet], o.facet.name))
    reaching = [o for o in by_size if saving[o.facet] >= need]
    smallest = reaching[-1] if reaching else None
    together, fill = 0, []
    used: set[str] = set()
    for option in by_size:  # the largest first, never two that share an entry
        if saving[option.facet] >= need or used & set(option.ids):
            continue
        fill.append(option)
        used |= set(option.ids)
        together += saving[option.facet]
        if together >= need:
            break
    fills = together >= need and (smallest is None or together < saving[smallest.facet])
    first = fill[0] if fills else smallest
    return ([first] if first else []) + [o for o in by_size if o is not first]
