"""Wikilink names: every name a ``[[wikilink]]`` may use for a file, its resolution and the file a respelled one probably means."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from curator.pointers.documents import Document
from curator.pointers.matching import _loose, _squashed
from curator.pointers.targets import is_markdown

# Claude Code's memory types: its prompt names files `user_role.md`, `feedback_testing.md`, so a type
# word in front of a name is the one part a link may leave out or add.
MEMORY_TYPES = frozenset({"user", "feedback", "project", "reference"})


@dataclass(frozen=True)
class Meant:
    """The one memory a ``[[name]]`` that resolves to nothing probably means, and why."""

    file: str
    spelling: str  # how a wikilink names it so that it resolves: its name: (a slug) or its stem
    why: str


class WikiNames:
    """Every name a ``[[wikilink]]`` may use, with the keys a lookup or a probable match needs, built
    once per check: resolving or diagnosing one wikilink never walks all the names.

    Resolved is what Claude Code's convention makes certain: the other memory's ``name:`` (its
    prompt: "``[[name]]``, where ``name`` is the other memory's ``name:`` slug"), or the file's stem
    or path, as written but for case. Anything looser is only probable: the harness resolves
    nothing itself, the model looks for the file, so a respelled link is a question, not a fact."""

    def __init__(self, names: dict[str, str], spelling: dict[str, str], declared: dict[str, str],
                 types: Mapping[str, str] | None = None) -> None:
        self.names = names
        self.spelling = spelling  # file -> how a wikilink should name it
        self.declared = declared  # file -> its front-matter name:
        self.types = dict(types or {})  # file -> its front-matter type
        self.folded: dict[str, set[str]] = {}
        self.loose: dict[str, dict[str, str]] = {}  # loose key -> file -> a written form
        self.untyped: dict[str, dict[str, tuple[str, str]]] = {}  # key behind a type word -> file -> (form, word)
        self.squashed: dict[str, dict[str, str]] = {}  # squashed -> file -> a written form
        for written, target in names.items():
            self.folded.setdefault(written.casefold(), set()).add(target)
            key = _loose(written)
            if not key:
                continue
            _keep(self.loose.setdefault(key, {}), target, written, declared)
            head, sep, rest = key.partition("-")
            if sep and rest and self._is_type(head, target):
                self.untyped.setdefault(rest, {}).setdefault(target, (written, head))
            squashed = _squashed(written)
            if squashed:
                _keep(self.squashed.setdefault(squashed, {}), target, written, declared)

    def _is_type(self, word: str, target: str) -> bool:
        """A memory-type word for this file: one of the harness's four, or the type it declares."""
        return word in MEMORY_TYPES or (bool(word) and _loose(self.types.get(target, "")) == word)

    def resolve(self, name: str) -> str | None:
        """The file ``[[name]]`` names, or None (exact spelling first, then case-insensitive)."""
        if name in self.names:
            return self.names[name]
        hits = self.folded.get(name.casefold(), ())
        return next(iter(hits)) if len(hits) == 1 else None

    def _what(self, target: str, written: str) -> str:
        return f"its name: `{written}`" if written == self.declared.get(target) else f"its file name `{written}`"

    def probable(self, name: str) -> Meant | None:
        """The one memory ``[[name]]`` most likely means when it resolves to none: the same words
        but for case and ``-``/``_``/spaces; else the same but for a memory-type word in front
        (``feedback_``: one of the harness's four types, or the type the file declares), left out
        or added; else the same letters and digits but for punctuation, spacing and full-width
        forms. Only one distinct file may fit; None otherwise."""
        key = _loose(name)
        if not key:
            return None
        same = self.loose.get(key, {})
        if len(same) == 1:
            ((target, written),) = same.items()
            return Meant(target, self.spelling[target],
                         f"{self._what(target, written)} but for case, `-`/`_` or spaces")
        if same:
            return None
        typed: dict[str, str] = {}
        for target, (written, word) in self.untyped.get(key, {}).items():
            typed[target] = f"{self._what(target, written)} without its type word `{word}`"
        head, sep, rest = key.partition("-")
        for target, written in (self.loose.get(rest, {}) if sep else {}).items():
            if self._is_type(head, target):
                typed.setdefault(target, f"{self._what(target, written)} with the type word `{head}` added")
        if len(typed) == 1:
            ((target, why),) = typed.items()
            return Meant(target, self.spelling[target], why + "; case and `-`/`_` set aside")
        if typed:
            return None
        forms = self.squashed.get(_squashed(name), {})
        if len(forms) != 1:
            return None
        ((target, written),) = forms.items()
        # Its declared name as written (it may hold spaces: "A — B"), else the usual spelling.
        fix = written if written == self.declared.get(target) else self.spelling[target]
        return Meant(target, fix, f"{self._what(target, written)} but for punctuation, spacing or full-width forms")


def _keep(forms: dict[str, str], target: str, written: str, declared: Mapping[str, str]) -> None:
    """One written form per file under a key: its declared name wins, else the first."""
    if target not in forms or written == declared.get(target):
        forms[target] = written


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
