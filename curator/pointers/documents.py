"""One markdown file as the pointer graph needs it, parsed once and cached by size and mtime."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from curator import caches
from curator import markdown
from curator.constants import INDEX_NAME
from curator.frontmatter import NONE, FrontMatter, front_matter_text, parse_front_matter
from curator.fsio import read_bytes
from curator.index_model import BOM, HotIndex
from curator.markdown import Link
from curator.pointers.orphans import bare_names
from curator.slugs import heading_slugs

HTML_ID = re.compile(r"<a\b[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)


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
_from_content = caches.kept(maxsize=16, name="curator.pointers.documents._from_content")(parse_document)


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
