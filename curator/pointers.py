"""The pointer graph of a memory directory: what links where, what is broken, what nothing reaches.

Links come from MEMORY.md, identity.md, ARCHIVE.md and every other markdown file in the memory
directory (dot-files and dot-directories are skipped), read with markdown-it via ``curator.markdown``.
Reported problems:

- dangling: a file link whose file does not exist, or whose ``#anchor`` names no heading there
  (GitHub slug rules), with a did-you-mean suggestion over existing files and headings;
- escapes: a pointer that leaves the memory directory (``..``, an absolute path, a symlink);
- orphans: a detail file nothing reachable from MEMORY.md / identity.md / ARCHIVE.md links to
  (an orphaned pointer is a deleted memory);
- unreadable: a markdown file that could not be read.

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
from curator.errors import CuratorError
from curator.fsio import read_bytes
from curator.index_model import BOM, HotIndex
from curator.markdown import Link
from curator.slugs import heading_slugs

INDEX_NAME = "MEMORY.md"
ROOT_NAMES = ("MEMORY.md", "identity.md", "ARCHIVE.md")
MARKDOWN_SUFFIXES = (".md", ".markdown")
SUGGESTION_CUTOFF = 60
HTML_ID = re.compile(r"<a\b[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)


@dataclass(frozen=True)
class Document:
    """What the pointer graph needs from one markdown file."""

    name: str  # path relative to the memory dir, '/'-separated
    links: tuple[Link, ...]
    slugs: tuple[str, ...]  # heading anchors in order, then explicit HTML ids
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
    links_by_file: dict[str, tuple[Link, ...]] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # every markdown file considered

    @property
    def problem_count(self) -> int:
        return len(self.dangling) + len(self.orphans) + len(self.escapes) + len(self.unreadable)


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
    return Document(name, tuple(markdown.links_in_tokens(tokens)), tuple(slugs))


def document_from_index(index: HotIndex, name: str = INDEX_NAME) -> Document:
    """Reuse the index model's parse: no second markdown pass over MEMORY.md."""
    slugs = heading_slugs([title for _level, title, _line in index.headings])
    return Document(name, index.links, tuple(slugs) + tuple(_html_ids(decode(index.raw))))


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


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def scan(memory_dir: Path, real_root: str) -> Tree:
    tree = Tree()
    pending = [("", str(memory_dir))]
    while pending:
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
                if entry.is_symlink() and not _inside(os.path.realpath(entry.path), real_root):
                    tree.outside.add(name)
                    continue
                if entry.is_dir():
                    tree.dirs.add(name)
                    if not entry.is_symlink():  # a symlinked dir inside would be walked twice
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
        if "/".join(parts[:depth]) in tree.outside:
            return None, "symlink leads outside the memory dir"
    return joined, None


def suggest(query: str, choices: list[str]) -> str | None:
    if not choices or not query:
        return None
    match = process.extractOne(
        query, choices, scorer=fuzz.ratio, processor=utils.default_process, score_cutoff=SUGGESTION_CUTOFF
    )
    return match[0] if match else None


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

    edges: dict[str, set[str]] = {name: set() for name in docs}
    state = (str(memory_dir), real_root, frozenset(tree.outside))
    for name, doc in docs.items():
        report.links_by_file[name] = doc.links
        resolutions = doc.resolved.get(state)
        if resolutions is None:
            resolutions = [resolve(name, link, memory_dir, real_root, tree) if link.kind == "file" else None
                           for link in doc.links]
            doc.resolved.clear()  # one directory state per document is all a session needs
            doc.resolved[state] = resolutions
        for link, resolution in zip(doc.links, resolutions):
            if link.kind == "anchor":
                _check_anchor(report, name, link, name, docs, link.target)
                continue
            if resolution is None:
                continue
            target, escape = resolution
            if escape is not None:
                report.escapes.append(Escape(name, link.line, link.target, escape))
                continue
            assert target is not None
            if target == "" or target in tree.dirs:
                continue  # the memory dir itself or a sub-directory: exists, nothing to follow
            if target not in existing_files:
                guess = suggest(target, file_choices)
                report.dangling.append(
                    Dangling(name, link.line, link.target, "no such file",
                             _relative_to(name, guess) if guess else None)
                )
                continue
            if target in docs:
                edges[name].add(target)
                _check_anchor(report, name, link, target, docs, link.target.split("#", 1)[0])

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


def _check_anchor(report: PointerReport, source: str, link: Link, target: str,
                  docs: dict[str, Document], written_path: str) -> None:
    anchor = link.anchor
    if not anchor:
        return
    slugs = docs[target].slugs
    if anchor in slugs or anchor.lower() in slugs:
        return
    guess = suggest(anchor, list(slugs))
    path = "" if link.kind == "anchor" else written_path
    report.dangling.append(
        Dangling(source, link.line, link.target, "no such heading", f"{path}#{guess}" if guess else None)
    )
