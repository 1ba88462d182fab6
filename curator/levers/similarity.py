"""What two index entries have in common, weighed by how rare each shared word is in the index.

A bearer accepts a merge when two entries say the same thing, not when they share boilerplate: a
tag suffix (``→ **Workflows**: Plan-Driven Development``), a section word or a sentence template
that many entries carry says nothing about these two. So every word is weighed by its inverse
document frequency over the index's entries (a word in half the entries weighs almost nothing, a
word in two of them weighs a lot), and a pair is scored by the weight of the words it shares:

- ``overlap``: shared weight over the lighter entry's weight (1.0 when one says a subset of the
  other: a bare pointer beside the described one, a line that repeats part of another);
- ``dice``: shared weight over the mean of both (high only when both say mostly the same).

Words are what an entry says, link texts included (in ``- [Title](file.md) — hook`` the title is the
lesson), plus the words of the file names it links to. Pairs are found through an inverted index
over the rarer words only, so the cost grows with the pairs that share a rare word, not with the
square of the entries: a word in more than ``COMMON_SHARE`` of the entries never pairs anything up
(it still weighs, lightly, in the score).
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from curator import caches
from curator.index_model import Entry

WORD = re.compile(r"\w+(?:[.:'’]\w+)*")
STOPWORDS = frozenset("""
a an the and or but nor of to in on at by for with from into onto over under as is are was were be been
being am it its this that these those there here then than so if else when while which who whom whose what
where why how all any each every both few more most other some such no not only own same too very can will
just do does did done has have had having i you he she we they me him her us them my your his our their
s t via per vs etc e g eg ie also use used using see
""".split())
COMMON_SHARE = 0.2  # a word in more than this share of the entries (and at least MIN_COMMON) pairs nothing
MAX_COMMON = 32  # nor does a word in more entries than this, whatever the index size (bounds the pair count)
MIN_COMMON = 8
MAX_WORDS = 400  # an entry's distinct words beyond this add nothing to find (its rarest are kept)


def stem(word: str) -> str:
    """A light English stem, enough for plural and tense to meet: rules/rule, merged/merge."""
    if len(word) > 4 and not word[-1].isdigit():
        for suffix in ("ing", "ies", "es", "ed", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                if suffix == "ies":
                    return word[:-3] + "y"
                if suffix == "s" and word.endswith("ss"):
                    return word
                if suffix == "es" and not word[:-2].endswith(("s", "x", "z", "ch", "sh")):
                    continue  # "rules" is "rule" + s, not "rul" + es
                return _silent_e(word[: -len(suffix)])
    return _silent_e(word)


def _silent_e(word: str) -> str:
    """A final silent e goes, so that rule/rules and merge/merged/merging meet at one stem."""
    return word[:-1] if len(word) >= 4 and word.endswith("e") and word[-2] not in "aeiou" and word.isalpha() else word


# Han, kana and hangul: written without spaces between words (or with particles glued on), so a run of
# them is read as its overlapping character pairs: "实现了读取器" and "读取器已实现" share 读取, 取器.
CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]+")


def _cjk_pairs(word: str) -> tuple[str, ...]:
    """The word's CJK runs as character pairs (a run of one stays whole), its other letters as words."""
    parts = [run for piece in CJK_RUN.split(word) for run in WORD.findall(piece)]
    for run in CJK_RUN.findall(word):
        parts += [run] if len(run) == 1 else [run[n : n + 2] for n in range(len(run) - 1)]
    return tuple(parts)


@caches.kept(maxsize=4096)  # a merge asks again for the same clauses
def words_of(text: str) -> frozenset[str]:
    """The stemmed content words of a text (stopwords and one-letter words left out; CJK runs read as
    character pairs, their single characters kept)."""
    lowered = text.lower()
    if len(lowered) < 1024:
        words = set(WORD.findall(lowered))
    else:
        # Words never span whitespace: split in C, then look only at the distinct pieces (a long entry
        # repeats itself a lot, and this is what the whole WORD.findall would find).
        words = set()
        for piece in set(lowered.split()):
            words.update(WORD.findall(piece))
    if not lowered.isascii():
        for word in [w for w in words if CJK_RUN.search(w)]:
            words.discard(word)
            words.update(_cjk_pairs(word))
    return frozenset(map(stem, {word for word in words if len(word) > 1 or CJK_RUN.match(word)} - STOPWORDS))


def entry_words(entry: Entry) -> frozenset[str]:
    """What the entry says, as stemmed words (link texts kept; target file names add their words)."""
    found = set(words_of(entry.text))  # (the text, not the body: a merge asks for the same words)
    for link in entry.pointers:
        if link.kind == "file" and link.path:
            name = posixpath.splitext(posixpath.basename(link.path))[0].lower()
            found.update(stem(w) for w in re.split(r"[\W_]+", unquote(name)) if len(w) > 1 and w not in STOPWORDS)
        elif link.kind == "wiki":
            found.update(stem(w) for w in re.split(r"[\W_]+", link.wiki_name.lower()) if len(w) > 1)
    # Link targets spelled out in the text (URLs, file names) are words already; drop bare scheme noise.
    found.difference_update(("http", "https", "www", "com", "md"))
    return frozenset(found)


@dataclass(frozen=True)
class PairScore:
    overlap: float  # shared weight / lighter entry's weight
    dice: float  # shared weight / mean weight
    shared: float  # the shared weight itself (in idf units)
    words: int = 0  # how many words they share


class Weights:
    """Inverse document frequencies of the words of one index's entries."""

    def __init__(self, words: Sequence[frozenset[str]]):
        self.words = words
        count = len(words)
        df: dict[str, int] = defaultdict(int)
        for bag in words:
            for word in bag:
                df[word] += 1
        self.df = df
        self.idf = {word: math.log((count + 1) / n) for word, n in df.items()}
        self.total = [sum(self.idf[w] for w in bag) for bag in words]
        self.common = min(MAX_COMMON, max(MIN_COMMON, int(count * COMMON_SHARE)))
        # The weight of each entry's words too common to pair (or in it alone): what ``pairs`` does
        # not add up, so ``may_reach`` can bound a pair's score without scoring it.
        common = self.common
        self.unpaired = [sum(self.idf[w] for w in bag if df[w] > common) for bag in words]

    def may_reach(self, i: int, j: int, rare_shared: float, dice: float) -> bool:
        """Whether the pair's dice can reach ``dice`` given the rare weight it is known to share."""
        best = rare_shared + min(self.unpaired[i], self.unpaired[j])
        return 2 * best >= dice * (self.total[i] + self.total[j])

    def score(self, i: int, j: int) -> PairScore:
        a, b = self.words[i], self.words[j]
        if len(a) > len(b):
            a, b = b, a
        idf = self.idf
        common = [w for w in a if w in b]
        shared = sum(idf[w] for w in common)
        lighter = min(self.total[i], self.total[j]) or 1.0
        mean = (self.total[i] + self.total[j]) / 2 or 1.0
        return PairScore(shared / lighter, shared / mean, shared, len(common))

    def pairs(self) -> dict[tuple[int, int], float]:
        """Every pair (i < j) sharing at least one word rare enough to pair, with the weight of the
        rare words they share (a lower bound of their shared weight, for pruning)."""
        postings: dict[str, list[int]] = defaultdict(list)
        idf, df, common = self.idf, self.df, self.common
        for i, bag in enumerate(self.words):
            rare = [w for w in bag if df[w] <= common and df[w] > 1]
            if len(rare) > MAX_WORDS:
                rare = sorted(rare, key=lambda w: (df[w], w))[:MAX_WORDS]
            for word in rare:
                postings[word].append(i)
        shared: dict[tuple[int, int], float] = defaultdict(float)
        for word, members in postings.items():
            weight = idf[word]
            for x, i in enumerate(members):
                for j in members[x + 1 :]:
                    shared[(i, j)] += weight
        return shared
