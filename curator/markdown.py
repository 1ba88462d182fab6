"""Markdown reading shared by the index model and the pointer graph: one markdown-it parser, links out.

Links come from markdown-it's own tokens (inline, reference-style, autolinks, bare URLs via linkify),
so nothing inside a code span or code block is ever taken for a pointer. Record ids (``#1234``,
session UUIDs) are found in plain text tokens only, for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.common import normalize_url
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from curator import caches

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


# ``[[name]]``, ``[[name#heading]]``, ``[[name|alias]]``: no brackets or line break inside.
WIKILINK = re.compile(r"\[\[([^\[\]\n|]+?)(?:\|([^\[\]\n]*))?\]\]")


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """A wikilink is one token: ``[[x]](gloss)`` is a wikilink and then text, never a link to "gloss".

    Inside a link's text it is text (``[name ≡ [[link]]](file.md)`` is one link to file.md): silent
    mode is only how markdown-it measures a link label, where a token would read as a nested link
    and break the outer one; and a link cannot hold another pointer."""
    if silent or state.linkLevel > 0 or not state.src.startswith("[[", state.pos):
        return False
    match = WIKILINK.match(state.src, state.pos)
    if match is None or not match.group(1).strip():
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = match.group(0)
        token.meta = {"target": match.group(1).strip(), "alias": (match.group(2) or "").strip()}
    state.pos = match.end()
    return True


def _counting_newlines(rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """Wrap an inline rule so the token it makes records the line breaks of the source it consumed
    (a code span's content has them turned into spaces, so it cannot tell)."""

    def wrapped(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent and len(state.tokens) > count:  # the rule's token is the last (pending text came first)
            token = state.tokens[-1]
            token.meta = {**(token.meta or {}), "newlines": state.src.count("\n", start, state.pos)}
        return True

    return wrapped


@caches.kept(maxsize=1)
def parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"linkify": True})
    md.validateLink = _valid_link  # type: ignore[method-assign]  # markdown-it's documented hook
    md.use(front_matter_plugin)  # `---` YAML at the top is front matter, not a rule and a heading
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    for rule in md.inline.ruler.__rules__:
        if rule.name in ("backticks", "image", "html_inline"):
            md.inline.ruler.at(rule.name, _counting_newlines(rule.fn))
    try:
        md.enable("linkify")
    except (ImportError, ModuleNotFoundError):  # linkify-it-py missing: bare URLs stay text
        md.options["linkify"] = False
    md.enable("table")
    if md.options["linkify"]:
        # Scheme-less "fuzzy" links off: in a memory file a bare `notes.md` is a file name, not
        # http://notes.md (".md" is a country TLD). URLs with a scheme and emails are still found.
        linkify = md.linkify
        assert linkify is not None  # enabled above
        linkify.set({"fuzzy_link": False})
        # linkify-it's own pretest still runs its fuzzy-host regex on every paragraph (a third of a
        # parse). Without fuzzy links a link needs "//" (http:, https:, ftp:, //) or "@" (mailto:,
        # emails), so this check is exact for these settings and never skips a real link.
        linkify.pretest = _may_hold_link
    return md


def _valid_link(url: str) -> bool:
    """markdown-it's XSS guard refuses ``file:`` URLs; a memory file is never rendered as HTML, and a
    ``file://`` link is a local pointer to check like any other (``javascript:`` stays refused)."""
    return url[:5].lower() == "file:" or normalize_url.validateLink(url)


def _may_hold_link(text: str) -> bool:
    return "//" in text or "@" in text


def parse(text: str) -> list[Token]:
    return parser().parse(text)


@dataclass(frozen=True)
class Link:
    """One pointer found in a markdown file.

    ``line`` is 1-based in the file. ``kind`` says what the target is: ``file`` (a relative path,
    maybe with ``#anchor``; also an image and a ``file://`` URL), ``anchor`` (``#anchor`` in the same
    file), ``wiki`` (``[[name#heading]]``, resolved by front-matter ``name:`` or file stem), ``url``
    (external, never fetched) or ``record`` (a ticket number or session id, listed and never checked).
    ``target`` is the destination as markdown-it normalised it (percent-encoded); ``shown`` is the
    same decoded, for people.
    """

    target: str
    line: int
    kind: str
    text: str = ""
    style: str = "inline"  # inline | reference | autolink | bare | record | image | wikilink

    @property
    def path(self) -> str:
        """The file part of a file link, percent-decoded; '' for other kinds."""
        if self.kind != "file":
            return ""
        target = self.target
        if target[:5].lower() == "file:":
            target = FILE_URL.sub("", target)
        return unquote(target.split("#", 1)[0].split("?", 1)[0])

    @property
    def anchor(self) -> str:
        if self.kind not in ("file", "anchor", "wiki") or "#" not in self.target:
            return ""
        return unquote(self.target.split("#", 1)[1])

    @property
    def wiki_name(self) -> str:
        """The name part of a wikilink (before ``#``); '' for other kinds."""
        return self.target.split("#", 1)[0].strip() if self.kind == "wiki" else ""

    @property
    def shown(self) -> str:
        """The target decoded, as a person wrote it (``§3.8``, not ``%C2%A73.8``)."""
        return shown(self.target)


def shown(target: str) -> str:
    return unquote(target) if "%" in target else target


FILE_URL = re.compile(r"^file:(?://(?:localhost)?(?=/)|//$)?", re.IGNORECASE)


def classify_target(target: str) -> str:
    if target.startswith("#"):
        return "anchor"
    if target[:5].lower() == "file:":
        return "file"  # a local path written as a URL is a pointer like any other
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
            elif child.type == "wikilink":
                meta = child.meta
                found.append(Link(meta["target"], line, "wiki", meta["alias"] or meta["target"], "wikilink"))
            elif child.type == "image":
                src = str(child.attrs.get("src", ""))
                if src:
                    found.append(Link(src, line, classify_target(src), child.content, "image"))
                line += (child.meta or {}).get("newlines", 0)
            elif child.type in ("html_inline", "code_inline"):
                line += (child.meta or {}).get("newlines", 0)
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
