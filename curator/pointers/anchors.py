"""Heading anchors: whether ``#anchor`` names a heading, and the heading it clearly meant."""

from __future__ import annotations

from curator.markdown import Link
from curator.pointers.documents import Document
from curator.pointers.matching import Choices, heading_prefix
from curator.pointers.reports import Dangling, PointerReport
from curator.slugs import github_slug, heading_slugs

class Anchors:
    """One file's heading anchors as a set, and its did-you-mean index on the first miss."""

    def __init__(self, doc: Document) -> None:
        self.slugs = doc.slugs
        self.headings = doc.headings
        self.slug_set = set(doc.slugs)
        self.heading_set = set(doc.headings)
        self._choices: Choices | None = None
        self._heading_choices: Choices | None = None

    def has(self, anchor: str) -> bool:
        """``#anchor`` names a heading (its slug, in any case) or an HTML id."""
        return anchor in self.slug_set or anchor.lower() in self.slug_set

    def has_heading(self, heading: str) -> bool:
        """``[[file#Heading]]`` names a heading by its text or its slug."""
        return heading in self.heading_set or github_slug(heading) in self.slug_set or self.has(heading)

    def suggest(self, anchor: str) -> str | None:
        """The slug ``#anchor`` clearly meant: a near spelling, or the one heading it begins."""
        if self._choices is None:
            self._choices = Choices(self.slugs)
        return self._choices.suggest(anchor) or heading_prefix(anchor, self.slugs)

    def suggest_heading(self, heading: str) -> str | None:
        """The heading text ``[[file#Heading]]`` clearly meant, by the same rules."""
        if self._heading_choices is None:
            self._heading_choices = Choices(self.headings)
        guess = self._heading_choices.suggest(heading)
        if guess is None:
            slugs = heading_slugs(self.headings)
            slug = heading_prefix(github_slug(heading), slugs)
            guess = self.headings[slugs.index(slug)] if slug else None
        return guess


def _anchors(anchors: dict[str, Anchors], docs: dict[str, Document], target: str) -> Anchors:
    if target not in anchors:
        anchors[target] = Anchors(docs[target])
    return anchors[target]


def _check_anchor(report: PointerReport, source: str, link: Link, target: str,
                  docs: dict[str, Document], written_path: str, anchors: dict[str, Anchors]) -> None:
    anchor = link.anchor
    if not anchor:
        return
    known = _anchors(anchors, docs, target)
    if known.has(anchor):
        return
    guess = known.suggest(anchor)
    path = "" if link.kind == "anchor" else written_path
    report.dangling.append(
        Dangling(source, link.line, link.shown, "no such heading", f"{path}#{guess}" if guess else None)
    )
