"""The pointer graph of a memory directory: what links where, what is broken, what nothing reaches.

Links come from MEMORY.md, identity.md, ARCHIVE.md and every other markdown file in the memory
directory (dot-files and dot-directories are skipped), read with markdown-it via ``curator.markdown``.
Reported problems:

- dangling: a file link (images and ``file://`` links included) whose file does not exist, or whose
  ``#anchor`` names no heading there (GitHub slug rules), with a did-you-mean suggestion only when
  it is clearly the file or heading meant (the same name but for case, ``-``/``_``, a missing
  ``.md``; or a near spelling with the same numbers: never another day's log for a dated name);
  a ``[[wikilink]]`` that nearly matches an existing memory's name (a probable typo, with the fix);
- unwritten: a ``[[wikilink]]`` that names no memory yet (information, not a problem: in the harness's
  own convention it marks something worth writing later);
- escapes: a pointer that leaves the memory directory (``..``, an absolute path, a symlink);
- orphans: a detail file nothing reachable from MEMORY.md / identity.md / ARCHIVE.md links to
  (an orphaned pointer is a deleted memory);
- unreadable: a markdown file that could not be read.

Wikilinks resolve by front-matter ``name:`` first, then by file stem or path; a link to a
directory reaches every file under it; a symlinked directory inside the memory dir is followed (one
that leads outside is an escape). Targets in the report are decoded, as people wrote them.
URLs and record ids are listed, never fetched or checked. ``overrides`` lets a caller check a
change before it is written. Parsed files are cached by (path, size, mtime_ns), so re-checking
after a keystroke in MEMORY.md re-parses nothing else.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz, process, utils

from curator import markdown
from curator.constants import ARCHIVE_NAME, IDENTITY_NAME, INDEX_NAME
from curator.errors import CuratorError
from curator.frontmatter import NONE, FrontMatter, front_matter_text, parse_front_matter
from curator.fsio import read_bytes
from curator.index_model import BOM, HotIndex
from curator.markdown import Link
from curator.slugs import github_slug, heading_slugs

ROOT_NAMES = (INDEX_NAME, IDENTITY_NAME, ARCHIVE_NAME)
MARKDOWN_SUFFIXES = (".md", ".markdown")
SUGGESTION_CUTOFF = 85
HTML_ID = re.compile(r"<a\b[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)


@dataclass(frozen=True)
class Document:
    """What the pointer graph needs from one markdown file."""

    name: str  # path relative to the memory dir, '/'-separated
    links: tuple[Link, ...]
    slugs: tuple[str, ...]  # heading anchors in order, then explicit HTML ids
    front_matter: FrontMatter = NONE
    headings: tuple[str, ...] = ()  # heading texts, for [[name#Heading]]
    # Where each file link resolves, per directory state: a cached detail file is not re-resolved.
    resolved: dict = field(default_factory=dict, compare=False, repr=False)


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
class Escape:
    file: str
    line: int
    target: str
    reason: str


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
    links_by_file: dict[str, tuple[Link, ...]] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # every markdown file considered
    front_matter: dict[str, FrontMatter] = field(default_factory=dict)  # files that declare any
    wiki_names: dict[str, str] = field(default_factory=dict)  # every name a [[wikilink]] may use -> file

    @property
    def problem_count(self) -> int:
        return len(self.dangling) + len(self.orphans) + len(self.escapes) + len(self.unreadable)

    def detail(self, name: str) -> FrontMatter:
        """What file ``name`` declares in its front matter (``type``, ``description``, ``name``)."""
        return self.front_matter.get(name, NONE)

    def linked_file(self, link: Link, source: str = "MEMORY.md") -> str | None:
        """The memory file a file link or ``[[wikilink]]`` of ``source`` names, if it exists."""
        if link.kind == "wiki":
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


def parse_document(name: str, raw: bytes) -> Document:
    text = decode(raw)
    tokens = markdown.parse(text)
    headings = [title for _level, title, _line in markdown.headings_in_tokens(tokens)]
    slugs = heading_slugs(headings) + _html_ids(text)
    return Document(name, tuple(markdown.links_in_tokens(tokens)), tuple(slugs),
                    parse_front_matter(front_matter_text(tokens)), tuple(headings))


def document_from_index(index: HotIndex, name: str = INDEX_NAME) -> Document:
    """Reuse the index model's parse: no second markdown pass over MEMORY.md."""
    headings = [title for _level, title, _line in index.headings]
    slugs = heading_slugs(headings)
    return Document(name, index.links, tuple(slugs) + tuple(_html_ids(decode(index.raw))),
                    parse_front_matter(index.front_matter), tuple(headings))


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


DIGITS = re.compile(r"\d+")
SUGGESTION_MARGIN = 8  # the best guess must beat the next one by this much to be "clearly" meant


def _loose(text: str) -> str:
    """Case, '-'/'_'/space and a trailing .md do not tell two names apart."""
    text = text.lower()
    if text.endswith(".md"):
        text = text[:-3]
    return re.sub(r"[-_\s]+", "-", text).strip("-")


def suggest(query: str, choices: list[str], *, source: str = "") -> str | None:
    """The choice the query clearly meant, or None. Clearly: the same name but for case, ``-``/``_``
    or ``.md`` (for a path: the same file name in exactly one directory); or else, in the same
    directory, a close spelling (ratio >= SUGGESTION_CUTOFF) that carries the same numbers (a dated
    name never gets another date, ``phase2`` never ``phase5``) and beats every other choice by a
    margin. A guess that is merely the nearest of many is no help; the file that holds the link is
    never its own suggestion."""
    choices = [choice for choice in choices if choice != source]
    if not choices or not query:
        return None
    loose = _loose(query)
    same = [choice for choice in choices if _loose(choice) == loose]
    if len(same) == 1:
        return same[0]
    folder, _, base = query.rpartition("/")
    if "/" in query or any("/" in choice for choice in choices):
        loose_base = _loose(base)
        same = [choice for choice in choices if _loose(choice.rpartition("/")[2]) == loose_base]
        if len(same) == 1:
            return same[0]
        choices = [choice for choice in choices if choice.rpartition("/")[0] == folder]
    numbers = DIGITS.findall(base)
    fitting = [choice for choice in choices if DIGITS.findall(choice.rpartition("/")[2]) == numbers]
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


def wiki_key(name: str) -> str:
    return _loose(name)


def wiki_typo(name: str, names: dict[str, str], spelling: dict[str, str]) -> str | None:
    """The memory a ``[[name]]`` most likely meant, spelled as it names itself (``spelling``: file ->
    front-matter name or stem): the same words but for case and ``-``/``_``, or the same but for a
    one-word prefix (``feedback_``) on either side. Only one distinct file may fit."""
    key = _loose(name)
    if not key:
        return None
    hits = set()
    for written, target in names.items():
        other = _loose(written)
        if other and (other == key or _prefixed(other, key) or _prefixed(key, other)):
            hits.add(target)
    return spelling[hits.pop()] if len(hits) == 1 else None


def _prefixed(longer: str, shorter: str) -> bool:
    """``longer`` is ``shorter`` behind one alphabetic word (``feedback-x-y`` for ``x-y``); the
    shorter name must have two words at least, so ``[[later-memory]]`` is not MEMORY.md."""
    head, sep, rest = longer.partition("-")
    return bool(sep) and rest == shorter and head.isalpha() and "-" in shorter


def _relative_to(source: str, target: str) -> str:
    base = posixpath.dirname(source) or "."
    return posixpath.relpath(target, base)


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
                docs[name] = _from_disk(name, memory_dir / name, info.st_size, info.st_mtime_ns)
        except CuratorError as err:
            report.unreadable.append(Unreadable(name, err.message))

    existing_files = (set(tree.files) | set(docs)) - {n for n, d in overrides.items() if d is None}
    existing_files |= {n for n, d in overrides.items() if d is not None}
    file_choices = sorted(existing_files)
    wiki_names = report.wiki_names = wiki_index(docs, existing_files)

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
                _check_anchor(report, name, link, name, docs, link.shown)
                continue
            if link.kind == "wiki":
                _check_wikilink(report, name, link, wiki_names, docs, edges)
                continue
            if resolution is None:
                continue
            target, escape = resolution
            if escape is not None:
                report.escapes.append(Escape(name, link.line, link.shown, escape))
                continue
            assert target is not None
            if target == "":
                continue  # the memory dir itself: exists, nothing to follow
            if target in tree.dirs:  # a directory: it reaches every file under it
                edges[name].update(doc_name for doc_name in docs if doc_name.startswith(target + "/"))
                continue
            if target not in existing_files:
                guess = suggest(target, file_choices, source=name)
                report.dangling.append(
                    Dangling(name, link.line, link.shown, "no such file",
                             _relative_to(name, guess) if guess else None)
                )
                continue
            if target in docs:
                edges[name].add(target)
                _check_anchor(report, name, link, target, docs, link.shown.split("#", 1)[0])

    reached: set[str] = set()
    stack = [root for root in ROOT_NAMES if root in docs]
    while stack:
        current = stack.pop()
        if current in reached:
            continue
        reached.add(current)
        stack.extend(edges.get(current, ()))
    report.orphans = sorted(name for name in docs if name not in reached and name not in ROOT_NAMES)
    report.files = tuple(sorted(docs))
    return report


def wiki_spelling(docs: Mapping[str, Document], names: Mapping[str, str]) -> dict[str, str]:
    """file -> how a wikilink should name it: its front-matter ``name:`` if that is a slug (no
    spaces), else its stem."""
    spelling = {target: posixpath.splitext(posixpath.basename(target))[0] for target in names.values()}
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


def _check_wikilink(report: PointerReport, source: str, link: Link, names: dict[str, str],
                    docs: dict[str, Document], edges: dict[str, set[str]]) -> None:
    wanted = link.wiki_name
    target = resolve_wikilink(wanted, names) if wanted else source  # [[#Heading]]: this file
    if target is None:
        fix = wiki_typo(wanted, names, wiki_spelling(docs, names))
        if fix is None:
            report.unwritten.append(Unwritten(source, link.line, link.target))
            return
        # A probable typo still reaches the file it meant: that file is not an orphan.
        meant = resolve_wikilink(fix, names)
        if meant in docs:
            edges[source].add(meant)
        heading = f"#{link.anchor}" if link.anchor else ""
        report.dangling.append(Dangling(source, link.line, f"[[{link.target}]]", "probable typo in wikilink",
                                        f"[[{fix}{heading}]]"))
        return
    if target in docs:
        edges[source].add(target)
        heading = link.anchor
        doc = docs[target]
        if heading and heading not in doc.headings and github_slug(heading) not in doc.slugs \
                and heading.lower() not in doc.slugs:
            guess = suggest(heading, list(doc.headings))
            report.dangling.append(Dangling(source, link.line, f"[[{link.target}]]", "no such heading",
                                            f"[[{wanted}#{guess}]]" if guess else None))


def _check_anchor(report: PointerReport, source: str, link: Link, target: str,
                  docs: dict[str, Document], written_path: str) -> None:
    anchor = link.anchor
    if not anchor:
        return
    slugs = docs[target].slugs
    if anchor in slugs or anchor.lower() in slugs:
        return
    guess = suggest(anchor, list(slugs), source="")
    path = "" if link.kind == "anchor" else written_path
    report.dangling.append(
        Dangling(source, link.line, link.shown, "no such heading", f"{path}#{guess}" if guess else None)
    )
