"""The evidence that two entries of one index may be one: each kind found on its own terms.

A careful owner merges two lines when one of these holds, and only then (``find_pairs``):

- ``same-target``: both entries *index* one detail file. An entry indexes the files it opens with
  (``- [Title](file.md) — hook``, ``- [[file]] — hook``, ``- `file.md` — hook``, several joined by
  ``·``/``,``/``/``) or the one file it only points at ("See [x.md](x.md) for the schema"). Link forms
  are compared as the file's stem and anchor, case-folded, whatever the directory: a markdown link,
  a ``[[wikilink]]`` and a bare ``file.md`` name the same detail. Two or three such entries are
  always proposed; a file indexed by more is a hub, not one entry's detail. A line that only *cites*
  the file ("…; see [x.md](x.md)") joins it when its wording says mostly the same as well.
- ``supersedes``: an entry says it is superseded (obsolete, replaced, 폐기됨, 废弃, 廃止, устарел…) and
  names the entry that replaced it: links that entry's detail file or spells most of its title.
  A neighbour that merely shares words is never enough.
- ``contained``: everything one entry says the other says too: every content word (stems, CJK
  bigrams, numbers) and every code span verbatim.
- ``same-subject``: both open with the same code-span subject (``- `src/browse.py` — …``), not a
  command, and say mostly the same about it (the wording bar of a line that only cites a detail):
  two lines describing one thing. The subject alone is not enough: a change log opens every step
  with the file it changed, and two steps on one file are two changes.
- ``same-words``: their wording overlaps, every word weighed by how rare it is in *this* index
  (``curator.levers.similarity``); the merge decides the rest (``curator.levers.merge``).

Never evidence: a shared shell command or other code span inside the text (an install command is
written the same way for unrelated things), link targets and file names (what an entry points at is
not what it says), and a category line ("**Testing:**", a paragraph ending in ':') with the lines
that summarise under it: such a label is never paired by its words.

What one entry says, as these kinds ask it, is worked out once per entry in ``curator.levers.entry_facts``
(importable from here too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from curator import caches
from curator.index_model import LIST_MARKER, Entry
from curator.levers.entry_facts import (  # noqa: F401  (re-exported: the per-entry answers lived here)
    BARE_FILE,
    BARE_WORDS,
    CLAUSE_ENDS,
    CODE_SPAN,
    CODE_WORDS,
    COMMAND,
    DETAIL_EXTENSION,
    INDEX_STEMS,
    _JOIN,
    _LABEL,
    _LABEL_WORDS,
    _LEAD,
    MARKER_BITS,
    MD_LINK,
    MD_NAME,
    POINTING,
    REPLACES,
    _SUBJECT,
    SUPERSEDED,
    URL,
    WIKI_LINK,
    Facts,
    _answered,
    cited_keys,
    clause_words,
    _clauses,
    code_spans,
    code_subject,
    detail_key,
    indexed_keys,
    label_line,
    _link_key,
    _marker,
    old_marked,
    opening_subjects,
    prose,
    prose_words,
    said,
    said_within,
    said_words,
    _subject_key,
    title_words,
    _without_code,
    _without_targets,
)
from curator.levers.similarity import Weights, stem, words_of  # noqa: F401  (re-exported)

MAX_SHARING = 3  # entries indexing one file from which it is a hub (a table of contents), not a detail
MIN_CONTAINED_WORDS = 3  # content words an entry needs before "all it says is said" means anything
EVIDENCE_WORDS = 6  # shared words shown with a pair, the rarest first


@dataclass(frozen=True)
class Evidence:
    kind: str  # same-target | supersedes | contained | same-subject | same-words | repeat
    shown: tuple[str, ...] = ()  # the shared target, or the shared words, as written
    strength: int = 0  # kinds that need no saving to be shown rank above the ones that do


STRONG = {"repeat": 5, "same-target": 4, "supersedes": 4, "contained": 3, "same-subject": 3, "same-words": 0}


def _names(entry: Facts, other: Facts, words: frozenset[str]) -> bool:
    """``entry`` names ``other``: links a detail file ``other`` indexes, or spells most of its title
    (at least two of its words, and one that is not in ``entry``'s own title)."""
    if (entry.cited_keys - entry.indexed_keys) & other.indexed_keys:
        return True
    hit = other.title_words & words
    return len(hit) >= 2 and 2 * len(hit) >= len(other.title_words) and bool(hit - entry.title_words)


def superseding_pairs(facts: list[Facts]) -> dict[tuple[int, int], Evidence]:
    """(i, j) for every entry that says it is superseded (or that it replaces another) and names the
    other entry: the unique one it names best, never a neighbour picked by shared words."""
    found: dict[tuple[int, int], Evidence] = {}
    for i, entry in enumerate(facts):
        if entry.marker is None:
            continue
        words, cited = entry.said_words, entry.cited_keys - entry.indexed_keys
        # Only an entry whose words or detail file this one shares can be named by it.
        named = [j for j, other in enumerate(facts)
                 if j != i and (len(other.prose_words & words) >= 2 or other.indexed_keys & cited)
                 and other.title_words and _names(entry, other, words)]
        if len(named) != 1:
            continue  # none named, or no single one: not a question the words can settle
        (j,) = named
        found[(min(i, j), max(i, j))] = Evidence("supersedes", (entry.marker.group(0), _title_text(facts[j].entry)),
                                                 STRONG["supersedes"])
    return found


def _title_text(entry: Entry) -> str:
    subjects = opening_subjects(entry.text.partition("\n")[0])
    if subjects:
        return subjects[0]
    return " ".join(LIST_MARKER.sub("", entry.text.partition("\n")[0], count=1).split()[:8])


def target_groups(facts: list[Facts]) -> list[tuple[tuple[int, ...], str]]:
    """Groups of two or three entries that index one detail file, with that file's key."""
    by_key: dict[str, list[int]] = {}
    for i, entry in enumerate(facts):
        for key in entry.indexed_keys:
            by_key.setdefault(key, []).append(i)
    return [(tuple(members), key) for key, members in sorted(by_key.items()) if 2 <= len(members) <= MAX_SHARING]


def citing_pairs(facts: list[Facts]) -> list[tuple[int, int, str]]:
    """(indexing entry, citing entry, key): one entry indexes a detail file another only cites."""
    indexers: dict[str, list[int]] = {}
    for i, entry in enumerate(facts):
        for key in entry.indexed_keys:
            indexers.setdefault(key, []).append(i)
    found = []
    for j, entry in enumerate(facts):
        for key in entry.cited_keys - entry.indexed_keys:
            members = indexers.get(key, [])
            if len(members) == 1 and members[0] != j:
                found.append((members[0], j, key))
    return found


def containing_pairs(facts: list[Facts], candidates: set[tuple[int, int]]) -> dict[tuple[int, int], Evidence]:
    """Among ``candidates`` (pairs already sharing a rare word), those where one entry says nothing
    the other does not: every clause of it is in one clause of the other, word for word (stems, CJK
    pairs, numbers) and its code spans verbatim. A category line is never one of them."""
    found = {}
    words = [fact.said_words for fact in facts]  # (read once: the pairs can be many)
    for i, j in candidates:
        a, b = words[i], words[j]
        if len(a) > len(b):
            i, j, a, b = j, i, b, a
        # The smaller said wholly by the larger (or, of two the same size, either by the other).
        if len(a) >= MIN_CONTAINED_WORDS and a <= b and not (facts[i].label or facts[j].label):
            if a == b and not said_within(facts[i].clause_words, facts[j].clause_words):
                i, j = j, i  # the same words: either may be the one said whole
            if (facts[i].code_spans <= facts[j].code_spans
                    and said_within(facts[i].clause_words, facts[j].clause_words)):
                said_whole = f"line {facts[i].entry.line} is said whole by line {facts[j].entry.line}"
                found[(min(i, j), max(i, j))] = Evidence("contained", (said_whole,), STRONG["contained"])
    return found


def subject_pairs(facts: list[Facts]) -> dict[tuple[int, int], Evidence]:
    """Entries that open with the same code-span subject (not a command); what they say about it is
    weighed by the caller (``merge_candidates.candidate_pairs``)."""
    by_subject: dict[str, list[int]] = {}
    for i, entry in enumerate(facts):
        subject = entry.code_subject
        if subject and not subject.partition("#")[0].lower().endswith(DETAIL_EXTENSION):  # files: same-target
            by_subject.setdefault(subject, []).append(i)
    found: dict[tuple[int, int], Evidence] = {}
    for subject, members in by_subject.items():
        if len(members) == 2:
            found[(members[0], members[1])] = Evidence("same-subject", (f"`{subject}`",), STRONG["same-subject"])
    return found


def shared_words(entries: list[Entry], weights: Weights, i: int, j: int) -> tuple[str, ...]:
    """The words both entries say, rarest in this index first, as the first entry writes them."""
    common = weights.words[i] & weights.words[j]
    ranked = sorted(common, key=lambda w: (-weights.idf[w], w))[:EVIDENCE_WORDS]
    return tuple(surface(entries[i].text, word) for word in ranked)


def surface(text: str, word: str) -> str:
    """How ``text`` writes the stemmed word (the stem itself when no written word stems to it)."""
    return _written(text).get(word, word)


@caches.kept(maxsize=256)  # a text's words, each once, by stem: its pairs ask again
def _written(text: str) -> dict[str, str]:
    written: dict[str, str] = {}
    for word in dict.fromkeys(re.findall(r"\w+", prose(text).lower())):
        written.setdefault(stem(word), word)
    return written


def written_target(entry: Entry, key: str) -> str:
    """How ``entry`` writes the detail file ``key`` names (a link's path, a wikilink's name, a file name)."""
    for link in entry.pointers:
        if _link_key(link) == key:
            if link.kind == "wiki":
                return f"[[{link.wiki_name}]]"
            return link.path + (f"#{link.anchor}" if link.anchor else "")
    for name, anchor in BARE_FILE.findall(_without_targets(entry.text)):
        if detail_key(name, anchor) == key:
            return name + (f"#{anchor}" if anchor else "")
    return key
