"""Did-you-mean for names: the same but for case or separators, or a near spelling with the same numbers."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rapidfuzz import fuzz, process, utils

SUGGESTION_CUTOFF = 85


DIGITS = re.compile(r"\d+")
SUGGESTION_MARGIN = 8  # the best guess must beat the next one by this much to be "clearly" meant
_LOOSE_SEPARATORS = re.compile(r"[-_\s]+")


def _loose(text: str) -> str:
    """Case, '-'/'_'/space and a trailing .md do not tell two names apart."""
    text = text.lower()
    if text.endswith(".md"):
        text = text[:-3]
    return _LOOSE_SEPARATORS.sub("-", text).strip("-")


def _squashed(text: str) -> str:
    """Only the letters and digits, folded: case, punctuation, symbols, spacing and full-width forms
    do not tell two names apart (``A，B`` is ``A — B``)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if text.endswith(".md"):
        text = text[:-3]
    return "".join(char for char in text if char.isalnum())


class Choices:
    """Names a did-you-mean may offer, indexed once so that each question costs a dict lookup and
    one fuzzy pass over the few names in the same directory with the same numbers."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = list(names)
        self.loose: dict[str, list[str]] = {}
        self.loose_base: dict[str, list[str]] = {}
        self.by_folder_numbers: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        self.nested = False
        for name in self.names:
            folder, _, base = name.rpartition("/")
            self.nested = self.nested or bool(folder)
            self.loose.setdefault(_loose(name), []).append(name)
            self.loose_base.setdefault(_loose(base), []).append(name)
            self.by_folder_numbers.setdefault((folder, tuple(DIGITS.findall(base))), []).append(name)

    def suggest(self, query: str, *, source: str = "") -> str | None:
        """The choice the query clearly meant, or None. Clearly: the same name but for case,
        ``-``/``_`` or ``.md`` (for a path: the same file name in exactly one directory); or else, in
        the same directory, a close spelling (ratio >= SUGGESTION_CUTOFF) that carries the same
        numbers (a dated name never gets another date, ``phase2`` never ``phase5``) and beats every
        other choice by a margin. A guess that is merely the nearest of many is no help; the file
        that holds the link is never its own suggestion."""
        if not query:
            return None
        same = [name for name in self.loose.get(_loose(query), ()) if name != source]
        if len(same) == 1:
            return same[0]
        folder, _, base = query.rpartition("/")
        if "/" in query or self.nested:
            same = [name for name in self.loose_base.get(_loose(base), ()) if name != source]
            if len(same) == 1:
                return same[0]
        else:
            folder = ""
        fitting = [name for name in self.by_folder_numbers.get((folder, tuple(DIGITS.findall(base))), ())
                   if name != source]
        if not fitting:
            return None
        best = process.extract(base, {c: c.rpartition("/")[2] for c in fitting}, scorer=fuzz.ratio,
                               processor=utils.default_process, limit=2)
        if not best or best[0][1] < SUGGESTION_CUTOFF:
            return None
        if len(best) > 1 and best[0][1] - best[1][1] < SUGGESTION_MARGIN:
            return None
        return best[0][2] if _same_words(base, best[0][2].rpartition("/")[2]) else None


def _same_words(a: str, b: str) -> bool:
    """Word for word the same but for a slip of the keys: ``pr-review`` is not ``adr-review``."""
    left, right = _loose(a).split("-"), _loose(b).split("-")
    return len(left) == len(right) and all(
        x == y or fuzz.ratio(x, y) >= SUGGESTION_CUTOFF - 10 for x, y in zip(left, right))


def heading_prefix(anchor: str, slugs: Iterable[str]) -> str | None:
    """The one heading slug that starts with ``anchor``'s words (``profiling`` -> ``profiling-first``)."""
    key = _loose(anchor)
    if not key:
        return None
    hits = {slug for slug in slugs if _loose(slug).startswith(key + "-")}
    return hits.pop() if len(hits) == 1 else None
