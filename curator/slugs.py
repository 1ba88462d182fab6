"""GitHub heading anchors: the slug a heading gets, and ``-1``, ``-2`` for repeats.

Follows github-slugger (what github.com uses): lower-case; keep letters, numbers, combining marks,
connector punctuation (``_``), ``-`` and spaces; drop everything else (other punctuation, symbols,
emoji); then each space becomes ``-`` (runs are not collapsed). A repeated slug gets ``-1``, ``-2``, …,
skipping any suffix another heading already took.
"""

from __future__ import annotations

import unicodedata


def _kept(char: str) -> bool:
    if char in "- " or char.isalnum():
        return True
    category = unicodedata.category(char)
    return category[0] == "M" or category == "Pc"


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
