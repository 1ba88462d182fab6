"""Markdown reading shared by the index model and the pointer graph: one markdown-it parser, links out.

Links come from markdown-it's own tokens (inline, reference-style, autolinks, bare URLs via linkify),
so nothing inside a code span or code block is ever taken for a pointer. Record ids (``#1234``,
session UUIDs) are found in plain text tokens only, for the same reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token

URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
RECORD_ID = re.compile(
    r"(?<![\w/#&])#\d{2,}\b"  # ticket / issue numbers: #1234
    r"|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"  # session UUIDs
    r"|\b(?:ses|sess|session)_[A-Za-z0-9]{6,}\b"  # harness session ids
)
# The same three shapes apart, each behind a substring it cannot match without: scanning every
# text token with the combined pattern was a third of the index model's own cost.
_RECORD_SHAPES = (
    ("#", re.compile(r"(?<![\w/#&])#\d{2,}\b")),
    ("-", re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")),
    ("ses", re.compile(r"\b(?:ses|sess|session)_[A-Za-z0-9]{6,}\b")),
)


def record_ids(text: str) -> list[str]:
    """What ``RECORD_ID.finditer`` finds, in order (the shapes never overlap), but faster."""
    found: list[tuple[int, str]] = []
    for needle, pattern in _RECORD_SHAPES:
        if needle in text:
            found.extend((m.start(), m.group(0)) for m in pattern.finditer(text))
    return [value for _start, value in sorted(found)] if len(found) > 1 else [value for _s, value in found]


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"linkify": True})
    try:
        md.enable("linkify")
    except (ImportError, ModuleNotFoundError):  # linkify-it-py missing: bare URLs stay text
        md.options["linkify"] = False
    md.enable("table")
    if md.options["linkify"]:
        # Scheme-less "fuzzy" links off: in a memory file a bare `notes.md` is a file name, not
        # http://notes.md (".md" is a country TLD). URLs with a scheme and emails are still found.
        md.linkify.set({"fuzzy_link": False})
        # linkify-it's own pretest still runs its fuzzy-host regex on every paragraph (a third of a
        # parse). Without fuzzy links a link needs "//" (http:, https:, ftp:, //) or "@" (mailto:,
        # emails), so this check is exact for these settings and never skips a real link.
        md.linkify.pretest = _may_hold_link
    return md


def _may_hold_link(text: str) -> bool:
    return "//" in text or "@" in text


def parse(text: str) -> list[Token]:
    return parser().parse(text)


@dataclass(frozen=True)
class Link:
    """One pointer found in a markdown file.

    ``line`` is 1-based in the file. ``kind`` says what the target is: ``file`` (a relative path,
    maybe with ``#anchor``), ``anchor`` (``#anchor`` in the same file), ``url`` (external, never
    fetched) or ``record`` (a ticket number or session id, listed and never checked).
    """

    target: str
    line: int
    kind: str
    text: str = ""
    style: str = "inline"  # inline | reference | autolink | bare | record

    @property
    def path(self) -> str:
        """The file part of a file link, percent-decoded; '' for other kinds."""
        if self.kind != "file":
            return ""
        return unquote(self.target.split("#", 1)[0].split("?", 1)[0])

    @property
    def anchor(self) -> str:
        if self.kind not in ("file", "anchor") or "#" not in self.target:
            return ""
        return unquote(self.target.split("#", 1)[1])


def classify_target(target: str) -> str:
    if target.startswith("#"):
        return "anchor"
    if URL_SCHEME.match(target) or target.startswith("//"):
        return "url"
    return "file"


def links_in_tokens(tokens: list[Token]) -> list[Link]:
    """Every link in a parsed document, with the line it sits on."""
    found: list[Link] = []
    for token in tokens:
        if token.type != "inline" or not token.map or not token.children:
            continue
        line = token.map[0] + 1
        children = token.children
        for index, child in enumerate(children):
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                text = _link_text(children, index)
                style = _link_style(child)
                if href:
                    found.append(Link(href, line, classify_target(href), text, style))
            elif child.type == "text":
                for value in record_ids(child.content):
                    found.append(Link(value, line, "record", value, "record"))
            elif child.type in ("html_inline", "code_inline", "image"):
                line += child.content.count("\n")
    return found


def _link_text(children: list[Token], start: int) -> str:
    parts = []
    for child in children[start + 1 :]:
        if child.type == "link_close":
            break
        parts.append(child.content)
    return "".join(parts)


def _link_style(token: Token) -> str:
    if token.markup == "autolink":
        return "autolink"
    if token.markup == "linkify" or token.info == "auto":
        return "bare"
    return "inline"


def links_in_text(text: str) -> list[Link]:
    return links_in_tokens(parse(text))


def headings_in_tokens(tokens: list[Token]) -> list[tuple[int, str, int]]:
    """(level, plain text, 1-based line) of every heading, in order."""
    headings = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map:
            inline = tokens[index + 1]
            headings.append((int(token.tag[1:]), plain_text(inline), token.map[0] + 1))
    return headings


def plain_text(inline: Token) -> str:
    """The visible text of an inline token (what GitHub slugs are made of)."""
    if not inline.children:
        return inline.content
    out = []
    for child in inline.children:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "image":
            out.append(child.content)
    return "".join(out)
