"""Wikilink names: every name a ``[[wikilink]]`` may use for a file, its resolution and its probable typo."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

from curator.pointers.documents import Document
from curator.pointers.matching import _loose, _squashed
from curator.pointers.targets import is_markdown

class WikiNames:
    """Every name a ``[[wikilink]]`` may use, with the keys a lookup or a typo check needs, built
    once per check: resolving or diagnosing one wikilink never walks all the names."""

    def __init__(self, names: dict[str, str], spelling: dict[str, str], declared: dict[str, str]) -> None:
        self.names = names
        self.spelling = spelling  # file -> how a wikilink should name it
        self.declared = declared  # file -> its front-matter name:
        self.folded: dict[str, set[str]] = {}
        self.loose: dict[str, set[str]] = {}
        self.tails: dict[str, set[str]] = {}  # a loose name behind a one-word prefix, by what follows it
        self.squashed: dict[str, dict[str, str]] = {}  # squashed -> file -> a written form
        for written, target in names.items():
            self.folded.setdefault(written.casefold(), set()).add(target)
            key = _loose(written)
            if not key:
                continue
            self.loose.setdefault(key, set()).add(target)
            head, sep, rest = key.partition("-")
            if sep and head.isalpha() and "-" in rest:
                self.tails.setdefault(rest, set()).add(target)
            squashed = _squashed(written)
            if squashed:
                forms = self.squashed.setdefault(squashed, {})
                if target not in forms or written == declared.get(target):  # the declared name wins
                    forms[target] = written

    def resolve(self, name: str) -> str | None:
        """The file ``[[name]]`` names, or None (exact spelling first, then case-insensitive)."""
        if name in self.names:
            return self.names[name]
        hits = self.folded.get(name.casefold(), ())
        return next(iter(hits)) if len(hits) == 1 else None

    def typo(self, name: str) -> str | None:
        """The memory a ``[[name]]`` most likely meant, spelled so that it resolves: the same words
        but for case and ``-``/``_``, or the same but for a one-word prefix (``feedback_``) on
        either side; else the same letters and digits but for punctuation, spacing and full-width
        forms. Only one distinct file may fit."""
        key = _loose(name)
        if not key:
            return None
        hits = set(self.loose.get(key, ())) | self.tails.get(key, set())
        head, sep, rest = key.partition("-")
        if sep and head.isalpha() and "-" in rest:
            hits |= self.loose.get(rest, set())
        if len(hits) == 1:
            return self.spelling[hits.pop()]
        if hits:
            return None
        forms = self.squashed.get(_squashed(name), {})
        if len(forms) != 1:
            return None
        ((target, written),) = forms.items()
        # Its declared name as written (it may hold spaces: "A — B"), else the usual spelling.
        return written if written == self.declared.get(target) else self.spelling[target]


def wiki_spelling(docs: Mapping[str, Document], names: Mapping[str, str]) -> dict[str, str]:
    """file -> how a wikilink should name it: its front-matter ``name:`` if that is a slug (no
    spaces), else its stem."""
    spelling = {target: posixpath.splitext(posixpath.basename(target))[0] for target in set(names.values())}
    for name, doc in docs.items():
        if doc.front_matter.name and not any(char.isspace() for char in doc.front_matter.name):
            spelling[name] = doc.front_matter.name
    return spelling


def wiki_index(docs: Mapping[str, Document], files: Iterable[str]) -> dict[str, str]:
    """Every name a ``[[wikilink]]`` may use for a file: its front-matter ``name:`` first, then its
    path without ``.md``, its stem and its base name (the first file to claim a name keeps it)."""
    names: dict[str, str] = {}
    for name, doc in sorted(docs.items()):
        if doc.front_matter.name:
            names.setdefault(doc.front_matter.name, name)
    for name in sorted(files):
        base = posixpath.basename(name)
        for form in (name, name[:-3] if is_markdown(name) and name.lower().endswith(".md") else name,
                     posixpath.splitext(base)[0] if is_markdown(base) else base, base):
            names.setdefault(form, name)
    return names


def resolve_wikilink(name: str, names: Mapping[str, str]) -> str | None:
    """The file ``[[name]]`` names, or None (exact spelling first, then case-insensitive)."""
    if name in names:
        return names[name]
    folded = name.casefold()
    hits = {target for written, target in names.items() if written.casefold() == folded}
    return hits.pop() if len(hits) == 1 else None
