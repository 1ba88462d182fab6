"""The pointer report and the problems and notes it lists."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from curator.frontmatter import NONE, FrontMatter
from curator.markdown import Link
from curator.pointers.wikilinks import WikiNames, resolve_wikilink

@dataclass(frozen=True)
class Dangling:
    file: str
    line: int
    target: str
    reason: str  # "no such file" | "no such heading"
    suggestion: str | None = None


@dataclass(frozen=True)
class Unwritten:
    """A ``[[wikilink]]`` to a memory nobody has written yet (information, not a problem)."""

    file: str
    line: int
    target: str


@dataclass(frozen=True)
class Probable:
    """A ``[[wikilink]]`` that names no memory as written but probably means one (respelled: ``-``
    for ``_``, a type word left out, punctuation): a question for the bearer, not a problem. The
    link still reaches ``meant`` (it is no orphan); ``spelling`` is the link that would resolve."""

    file: str
    line: int
    target: str  # the link as written, ``[[name#heading]]``
    meant: str  # the memory file, relative to the memory dir
    spelling: str
    why: str

    @property
    def question(self) -> str:
        return f"{self.target} probably means {self.meant} ({self.why}): write {self.spelling}?"


@dataclass(frozen=True)
class Escape:
    file: str
    line: int
    target: str
    reason: str


@dataclass(frozen=True)
class Outside:
    """A relative link that leaves the memory dir to something that exists in the same git
    repository (``../../CLAUDE.md``): information, not a problem. ``path`` is repo-relative."""

    file: str
    line: int
    target: str
    path: str


@dataclass(frozen=True)
class Unreadable:
    file: str
    message: str


@dataclass
class PointerReport:
    memory_dir: Path
    dangling: list[Dangling] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    escapes: list[Escape] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    unwritten: list[Unwritten] = field(default_factory=list)  # not counted as problems
    probable: list[Probable] = field(default_factory=list)  # questions, not counted as problems
    outside: list[Outside] = field(default_factory=list)  # not counted as problems
    named_only: list[str] = field(default_factory=list)  # reached by a bare name only; not a problem
    unlinked_archive: str | None = None  # ARCHIVE.md when it exists and nothing reachable links it
    links_by_file: dict[str, tuple[Link, ...]] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # every markdown file considered
    front_matter: dict[str, FrontMatter] = field(default_factory=dict)  # files that declare any
    wiki_names: dict[str, str] = field(default_factory=dict)  # every name a [[wikilink]] may use -> file
    wiki: WikiNames | None = field(default=None, repr=False, compare=False)  # the same, indexed

    @property
    def problem_count(self) -> int:
        return (len(self.dangling) + len(self.orphans) + len(self.escapes) + len(self.unreadable)
                + (1 if self.unlinked_archive else 0))

    def detail(self, name: str) -> FrontMatter:
        """What file ``name`` declares in its front matter (``type``, ``description``, ``name``)."""
        return self.front_matter.get(name, NONE)

    def linked_file(self, link: Link, source: str = "MEMORY.md") -> str | None:
        """The memory file a file link or ``[[wikilink]]`` of ``source`` names, if it exists."""
        if link.kind == "wiki":
            if self.wiki is not None:
                return self.wiki.resolve(link.wiki_name)
            return resolve_wikilink(link.wiki_name, self.wiki_names)
        if link.kind != "file" or not link.path:
            return None
        name = posixpath.normpath(posixpath.join(posixpath.dirname(source), link.path))
        return name if name in self.links_by_file else None  # (every markdown file read)
