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
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

from curator import markdown
from curator.change import Change, digest
from curator.constants import INDEX_NAME
from curator.errors import CuratorError, InputError
from curator.index_model import LIST_MARKER, Entry, HotIndex
from curator.levers.placement import removal_spans
from curator.levers.candidates import (STRONG, Evidence, Facts, citing_pairs, containing_pairs, old_marked,
                                       shared_words, subject_pairs, superseding_pairs, target_groups, written_target)
from curator.levers.similarity import Weights, stem, words_of
from curator.levers.text import clauses, content_end, depth_map, entries_by_id, entry_source, entry_start
from curator.pointers import PointerReport, check_pointers

FACET_JOIN = "; "


class MergeRefused(CuratorError):
    """The merge would lose something; ``lost`` lists it. Force to merge anyway."""

    code = "MERGE_WOULD_LOSE_POINTERS"

    def __init__(self, lost: list[str], change: Change):
        super().__init__("merge refused, it would lose: " + "; ".join(lost) + " (force to merge anyway)",
                         path=INDEX_NAME)
        self.lost = lost
        self.change = change  # what forcing would apply, for a UI to preview


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
SAME_TARGET_SAID = 0.35  # dice enough for two entries indexing one detail to be one entry


# A file named in a code span (`docs/codex-config.md`): many indexes name their detail files so,
# without a link. Such a name is a detail the entry cites, as a link is (never checked as a pointer).
FILE_SPAN = re.compile(r"`(?:\./)?([\w~-][\w.~/-]*\.[A-Za-z][\w]{0,5})`")


BARE_WORDS = 3  # content words besides the target's name up to which an entry only points at it


def bare_pointer(entry: Entry, target: str) -> bool:
    """The entry says little besides naming ``target``: "See [x.md](x.md) for full schema", "Details
    in topic file: `x.md`". (A titled link, ``[Gate & Recalibration](x.md) — …``, says more.)"""
    if entry.text.count("\n") or len(entry.text) > 160:
        return False
    path = target.partition("#")[0]
    name = posixpath.splitext(posixpath.basename(path))[0].lower()
    text = entry.text.replace(path, " ").replace(unquote(path), " ")
    own = words_of(text) - {stem(w) for w in re.split(r"[\W_]+", unquote(name)) if w}
    return len(own) <= BARE_WORDS


def leading_target(entry: Entry) -> str:
    """The detail the entry opens with (a link, or a file named in a code span), or ''."""
    opening = LIST_MARKER.sub("", entry.text.partition("\n")[0], count=1).lstrip("*_ ")
    if opening.startswith("`"):
        named = FILE_SPAN.match(opening)
        return named.group(1) if named else ""
    for link in entry.pointers:
        if link.kind == "file" and link.path and link.line == entry.line:
            if opening.startswith(("[", "![")):
                return link.path + (f"#{link.anchor}" if link.anchor else "")
        break
    return ""


def lead_first(group: list[Entry]) -> list[Entry]:
    """The order a careful bearer merges in: the entry that indexes a detail file (opens with its
    link) keeps its place and headline; otherwise the first in the file does."""
    return sorted(group, key=lambda e: (superseded(e), not leading_target(e), e.line))


# An entry that says of itself it is superseded ("SUPERSEDED by unified rules below", "obsolete")
# is merged into the rule that replaced it: that one leads, and the old one brings only its links.
SUPERSEDED = re.compile(r"\b(?:superseded|obsolete)\b", re.IGNORECASE)


@lru_cache(maxsize=4096)  # asked of each entry again by every sort and filter of the candidates
def superseded(entry: Entry) -> bool:
    first = entry.text.partition("\n")[0]
    # (substring tests first, any case: a regex with word bounds is slow on a 12 KB line)
    return any(bit in first for bit in ("upersed", "UPERSED", "bsolete", "BSOLETE")) and bool(SUPERSEDED.search(first))


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
        put(pair, 100 * words.score(*pair).dice, "", evidence)
    for pair, evidence in superseding_pairs(facts).items():
        put(pair, 100 * words.score(*pair).dice, "", evidence)
    for i, j, key in citing_pairs(facts):
        # One detail indexed by one line and cited by another that says mostly the same.
        score = words.score(i, j)
        if score.dice >= SAME_TARGET_SAID or score.overlap >= SUBSET_SAID:
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
    groups = []
    for members, key in target_groups(facts):
        target = written_target(entries[members[0]], key)
        score = 100 * min(words.score(i, j).dice for x, i in enumerate(members) for j in members[x + 1:])
        groups.append((members, score, target, Evidence("same-target", (target,), STRONG["same-target"])))
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
    ranked = [((i, j), score, target, evidence) for (i, j), (score, target, evidence) in pairs.items()
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


def _groups(entries: list[Entry], pairs: dict) -> list[tuple[list[int], float, str]]:
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
    groups = []
    for group in members.values():
        group.sort()
        if len(group) < 3 or len(group) > 8:
            continue
        scores = [pairs.get((i, j)) for x, i in enumerate(group) for j in group[x + 1 :]]
        if all(score is not None for score in scores):
            targets = set.intersection(*(file_targets(entries[i]) for i in group))
            groups.append((group, min(scores), min(targets, default="")))
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
        return f"lines {lines} both describe {shown}"
    return f"same rare words ({shown}); the merge keeps every fact and saves {share}% of the shorter entry, {where}"


# -- the merge ---------------------------------------------------------------------------------

def pointer_targets(text: str) -> Counter:
    return Counter(link.target for link in markdown.links_in_text(text))


FACET_SAID = 0.8  # a facet whose content words are said at least this much already is not repeated
FACET_NEW = 2  # ... and that brings at most this many new words


def merged_entry_text(index: HotIndex, group: list[Entry], *, plain: bool = False) -> str:
    """The default merged entry: one headline, then every part's sub-lines without duplicates.

    The headline is the first entry's first line extended by the other first lines' distinct facets
    (clauses whose content words it does not mostly say yet, and every clause carrying a pointer it
    lacks). Below it come the first entry's own continuation lines, then the others' that say
    something new (a line already there, or one whose words are all said, is not repeated). No line
    ending at the end.

    ``plain``: the caller knows the file is valid UTF-8 without a carriage return (``plain_text``),
    so each entry's decoded text is already its source and nothing is decoded again."""
    sources = [entry.text.rstrip("\n") if plain else entry_source(index, entry).rstrip("\n") for entry in group]
    if group[0].kind == "row":
        return _merged_row(group, sources)
    # A table row merged into a list item brings its cells as clauses.
    sources = [" — ".join(split_cells(source)) if entry.kind == "row" and n else source
               for n, (entry, source) in enumerate(zip(group, sources))]
    # A paragraph is flowing text: merged into another entry its lines are one line of clauses;
    # kept, it keeps its lines and the others' clauses (their sub-lines too) follow its last line.
    prose = group[0].kind in PROSE
    sources = sources[:1] + [_flowing(entry, source, prose) for entry, source in zip(group[1:], sources[1:])]
    head, _newline, tail = sources[0].partition("\n")
    if prose:
        head, tail = sources[0], ""
    line = head.rstrip()
    below = list(tail.split("\n")) if tail else []
    said = set(words_of(sources[0]))
    bits = set(EXACT_BITS.findall(sources[0]))  # code spans and numbers said so far, verbatim
    kept_lines = {" ".join(part.split()) for part in below}
    have = {link.target for link in group[0].pointers}
    lead = leading_target(group[0])
    for other, source in zip(group[1:], sources[1:]):
        if (words_of(source) <= said and _bits_said(source, bits)
                and not ({link.target for link in other.pointers} - have)):
            continue  # it says nothing the merged entry does not: no clause to weigh one by one
        if lead and bare_pointer(other, lead) and not ({link.target for link in other.pointers} - have):
            continue  # "See x.md for details" beside x.md's own index line: covered whole
        if superseded(other):
            carried = [span for span in INLINE_LINK.findall(source)
                       if any(_spells(span, link) for link in other.pointers if link.target not in have)]
            if carried:
                line += FACET_JOIN + "superseded: " + " ".join(carried)
                have.update(link.target for link in other.pointers)
            continue
        other_head, _nl, other_tail = source.partition("\n")
        # The words of this entry the merged one does not say yet, as written: a clause holding none
        # of them says nothing new, and that is a substring test, not a word split per clause.
        # (A stem is a prefix of every word it stems from, but for -ies -> -y: "polic" for "policy".)
        unsaid = {word[:-1] if word.endswith("y") else word for word in words_of(source) - said}
        for clause in clauses(LIST_MARKER.sub("", other_head.strip(), count=1)):
            # The links were found by markdown-it in the model: a clause carries the ones it spells.
            new_pointers = {link.target for link in other.pointers if _spells(clause, link)} - have \
                if other.pointers else ()
            if not new_pointers and _bits_said(clause, bits):
                lowered = clause.lower()
                if not any(word in lowered for word in unsaid):
                    continue
                if _said(words_of(clause), said):
                    continue
            if not new_pointers:
                clause = _without_said_tail(clause, said, bits)
            words = words_of(clause)
            if new_pointers:
                # Its words are said already: carry only its links (every pointer kept, no repeat).
                spans = [m.group(0) for m in INLINE_LINK.finditer(clause)
                         if any(_spells(m.group(0), link) for link in other.pointers if link.target in new_pointers)]
                rest = INLINE_LINK.sub(" ", clause)
                if spans and _said(words_of(rest), said) and _bits_said(rest, bits) and all(
                        any(_spells(span, link) for span in spans) for link in other.pointers
                        if link.target in new_pointers):
                    clause, words = " ".join(spans), words_of(" ".join(spans))
            line += (" " if line.endswith((".", "!", "?", ";")) else FACET_JOIN) + clause
            said |= words
            if "`" in clause:
                bits.update(EXACT_BITS.findall(clause))
            have.update(new_pointers)
        for part in other_tail.split("\n") if other_tail else ():
            flat = " ".join(part.split())
            if not flat or flat in kept_lines:
                continue
            new_pointers = {link.target for link in other.pointers if _spells(part, link)} - have \
                if other.pointers else ()
            words = words_of(part)
            if not new_pointers and words <= said and _bits_said(part, bits):
                continue
            below.append(part)
            kept_lines.add(flat)
            said |= words
            bits.update(EXACT_BITS.findall(part))
            have.update(new_pointers)
    return "\n".join([line, *below])


INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\([^()\s]*(?:\([^()]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)")
PROSE = ("paragraph", "hermes")  # entries written as flowing text, not as a list item or a row


def _flowing(entry: Entry, source: str, into_prose: bool) -> str:
    """An entry merged away, as the text the merge weighs: a paragraph's lines joined (one line of
    clauses); merged into a paragraph, a list item's lines too, each without its marker, as clauses."""
    if entry.kind in PROSE:
        return " ".join(part.strip() for part in source.split("\n") if part.strip())
    if into_prose:
        return FACET_JOIN.join(LIST_MARKER.sub("", part.strip(), count=1) for part in source.split("\n") if part.strip())
    return source


def split_cells(row: str) -> list[str]:
    """The cells of a table row (GFM: an escaped pipe stays in its cell), stripped."""
    body = row.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", body)]


def _merged_row(group: list[Entry], sources: list[str]) -> str:
    """Rows merged cell by cell: each cell keeps its text and gains the others' distinct clauses in
    the same column (a list item's clauses, or cells past the last column, go to the last cell)."""
    cells = split_cells(sources[0])
    said = set(words_of(sources[0]))
    bits = set(EXACT_BITS.findall(sources[0]))
    have = {link.target for link in group[0].pointers}
    for other, source in zip(group[1:], sources[1:]):
        parts = split_cells(source) if other.kind == "row" else [" ".join(source.split("\n"))]
        for column, part in enumerate(parts):
            into = min(column, len(cells) - 1) if other.kind == "row" else len(cells) - 1
            for clause in clauses(LIST_MARKER.sub("", part, count=1)):
                new_pointers = {link.target for link in other.pointers if _spells(clause, link)} - have
                words = words_of(clause)
                if not new_pointers and _said(words, said) and _bits_said(clause, bits):
                    continue
                clause = re.sub(r"(?<!\\)\|", r"\\|", clause)
                cells[into] = f"{cells[into]}{FACET_JOIN}{clause}" if cells[into] else clause
                said |= words
                bits.update(EXACT_BITS.findall(clause))
                have.update(new_pointers)
    return "| " + " | ".join(cells) + " |"


FRAGMENT_CUT = re.compile(r"[,:] ")


def _without_said_tail(clause: str, said: set[str], bits: set[str]) -> str:
    """The clause without a trailing run of fragments (after a ', ' or ': ' outside brackets and code)
    whose words and code spans are all said already: "Coverage push from 83% → 95%: 1937 tests all
    passing" beside "1937 tests … all passing" keeps "Coverage push from 83% → 95%". Only a tail goes:
    a leading fragment gives the rest its sense ("never …, set passwords")."""
    cuts = [m.start() for m in FRAGMENT_CUT.finditer(clause)]
    if not cuts:
        return clause
    depths = depth_map(clause)
    keep, end = len(clause), len(clause)
    for cut in reversed([cut for cut in cuts if depths[cut] == 0]):  # each fragment looked at once
        fragment = clause[cut + 2 : end]
        if not (words_of(fragment) <= said and _bits_said(fragment, bits) and "](" not in fragment):
            break
        keep = end = cut
    return clause[:keep]


def _said(words: set[str], said: set[str]) -> bool:
    """The clause's content words are (mostly) said already: nothing to add."""
    if not words:
        return True
    new = len(words - said)
    return new <= FACET_NEW and new <= len(words) * (1 - FACET_SAID)


EXACT_BITS = re.compile(r"`[^`]+`")  # numbers are words already (9.0 and 7.0 stay whole)


def _bits_said(clause: str, bits: set[str]) -> bool:
    """Code spans are said only verbatim: `Maps/Materials/` is not `Maps/Data/`."""
    if "`" not in clause:
        return True
    return all(bit in bits for bit in EXACT_BITS.findall(clause))


def dropped_words(index: HotIndex, group: list[Entry], merged: str) -> list[str]:
    """Content words of the merged entries that the merged text no longer says (for the preview)."""
    said = words_of(merged)
    gone: set[str] = set()
    for entry in group:
        gone |= words_of(entry_source(index, entry)) - said
    return sorted(gone)


def _spells(text: str, link) -> bool:
    return link.target in text or unquote(link.target) in text


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

    before = Counter()
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


def replace_group(index: HotIndex, group: list[Entry], merged: str) -> bytes:
    """The new index bytes: ``merged`` where the first entry was (its last line ending kept), the
    others removed. Inner line breaks use the file's own line ending."""
    return index.splice(group_edits(index, group, merged))


def group_edits(index: HotIndex, group: list[Entry], merged: str) -> list[tuple[int, int, bytes]]:
    """The splice edits of ``replace_group`` (disjoint groups' edits can share one splice)."""
    first = group[0]
    new_bytes = merged.replace("\n", index.newline.decode()).encode("utf-8")
    edits = [(entry_start(index, first), content_end(index, first.end_line), new_bytes)]
    edits += [(start, end, b"") for start, end in _removed(index, group[1:])]  # the BOM stays
    return edits


def _removed(index: HotIndex, others: list[Entry]) -> list[tuple[int, int]]:
    """The byte ranges the entries merged away take: their own lines, and a paragraph's blank line
    or a § block's § line with it (``curator.levers.placement``), so the blocks around stay apart."""
    if all(entry.kind not in PROSE for entry in others):
        return [(entry_start(index, entry), entry.end_offset) for entry in others]
    return removal_spans(index, others)


def bytes_saved(index: HotIndex, group: list[Entry], merged: str) -> int:
    """``len(index.raw) - len(replace_group(index, group, merged))`` for distinct entries, by the
    lengths of the same edits alone: costing a list of candidates need not build each new file."""
    first = group[0]
    new_length = len(merged.encode("utf-8")) + merged.count("\n") * (len(index.newline) - 1)
    replaced = content_end(index, first.end_line) - entry_start(index, first)
    return replaced - new_length + sum(end - start for start, end in _removed(index, group[1:]))


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
