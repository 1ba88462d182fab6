"""GitHub heading anchors: the slug a heading gets, and ``-1``, ``-2`` for repeats.

Follows github-slugger (what github.com uses): lower-case; keep letters, combining marks, decimal and
letter numbers (``Nd``, ``Nl``: ``7``, ``٥``, ``Ⅻ``), connector punctuation (``_``), ``-``, spaces, and
the symbols Unicode counts as alphabetic (circled and squared letters such as ``Ⓐ``); drop everything
else: other numbers (``²``, ``½``, ``①``), other punctuation, symbols, emoji, controls, other spaces.
Then each space becomes ``-`` (runs are not collapsed). A repeated slug gets ``-1``, ``-2``, …,
skipping any suffix another heading already took. ``tests/data/github-slugger/fixtures.json`` (the
slugger's own fixtures) pins this.
"""

from __future__ import annotations

import unicodedata

KEPT_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "Pc"})
# Symbols (So) with the Alphabetic property (Other_Alphabetic): circled, squared and negative
# circled/squared Latin letters. github-slugger keeps them ("letter-like").
ALPHABETIC_SYMBOLS = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))


def _kept(char: str) -> bool:
    if char in "- " or unicodedata.category(char) in KEPT_CATEGORIES:
        return True
    point = ord(char)
    return any(low <= point <= high for low, high in ALPHABETIC_SYMBOLS)


def github_slug(heading: str) -> str:
    return "".join(char for char in heading.lower() if _kept(char)).replace(" ", "-")


class Slugger:
    """Unique slugs for the headings of one document, in order."""

    def __init__(self) -> None:
        self.occurrences: dict[str, int] = {}

    def slug(self, heading: str) -> str:
        result = original = github_slug(heading)
        while result in self.occurrences:
            self.occurrences[original] += 1
            result = f"{original}-{self.occurrences[original]}"
        self.occurrences[result] = 0
        return result


def heading_slugs(headings: list[str] | tuple[str, ...]) -> list[str]:
    slugger = Slugger()
    return [slugger.slug(heading) for heading in headings]
