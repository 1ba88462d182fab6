"""The pointer graph of a memory directory: what links where, what is broken, what nothing reaches.

Links come from MEMORY.md, identity.md, ARCHIVE.md and every other markdown file in the memory
directory (dot-files and dot-directories are skipped), read with markdown-it via ``curator.markdown``.
Reported problems:

- dangling: a file link (images and ``file://`` links included) whose file does not exist, or whose
  ``#anchor`` names no heading there (GitHub slug rules), with a did-you-mean suggestion only when
  it is clearly the file or heading meant (the same name but for case, ``-``/``_``, a missing
  ``.md``; or a near spelling with the same numbers: never another day's log for a dated name; for
  an anchor, also the one heading it is the first words of: ``#profiling`` for "Profiling first");
  a ``[[wikilink]]`` that nearly matches an existing memory's name (a probable typo, with the fix:
  case, ``-``/``_``, a one-word prefix, punctuation, spacing and full-width forms);
- unwritten: a ``[[wikilink]]`` that names no memory yet (information, not a problem: in the harness's
  own convention it marks something worth writing later);
- escapes: a pointer that leaves the memory directory (``..``, an absolute path, a symlink) and does
  not land on an existing file of the same git repository;
- orphans: a memory file nothing reachable from MEMORY.md / identity.md / ARCHIVE.md / USER.md
  (Hermes) links to or names (an orphaned pointer is a deleted memory). A file counts as reached
  when a reachable file links it or names it bare: ``project_plan.md``, ``feedback_x`` (with or
  without backticks or ``.md``). Files that are not memories (README, CLAUDE, AGENTS, LICENSE, …)
  are never orphans;
- unlinked archive: an ARCHIVE.md that nothing reachable from MEMORY.md links or names (its entries
  are on disk but out of the agent's reach);
- unreadable: a markdown file that could not be read, or that is too large to analyse.

Information, never a problem: ``outside`` (a relative link that leaves the memory dir to a file or
directory that exists in the same git repository, such as ``../../CLAUDE.md``), ``named_only`` (files
reached only by a bare name, not a link) and ``unwritten``.

Wikilinks resolve by front-matter ``name:`` first, then by file stem or path; a link to a
directory reaches every file under it; a symlinked directory inside the memory dir is followed (one
that leads outside is an escape). Targets in the report are decoded, as people wrote them.
URLs and record ids are listed, never fetched or checked. ``overrides`` lets a caller check a
change before it is written. Parsed files are cached by (path, size, mtime_ns), so re-checking
after a keystroke in MEMORY.md re-parses nothing else. Every lookup is by dict (no pass over all
files or names per link), so a check costs about one markdown parse of the text it reads.
"""

from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz, process, utils

from curator import markdown
from curator.bounds import refuse_past
from curator.constants import ARCHIVE_NAME, IDENTITY_NAME, INDEX_NAME
from curator.errors import CuratorError
from curator.frontmatter import NONE, FrontMatter, front_matter_text, parse_front_matter
from curator.fsio import read_bytes
from curator.index_model import BOM, HotIndex
from curator.markdown import Link
from curator.slugs import github_slug, heading_slugs

# What a harness loads at boot: MEMORY.md, identity.md (kimi-code, opencode), USER.md (Hermes).
BOOT_NAMES = (INDEX_NAME, IDENTITY_NAME, "USER.md")
ROOT_NAMES = BOOT_NAMES + (ARCHIVE_NAME,)
MARKDOWN_SUFFIXES = (".md", ".markdown")
SUGGESTION_CUTOFF = 85
HTML_ID = re.compile(r"<a\b[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
# Files a repository keeps beside memories that are not memories: never orphans (by stem, any case).
NOT_MEMORY_STEMS = frozenset({"readme", "claude", "agents", "gemini", "license", "licence", "copying", "notice",
                              "changelog", "contributing", "code_of_conduct", "security"})
NOT_MEMORY_PREFIXES = ("license-", "licence-", "license_", "licence_")


@dataclass(frozen=True)
class Document:
    """What the pointer graph needs from one markdown file."""

    name: str  # path relative to the memory dir, '/'-separated
    links: tuple[Link, ...]
    slugs: tuple[str, ...]  # heading anchors in order, then explicit HTML ids
    front_matter: FrontMatter = NONE
    headings: tuple[str, ...] = ()  # heading texts, for [[name#Heading]]
    bare: tuple[str, ...] = ()  # words that may be a file named bare: `x.md`, feedback_x, @x.md
    # Where each file link resolves, per directory state: a cached detail file is not re-resolved.
    resolved: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Dangling:
    file: str
    line: int
    target: str
    reason: str  # "no such file" | "no such heading" | "probable typo in wikilink"
    suggestion: str | None = None


@dataclass(frozen=True)
class Unwritten:
    """A ``[[wikilink]]`` to a memory nobody has written yet (information, not a problem)."""

    file: str
    line: int
    target: str


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


# -- parsing, cached ---------------------------------------------------------------------------

def decode(raw: bytes) -> str:
    if raw.startswith(BOM):
        raw = raw[len(BOM):]
    return raw.decode("utf-8", errors="replace")


def _html_ids(text: str) -> list[str]:
    return HTML_ID.findall(text) if "<a" in text.lower() else []


# A bare file name: what ends in .md, a snake_case word, or a whole code span / parenthesis.
_MD_END = re.compile(r"\.(?:md|markdown)(?![\w-])", re.IGNORECASE)
_SEPARATORS = "\\s`'\"()\\[\\]{}<>|,;!?*=，。；：、（）「」『』【】《》"
_TOKEN_START = re.compile(f"[{_SEPARATORS}][^{_SEPARATORS}]*$")
_SNAKE = re.compile(r"(?<![\w./-])[A-Za-z0-9][\w-]*_[\w-]*[A-Za-z0-9](?![\w/-]|\.\w)")
_WRAPPED = re.compile(r"`([^`\s]{2,200})`|\(([^()\s]{2,200})\)")
_NAME_LIKE = re.compile(r"[-_./\d]")
MAX_NAME = 300  # no file name is longer: the scan back from ".md" stops here


def bare_names(text: str) -> tuple[str, ...]:
    """Every word of ``text`` that may name a file bare, once each, in no particular order. A scan
    of the text by compiled patterns: linear, whatever its size."""
    found: set[str] = set()
    for match in _MD_END.finditer(text):
        lo = max(0, match.start() - MAX_NAME)
        start = _TOKEN_START.search(text, lo, match.start())
        word = text[start.start() + 1 if start else lo:match.end()]
        found.add(word.rpartition(":")[2] if "://" not in word else "")
    found.update(_SNAKE.findall(text))
    for code, paren in _WRAPPED.findall(text):
        # A whole code span may be a plain word (`user`); a parenthesis only a name-like one.
        found.add(code or (paren if _NAME_LIKE.search(paren) else ""))
    found.discard("")
    return tuple(found)


def parse_document(name: str, raw: bytes) -> Document:
    text = decode(raw)
    tokens = markdown.parse(text)
    headings = [title for _level, title, _line in markdown.headings_in_tokens(tokens)]
    slugs = heading_slugs(headings) + _html_ids(text)
    return Document(name, tuple(markdown.links_in_tokens(tokens)), tuple(slugs),
                    parse_front_matter(front_matter_text(tokens)), tuple(headings), bare_names(text))


def document_from_index(index: HotIndex, name: str = INDEX_NAME) -> Document:
    """Reuse the index model's parse: no second markdown pass over MEMORY.md."""
    headings = [title for _level, title, _line in index.headings]
    slugs = heading_slugs(headings)
    text = decode(index.raw)
    return Document(name, index.links, tuple(slugs) + tuple(_html_ids(text)),
                    parse_front_matter(index.front_matter), tuple(headings), bare_names(text))


_disk_cache: dict[str, tuple[int, int, Document]] = {}
# Proposed contents (overrides) by value: the app re-checks the same proposal on every redraw.
_from_content = lru_cache(maxsize=16)(parse_document)


def _from_disk(name: str, path: Path, size: int, mtime_ns: int) -> Document:
    key = str(path)
    cached = _disk_cache.get(key)
    if cached and cached[0] == size and cached[1] == mtime_ns:
        return cached[2]
    doc = parse_document(name, read_bytes(path, allow_symlink=True))
    _disk_cache[key] = (size, mtime_ns, doc)
    return doc


def clear_cache() -> None:
    _disk_cache.clear()
    _from_content.cache_clear()


# -- the directory -----------------------------------------------------------------------------

@dataclass
class Tree:
    """Files and directories under the memory dir, by '/'-separated relative name."""

    files: dict[str, os.stat_result] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    outside: set[str] = field(default_factory=set)  # symlinks (files or dirs) that leave the dir
    aliases: dict[str, str] = field(default_factory=dict)  # symlinked dir -> the walked dir it is


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def scan(memory_dir: Path, real_root: str) -> Tree:
    """Walk the memory dir's real directories, then its symlinked ones: a symlinked directory that
    leads to a directory already walked is an alias of it (``link/x.md`` is that directory's
    ``x.md``); one that leads elsewhere inside is walked under its own name; one that leads outside
    is only recorded, never followed."""
    tree = Tree()
    walked = {real_root: ""}
    links: list[tuple[str, str]] = []
    pending = [("", str(memory_dir))]
    while pending or links:
        if not pending:  # real directories first, so an alias knows what it stands for
            name, path = links.pop(0)
            real = os.path.realpath(path)
            if real in walked:
                tree.aliases[name] = walked[real]
                continue
            walked[real] = name
            pending.append((name + "/", path))
        prefix, directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            name = prefix + entry.name
            try:
                if entry.is_symlink():
                    if not _inside(os.path.realpath(entry.path), real_root):
                        tree.outside.add(name)
                        continue
                    if entry.is_dir():
                        tree.dirs.add(name)
                        links.append((name, entry.path))
                        continue
                if entry.is_dir():
                    tree.dirs.add(name)
                    walked[os.path.realpath(entry.path)] = name
                    pending.append((name + "/", entry.path))
                elif entry.is_file():
                    tree.files[name] = entry.stat()
            except OSError:
                continue
    return tree


def is_markdown(name: str) -> bool:
    return name.lower().endswith(MARKDOWN_SUFFIXES)


def is_memory(name: str) -> bool:
    """A markdown file a memory dir holds as a memory: not a README, CLAUDE.md, LICENSE, … kept
    there for people or for another tool."""
    stem = posixpath.splitext(posixpath.basename(name))[0].lower()
    return stem not in NOT_MEMORY_STEMS and not stem.startswith(NOT_MEMORY_PREFIXES)


def repo_root(real_root: str) -> str | None:
    """The git work tree the memory dir sits in (the nearest directory above it holding ``.git``)."""
    current = real_root
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


# -- resolution --------------------------------------------------------------------------------

def resolve(source: str, link: Link, memory_dir: Path, real_root: str, tree: Tree) -> tuple[str | None, str | None]:
    """(target name inside the memory dir, escape reason). Exactly one is set."""
    path = link.path
    if not path:
        return source, None  # "?x" or "#x" forms of a file link point at the file itself
    if path.startswith("~"):
        return None, "home-relative path leaves the memory dir"
    if path.startswith("/"):
        absolute = os.path.normpath(path)
        for root in (str(memory_dir.absolute()), real_root):
            if _inside(absolute, root):
                rel = os.path.relpath(absolute, root).replace(os.sep, "/")
                return ("" if rel == "." else rel), None
        return None, "absolute path outside the memory dir"
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    if joined == ".." or joined.startswith("../"):
        back = os.path.normpath(os.path.join(real_root, joined))
        if _inside(back, real_root):  # ../memory/x.md from inside "memory": back in the dir
            rel = os.path.relpath(back, real_root).replace(os.sep, "/")
            return ("" if rel == "." else rel), None
        return None, "'..' leaves the memory dir"
    if joined == ".":
        return "", None
    parts = joined.split("/")
    for depth in range(1, len(parts) + 1):
        head = "/".join(parts[:depth])
        if head in tree.outside:
            return None, "symlink leads outside the memory dir"
        if head in tree.aliases:  # through a symlinked directory to the one it stands for
            real = tree.aliases[head]
            return (real + "/" if real else "") + "/".join(parts[depth:]) if depth < len(parts) else real, None
    return joined, None


def in_repo(source: str, link: Link, real_root: str, repo: str | None) -> str | None:
    """Where a relative ``..`` link that left the memory dir lands in the git repository around it,
    repo-relative, if something exists there; None if it leaves the repository or lands nowhere."""
    if repo is None or link.path.startswith(("/", "~")):
        return None
    landed = os.path.realpath(os.path.join(real_root, posixpath.dirname(source), link.path))
    if not _inside(landed, repo) or not os.path.exists(landed):
        return None
    return os.path.relpath(landed, repo).replace(os.sep, "/")


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


def _relative_to(source: str, target: str) -> str:
    base = posixpath.dirname(source) or "."
    return posixpath.relpath(target, base)


class BareNames:
    """Which memory file a bare word names, if any: ``dir/x.md`` relative to the file that says it or
    to the memory dir, a path that ends in a memory's path (``.claude/memory/x.md``), a base name or
    stem that only one memory has."""

    def __init__(self, docs: Iterable[str]) -> None:
        self.docs = set(docs)
        self.base: dict[str, list[str]] = {}
        self.stem: dict[str, list[str]] = {}
        for name in self.docs:
            base = posixpath.basename(name)
            self.base.setdefault(base, []).append(name)
            self.stem.setdefault(posixpath.splitext(base)[0], []).append(name)

    def target(self, source: str, word: str) -> str | None:
        word = word.split("#", 1)[0].lstrip("@").rstrip(".:")
        if not word or "://" in word:
            return None
        if not is_markdown(word):
            if "/" in word:
                word += ".md"
            else:
                hits = self.stem.get(word, ())
                return hits[0] if len(hits) == 1 else None
        here = posixpath.normpath(posixpath.join(posixpath.dirname(source), word))
        if here in self.docs:
            return here
        parts = [part for part in posixpath.normpath(word).split("/") if part not in ("", ".", "..")]
        for depth in range(len(parts), 1, -1):
            tail = "/".join(parts[-depth:])
            if tail in self.docs:
                return tail
        hits = self.base.get(parts[-1], ()) if parts else ()
        return hits[0] if len(hits) == 1 else None


def _reach(roots: Iterable[str], *edge_maps: Mapping[str, set[str]]) -> set[str]:
    reached: set[str] = set()
    stack = list(roots)
    while stack:
        current = stack.pop()
        if current in reached:
            continue
        reached.add(current)
        for edges in edge_maps:
            stack.extend(edges.get(current, ()))
    return reached


# -- the check ---------------------------------------------------------------------------------

def check_pointers(
    memory_dir: Path,
    *,
    overrides: Mapping[str, bytes | None] | None = None,
    parsed_index: HotIndex | None = None,
) -> PointerReport:
    """The pointer report of ``memory_dir`` as it would be with ``overrides`` applied.

    ``overrides`` maps a file name relative to the memory dir to proposed bytes (``None``: the file
    is removed). ``parsed_index`` is MEMORY.md already parsed (its bytes win over disk and
    overrides), so an editor's keystroke costs one parse, not two.
    """
    memory_dir = Path(memory_dir)
    overrides = dict(overrides or {})
    real_root = os.path.realpath(memory_dir)
    tree = scan(memory_dir, real_root)
    report = PointerReport(memory_dir)

    names = {name for name in tree.files if is_markdown(name)}
    names.update(name for name, data in overrides.items() if data is not None and is_markdown(name))
    names.difference_update(name for name, data in overrides.items() if data is None)
    if parsed_index is not None:
        names.add(INDEX_NAME)

    docs: dict[str, Document] = {}
    for name in sorted(names):
        try:
            if name == INDEX_NAME and parsed_index is not None:
                docs[name] = document_from_index(parsed_index)
            elif name in overrides:
                docs[name] = _from_content(name, overrides[name] or b"")
            else:
                info = tree.files[name]
                refuse_past(info.st_size, name, "the pointer check")
                docs[name] = _from_disk(name, memory_dir / name, info.st_size, info.st_mtime_ns)
        except CuratorError as err:
            report.unreadable.append(Unreadable(name, err.message))

    existing_files = (set(tree.files) | set(docs)) - {n for n, d in overrides.items() if d is None}
    existing_files |= {n for n, d in overrides.items() if d is not None}
    file_choices = Choices(sorted(existing_files))
    wiki_names = report.wiki_names = wiki_index(docs, existing_files)
    wiki = report.wiki = WikiNames(wiki_names, wiki_spelling(docs, wiki_names),
                                   {name: doc.front_matter.name for name, doc in docs.items() if doc.front_matter.name})
    under: dict[str, list[str]] = {}  # a linked directory -> the files under it, found once
    anchors: dict[str, Anchors] = {}  # per target file, built on its first anchor
    repo: list[str | None] = []  # found on the first link that leaves the dir

    edges: dict[str, set[str]] = {name: set() for name in docs}
    state = (str(memory_dir), real_root, frozenset(tree.outside), tuple(sorted(tree.aliases.items())))
    for name, doc in docs.items():
        report.links_by_file[name] = doc.links
        if doc.front_matter is not NONE:
            report.front_matter[name] = doc.front_matter
        resolutions = doc.resolved.get(state)
        if resolutions is None:
            resolutions = [resolve(name, link, memory_dir, real_root, tree) if link.kind == "file" else None
                           for link in doc.links]
            doc.resolved.clear()  # one directory state per document is all a session needs
            doc.resolved[state] = resolutions
        for link, resolution in zip(doc.links, resolutions):
            if link.kind == "anchor":
                _check_anchor(report, name, link, name, docs, link.shown, anchors)
                continue
            if link.kind == "wiki":
                _check_wikilink(report, name, link, wiki, docs, edges, anchors)
                continue
            if resolution is None:
                continue
            target, escape = resolution
            if escape is not None:
                if not repo:
                    repo.append(repo_root(real_root))
                landed = in_repo(name, link, real_root, repo[0]) if escape.startswith("'..'") else None
                if landed is not None:
                    report.outside.append(Outside(name, link.line, link.shown, landed))
                else:
                    report.escapes.append(Escape(name, link.line, link.shown, escape))
                continue
            assert target is not None
            if target == "":
                continue  # the memory dir itself: exists, nothing to follow
            if target in tree.dirs:  # a directory: it reaches every file under it
                if target not in under:
                    under[target] = [doc_name for doc_name in docs if doc_name.startswith(target + "/")]
                edges[name].update(under[target])
                continue
            if target not in existing_files:
                guess = file_choices.suggest(target, source=name)
                report.dangling.append(
                    Dangling(name, link.line, link.shown, "no such file",
                             _relative_to(name, guess) if guess else None)
                )
                continue
            if target in docs:
                edges[name].add(target)
                _check_anchor(report, name, link, target, docs, link.shown.split("#", 1)[0], anchors)

    bare = BareNames(docs)
    named: dict[str, set[str]] = {}
    for name, doc in docs.items():
        targets = {bare.target(name, word) for word in doc.bare} - {None, name}
        if targets:
            named[name] = targets  # type: ignore[assignment]

    linked = _reach([root for root in ROOT_NAMES if root in docs], edges)
    reached = _reach([root for root in ROOT_NAMES if root in docs], edges, named)
    report.orphans = sorted(name for name in docs
                            if name not in reached and name not in ROOT_NAMES and is_memory(name))
    report.named_only = sorted(name for name in reached - linked if is_memory(name))
    if ARCHIVE_NAME in docs and ARCHIVE_NAME not in _reach([r for r in BOOT_NAMES if r in docs], edges, named):
        report.unlinked_archive = ARCHIVE_NAME
    report.files = tuple(sorted(docs))
    return report


def wiki_spelling(docs: Mapping[str, Document], names: Mapping[str, str]) -> dict[str, str]:
    """file -> how a wikilink should name it: its front-matter ``name:`` if that is a slug (no
    spaces), else its stem."""
    spelling = {target: posixpath.splitext(posixpath.basename(target))[0] for target in set(names.values())}
    for name, doc in docs.items():
        if doc.front_matter.name and not any(char.isspace() for char in doc.front_matter.name):
            spelling[name] = doc.front_matter.name
    return spelling


def wiki_index(docs: Mapping[str, Document], files) -> dict[str, str]:
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


def _check_wikilink(report: PointerReport, source: str, link: Link, wiki: WikiNames,
                    docs: dict[str, Document], edges: dict[str, set[str]], anchors: dict[str, Anchors]) -> None:
    wanted = link.wiki_name
    target = wiki.resolve(wanted) if wanted else source  # [[#Heading]]: this file
    if target is None:
        fix = wiki.typo(wanted)
        if fix is None:
            report.unwritten.append(Unwritten(source, link.line, link.target))
            return
        # A probable typo still reaches the file it meant: that file is not an orphan.
        meant = wiki.resolve(fix)
        if meant in docs:
            edges[source].add(meant)
        heading = f"#{link.anchor}" if link.anchor else ""
        report.dangling.append(Dangling(source, link.line, f"[[{link.target}]]", "probable typo in wikilink",
                                        f"[[{fix}{heading}]]"))
        return
    if target in docs:
        edges[source].add(target)
        heading = link.anchor
        known = _anchors(anchors, docs, target)
        if heading and not known.has_heading(heading):
            guess = known.suggest_heading(heading)
            report.dangling.append(Dangling(source, link.line, f"[[{link.target}]]", "no such heading",
                                            f"[[{wanted}#{guess}]]" if guess else None))


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
