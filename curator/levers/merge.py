"""Merge-facet: entries that say the same thing become one line, and no pointer is lost on the way.

Candidates (``find_candidates``): pairs or small groups with the evidence a careful bearer would
accept (``curator.levers.candidates``: one detail file indexed twice or thrice, a supersession that
names its successor, containment, one subject, a repeat, or wording rare in this index), each costed
by its default merge. Wording alone must also save real bytes; the other kinds stand on their own.
Each candidate carries its evidence (``kind``, ``evidence``) and says it in ``reason``. Template
identity lines are never candidates.

A merge puts one entry in the place of the first: one headline (its first line, then the other first
lines' clauses whose content words it does not say yet, less a trailing fragment it says already,
and the links of any clause carrying a pointer it lacks), then every part's sub-lines without
duplicates; table rows merge cell by cell. A superseded part brings only its links.
The pointer graph is re-checked on the result (``curator.pointers.check_pointers`` with the new
bytes): a merge that drops a pointer the user did not name, leaves a dangling pointer, or orphans a
detail file is refused with the list of what would be lost, unless forced.

The parts live beside this module and are importable from it too: the candidates in
``curator.levers.merge_candidates``, the merged text in ``merge_text``, its byte edits in ``merge_splice``.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from curator import markdown
from curator.change import Change, digest
from curator.constants import INDEX_NAME
from curator.errors import CuratorError, InputError
from curator.index_model import LIST_MARKER, Entry, HotIndex  # noqa: F401  (LIST_MARKER: read as merge.LIST_MARKER)
from curator.levers.merge_candidates import (  # noqa: F401  (re-exported: these lived here)
    IDENTITY_SECTION,
    LOOSE_SAID,
    MIN_SAVING,
    MIN_SHARED,
    REPEATED_SHARE,
    SAME_SAID,
    SAME_TARGET_SAID,
    SAVED_SHARE,
    SIMILAR,
    SUBSET_SAID,
    Candidate,
    _candidate,
    candidate_pairs,
    file_targets,
    find_candidates,
    _groups,
    plain_text,
    _reason,
    repeat_groups,
)
from curator.levers.merge_splice import (  # noqa: F401  (re-exported: these lived here)
    bytes_saved,
    group_edits,
    _removed,
    replace_group,
)
from curator.levers.merge_text import (  # noqa: F401  (re-exported: these lived here)
    BARE_WORDS,
    EXACT_BITS,
    FACET_JOIN,
    FACET_NEW,
    FACET_SAID,
    FILE_SPAN,
    FRAGMENT_CUT,
    INLINE_LINK,
    PROSE,
    SUPERSEDED,
    bare_pointer,
    _bits_said,
    dropped_words,
    _flowing,
    lead_first,
    leading_target,
    merged_entry_text,
    _merged_row,
    _said,
    _spells,
    split_cells,
    superseded,
    _without_said_tail,
)
from curator.levers.text import entries_by_id, entry_source
from curator.pointers import PointerReport, check_pointers


class MergeRefused(CuratorError):
    """The merge would lose something; ``lost`` lists it. Force to merge anyway."""

    code = "MERGE_WOULD_LOSE_POINTERS"

    def __init__(self, lost: list[str], change: Change):
        super().__init__("merge refused, it would lose: " + "; ".join(lost) + " (force to merge anyway)",
                         path=INDEX_NAME)
        self.lost = lost
        self.change = change  # what forcing would apply, for a UI to preview


def pointer_targets(text: str) -> Counter:
    return Counter(link.target for link in markdown.links_in_text(text))


def plan_merge(
    memory_dir: str | Path,
    index: HotIndex,
    entry_ids: list[str] | tuple[str, ...],
    *,
    text: str | None = None,
    drop_pointers: tuple[str, ...] | list[str] = (),
    force: bool = False,
) -> Change:
    """One entry in the place of the first; raises MergeRefused if anything would be lost."""
    group = entries_by_id(index, entry_ids)
    if len(group) < 2:
        raise InputError("a merge needs at least two entry ids", path=INDEX_NAME)
    if text is not None:
        if "\n" in text or "\r" in text:
            raise InputError("the merged text must be one line", path=INDEX_NAME)
        marker = LIST_MARKER.match(entry_source(index, group[0]))
        if group[0].kind == "row":  # a row stays a row of its table
            merged = text.strip() if text.strip().startswith("|") else "| " + text.strip() + " |"
        elif group[0].kind in PROSE:  # a paragraph stays a paragraph
            merged = text.strip()
        else:
            merged = text if LIST_MARKER.match(text) else (marker.group(0) if marker else "- ") + text.strip()
    else:
        merged = merged_entry_text(index, group)

    before: Counter[str] = Counter()
    for entry in group:
        before.update(pointer_targets(entry_source(index, entry)))
    unknown = [p for p in drop_pointers if p not in before]
    if unknown:
        raise InputError(f"not a pointer of the merged entries: {', '.join(unknown)}", path=INDEX_NAME)
    if text is None:
        for target in drop_pointers:
            merged = drop_pointer(merged, target)

    new_raw = replace_group(index, group, merged)
    after = pointer_targets(merged)
    lost_targets = sorted(t for t in before if t not in after)
    unacknowledged = [t for t in lost_targets if t not in drop_pointers]
    report_before = check_pointers(Path(memory_dir), parsed_index=index)
    report_after = check_pointers(Path(memory_dir), overrides={INDEX_NAME: new_raw})
    orphans, dangling = new_problems(report_before, report_after)

    losses = [f"pointer {t} (not kept in the merged text)" for t in unacknowledged]
    losses += [f"detail file {name} would be orphaned" for name in orphans]
    losses += [f"dangling pointer {target}" for target in dangling]
    warnings = [f"dropped pointer {t}" for t in lost_targets]
    warnings += [f"orphaned detail file {name}" for name in orphans]
    warnings += [f"dangling pointer {target}" for target in dangling]
    change = Change(
        description=f"merge {len(group)} entries into {group[0].id} ({', '.join(e.id for e in group)})",
        files={INDEX_NAME: new_raw},
        bytes_saved=len(index.raw) - len(new_raw),
        entry_ids=tuple(e.id for e in group),
        warnings=tuple(warnings),
        kind="merge",
        base={INDEX_NAME: digest(index.raw)},
    )
    if losses and not force:
        raise MergeRefused(losses, change)
    return change


def new_problems(before: PointerReport, after: PointerReport) -> tuple[list[str], list[str]]:
    """Orphans and dangling targets the change introduces (line numbers shift, so compare targets)."""
    orphans = sorted(set(after.orphans) - set(before.orphans))
    old = Counter((d.file, d.target) for d in before.dangling)
    new = Counter((d.file, d.target) for d in after.dangling)
    dangling = sorted(target for (_file, target) in (new - old).elements())
    return orphans, dangling


def drop_pointer(text: str, target: str) -> str:
    """Remove one pointer the user chose to drop: a link keeps its text, a record id or URL goes."""
    link = re.compile(r"\[([^\]]*)\]\(<?" + re.escape(target) + r">?(?:\s+\"[^\"]*\")?\)")
    text, count = link.subn(lambda m: m.group(1), text)
    if not count:
        text = re.sub(r"\s*<?" + re.escape(target) + r">?", "", text)
    if target in pointer_targets(text):
        raise InputError(f"could not drop pointer {target} from the default text; give --text", path=INDEX_NAME)
    return text
