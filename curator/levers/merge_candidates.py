"""Merge candidates: the pairs and groups the evidence proposes, each costed by its default merge."""

from __future__ import annotations

from dataclasses import dataclass, field

from curator.errors import InputError
from curator.index_model import Entry, HotIndex
from curator.levers.candidates import (STRONG, Evidence, Facts, citing_pairs, containing_pairs, old_marked,
                                       shared_words, subject_pairs, superseding_pairs, target_groups, written_target)
from curator.levers.merge_splice import bytes_saved
from curator.levers.merge_text import lead_first, leading_target, merged_entry_text
from curator.levers.similarity import PairScore, Weights

@dataclass(frozen=True)
class Candidate:
    entry_ids: tuple[str, ...]
    score: float  # 0-100 similarity of the words without links (the lowest pair in a group)
    bytes_saved: int  # what the default merge saves in MEMORY.md
    reason: str
    section: str = ""  # '' when the entries sit in different sections
    shared_target: str = ""  # a detail file every entry links to, if any
    merged: str = field(default="", compare=False, repr=False)  # the default merged text costed
    kind: str = ""  # the evidence: same-target | supersedes | contained | same-subject | same-words | repeat
    evidence: tuple[str, ...] = ()  # what backs it: the target, the marker and the name, the shared words


def file_targets(entry: Entry) -> set[str]:
    return {link.path for link in entry.pointers if link.kind == "file" and link.path}


IDENTITY_SECTION = "Identity & seat"  # the template's identity lines: never merged, never archived
MIN_SAVING = 12  # bytes: a merge that saves less is not worth the bearer's attention (unless one target)
MIN_SHARED = 3  # words two entries must share at least (their weight decides the rest)
SAME_SAID = 0.5  # dice from which two entries say mostly the same
SUBSET_SAID = 0.7  # overlap from which one entry says a part of the other
SAVED_SHARE = 0.4  # ... nor one that saves less than this share of the (smaller) entry it removes
SIMILAR = 50.0  # score from which a pair's wording alone makes it a candidate; below it (down to
REPEATED_SHARE = 0.6  # LOOSE_SAID), the merge must save this share of the smaller entry: it repeats
LOOSE_SAID = 0.3
SAME_TARGET_SAID = 0.35  # dice enough for two entries on one detail or subject to be one entry


def says_mostly_the_same(score: PairScore) -> bool:
    """Two entries already about one thing (a detail file, a subject) say mostly the same about it,
    or one says a part of the other."""
    return score.dice >= SAME_TARGET_SAID or score.overlap >= SUBSET_SAID


def candidate_pairs(entries: list[Entry]) -> tuple[dict[tuple[int, int], tuple[float, str, Evidence]],
                                                     list[tuple[tuple[int, ...], float, str, Evidence]]]:
    """Every pair worth costing, (i, j) -> (score 0-100, shared target, evidence), and the groups of
    two or three entries that index one detail file (``curator.levers.candidates`` says why each)."""
    facts = [Facts(entry) for entry in entries]
    words = Weights([fact.prose_words for fact in facts])
    # A category line pairs with nothing by its words; nor does an entry that says it is superseded:
    # it goes only with the entry it names (a neighbour sharing its words is not its successor).
    labels = [fact.label or fact.old for fact in facts]
    rare_pairs = words.pairs()
    found: dict[tuple[int, int], tuple[float, str, Evidence]] = {}

    def put(pair: tuple[int, int], score: float, target: str, evidence: Evidence) -> None:
        if pair not in found or found[pair][2].strength < evidence.strength:
            found[pair] = (score, target, evidence)

    unmarked = {(i, j) for i, j in rare_pairs if not (labels[i] or labels[j])}
    for pair, evidence in containing_pairs(facts, unmarked).items():
        put(pair, 100 * words.score(*pair).overlap, "", evidence)
    for pair, evidence in subject_pairs(facts).items():
        # One subject says what both lines are about, not that they say the same about it (a change
        # log names one file in every step that changed it): their own words must agree too.
        score = words.score(*pair)
        if says_mostly_the_same(score):
            put(pair, 100 * score.dice, "",
                Evidence("same-subject", (*evidence.shown, *shared_words(entries, words, *pair)[:3]), evidence.strength))
    for pair, evidence in superseding_pairs(facts).items():
        put(pair, 100 * words.score(*pair).dice, "", evidence)
    for i, j, key in citing_pairs(facts):
        # One detail indexed by one line and cited by another that says mostly the same.
        score = words.score(i, j)
        if says_mostly_the_same(score):
            target = written_target(entries[i], key)
            put((min(i, j), max(i, j)), 100 * score.dice, target,
                Evidence("same-target", (target, *shared_words(entries, words, i, j)[:3]), STRONG["same-target"]))
    for (i, j), rare in rare_pairs.items():  # wording last: a pair with stronger evidence keeps it
        if (i, j) in found or labels[i] or labels[j] or not words.may_reach(i, j, rare, LOOSE_SAID):
            continue
        score = words.score(i, j)
        if score.words >= MIN_SHARED and score.dice >= LOOSE_SAID:
            put((i, j), 100 * max(score.dice, score.overlap * SAME_SAID / SUBSET_SAID), "",
                Evidence("same-words", shared_words(entries, words, i, j)))
    groups: list[tuple[tuple[int, ...], float, str, Evidence]] = []
    for members, key in target_groups(facts):
        target = written_target(entries[members[0]], key)
        least = 100 * min(words.score(i, j).dice for x, i in enumerate(members) for j in members[x + 1:])
        groups.append((members, least, target, Evidence("same-target", (target,), STRONG["same-target"])))
    return found, groups


def repeat_groups(entries: list[Entry]) -> list[list[int]]:
    """Entries whose text is the same but for whitespace and the list marker, whatever their count."""
    seen: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        key = " ".join(entry.body.split())
        if key:
            seen.setdefault(key, []).append(i)
    return [members for members in seen.values() if len(members) > 1]


def find_candidates(index: HotIndex, *, limit: int = 50, cutoff: float = 0.0) -> list[Candidate]:
    """Merge candidates a careful bearer would accept, the ones that save the most first.

    Pairs and target groups come from ``candidate_pairs``, each with its evidence; groups of three or
    more are also entries all pairwise alike in wording. Each is costed by its default merge
    (``merged_entry_text``). Evidence that stands on its own (one detail file, a repeat, a supersession
    that names its successor, containment, one subject) is shown whatever the merge saves; a pair
    alike only in wording is shown when its merge keeps every fact and saves real bytes. Template
    identity lines are never candidates. ``cutoff`` (0-100) drops wording pairs scoring lower."""
    entries = [entry for entry in index.entries if entry.section != IDENTITY_SECTION]
    repeats = repeat_groups(entries)
    repeated = {i for members in repeats for i in members[1:]}  # each repeat goes with its first copy
    found, target_groups_ = candidate_pairs(entries)
    pairs = {(i, j): value for (i, j), value in found.items()
             if (value[0] >= cutoff or value[2].strength) and i not in repeated and j not in repeated}
    scores = {pair: score for pair, (score, _target, evidence) in pairs.items() if not evidence.strength}
    groups = [(tuple(group), score, target, Evidence("same-words", ())) for group, score, target in _groups(entries, scores)]
    groups += [group for group in target_groups_ if not repeated & set(group[0])]
    groups += [(tuple(members), 100.0, "", Evidence("repeat", (), STRONG["repeat"])) for members in repeats]
    group_of = {i: n for n, (group, *_rest) in enumerate(groups) for i in group}
    ranked: list[tuple[tuple[int, ...], float, str, Evidence]] = [
        ((i, j), score, target, evidence) for (i, j), (score, target, evidence) in pairs.items()
        if group_of.get(i, -1) != group_of.get(j, -2)]  # a pair inside a group is the group's
    ranked += groups
    plain = plain_text(index)
    costed = []
    for group, score, target, evidence in ranked:
        members = lead_first([entries[i] for i in sorted(group)])
        candidate = _candidate(index, members, score, target, plain, evidence)
        if (len(members) == 2 and not leading_target(members[0])
                and (candidate is None or candidate.bytes_saved < members[0].nbytes)):
            # Neither indexes a file: the one whose place and wording are kept is the one that saves
            # more (kept the other way round, the merge saves at most the first entry's bytes).
            other = _candidate(index, members[::-1], score, target, plain, evidence)
            if other is not None and (candidate is None or other.bytes_saved > candidate.bytes_saved):
                candidate = other
        if candidate is None:
            continue
        smaller = min(index.entry(i).nbytes for i in candidate.entry_ids)
        # Wording alone is weak evidence: the honest merge must save bytes too. Two paraphrases keep
        # both wordings and save nothing; an entry that repeats another is saved almost whole.
        saved = candidate.bytes_saved
        if evidence.strength or (saved >= MIN_SAVING and saved >= SAVED_SHARE * smaller
                                 and (score >= SIMILAR or saved >= REPEATED_SHARE * smaller)):
            costed.append(candidate)
    costed.sort(key=lambda c: (-c.bytes_saved, -c.score, c.entry_ids))
    return costed[:limit]


def _groups(entries: list[Entry], pairs: dict[tuple[int, int], float]) -> list[tuple[list[int], float, str]]:
    """Three or more entries that are all pairwise similar (a clique within a connected group)."""
    parent = {i: i for pair in pairs for i in pair}  # only entries in a pair can be in a group

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        parent[root(i)] = root(j)
    members: dict[int, list[int]] = {}
    for i in parent:
        members.setdefault(root(i), []).append(i)
    groups: list[tuple[list[int], float, str]] = []
    for group in members.values():
        group.sort()
        if len(group) < 3 or len(group) > 8:
            continue
        scores = [pairs.get((i, j)) for x, i in enumerate(group) for j in group[x + 1 :]]
        known = [score for score in scores if score is not None]
        if len(known) == len(scores):
            targets = set.intersection(*(file_targets(entries[i]) for i in group))
            groups.append((group, min(known), min(targets, default="")))
    return groups


def plain_text(index: HotIndex) -> bool:
    """Valid UTF-8 and no carriage return: then an entry's ``text`` is exactly its source (the model
    splits lines at '\\n' and '\\r' alike and drops a line's ending, where the source keeps the bytes)."""
    return not index.decode_error_offsets and b"\r" not in index.raw


def _candidate(index: HotIndex, group: list[Entry], score: float, target: str, plain: bool,
               evidence: Evidence | None = None) -> Candidate | None:
    try:
        merged = merged_entry_text(index, group, plain=plain)
    except InputError:
        return None
    evidence = evidence or Evidence("same-target" if target else "same-words", (target,) if target else ())
    saved = bytes_saved(index, group, merged)
    section = group[0].section if len({e.section for e in group}) == 1 else ""
    share = round(100 * saved / max(1, min(entry.nbytes for entry in group[1:])))
    where = f"in section '{section or '(top)'}'" if section else "across sections"
    return Candidate(tuple(e.id for e in group), round(float(score), 1), saved,
                     _reason(group, evidence, target, share, where), section, target, merged,
                     kind=evidence.kind, evidence=evidence.shown)


def _reason(group: list[Entry], evidence: Evidence, target: str, share: int, where: str) -> str:
    """Why the entries may be one, with the evidence itself (the app and ``--json`` show it)."""
    lines = ", ".join(str(entry.line) for entry in group)
    shown = ", ".join(evidence.shown)
    if evidence.kind == "supersedes":
        marker, named = evidence.shown
        says = next((e for e in group if marker in e.text.partition("\n")[0]), group[0])
        if old_marked(says):
            return (f"line {says.line} says it is superseded (\"{marker}\") and names {named}; "
                    f"its links go into the entry that replaced it")
        return f"line {says.line} says it {marker.lower()} {named}"
    if evidence.kind == "same-target":
        extra = f" (both say: {', '.join(evidence.shown[1:])})" if len(evidence.shown) > 1 else ""
        return f"lines {lines} index one detail file, {target or evidence.shown[0]}{extra}"
    if evidence.kind == "repeat":
        return f"lines {lines} say the same words"
    if evidence.kind == "contained":
        return f"{shown}: everything it says, the other says too; the merge saves {share}% of the shorter, {where}"
    if evidence.kind == "same-subject":
        subject, said_both = evidence.shown[0], ", ".join(evidence.shown[1:])
        return f"lines {lines} both describe {subject}" + (f" (both say: {said_both})" if said_both else "")
    return f"same rare words ({shown}); the merge keeps every fact and saves {share}% of the shorter entry, {where}"
