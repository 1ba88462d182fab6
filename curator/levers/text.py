"""Text helpers the levers share: an entry's source text, its words without link markup, clauses.

Clause cuts are only made at depth zero — never inside a link, a code span, brackets or parentheses
— so moving or re-joining clauses never breaks a pointer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

from curator import markdown
from curator.errors import InputError
from curator.fsio import read_bytes
from curator.index_model import BOM, Entry, HotIndex
from curator.markdown import Link

# Where one clause ends and the next begins: dashes used as separators, semicolons, sentence ends
# (a space after . ! or ? and before anything but a lower-case letter), and the CJK marks that end a
# sentence or clause with no space after them (。；、！？). Every branch opens with a space, a
# semicolon or one of those marks, which keeps the scan quick.
CLAUSE_SEPARATOR = re.compile(r" (?:[—–] |- |(?<=[.!?] )(?=[^a-z]))|; |(?<=[。；、！？])\s*(?=\S)")
OPENERS, CLOSERS = "[(", "])"


def entry_source(index: HotIndex, entry: Entry) -> str:
    """The entry's exact text (line endings as '\\n'); refuses bytes that are not UTF-8."""
    raw = index.entry_bytes(entry)
    if entry.offset == 0 and raw.startswith(BOM):
        raw = raw[len(BOM) :]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(
            f"entry {entry.id} (line {entry.line}) holds bytes that are not UTF-8; fix them by hand first",
            path="MEMORY.md",
        ) from None
    return text.replace("\r\n", "\n")


def content_end(index: HotIndex, line_number: int) -> int:
    """Byte offset just before the line ending of a (1-based) line."""
    line = index.lines[line_number - 1]
    return line.offset + len(line.raw.rstrip(b"\r\n"))


def entry_start(index: HotIndex, entry: Entry) -> int:
    """The entry's first byte after a BOM, so an edit never removes the BOM."""
    return entry.offset + (len(BOM) if entry.offset == 0 and index.has_bom else 0)


def plain_words(text: str) -> str:
    """What the text says without link targets, list markers or markup (link texts are kept)."""
    out: list[str] = []
    for token in markdown.parse(text):
        if token.type != "inline" or not token.children:
            continue
        for child in token.children:
            if child.type in ("text", "code_inline"):
                out.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                out.append(" ")
        out.append(" ")
    return " ".join("".join(out).split())


def without_links(text: str, links: Iterable[Link]) -> str:
    """``text`` with the given links cut out (their text and target), fast: the links were already
    found by markdown-it in the index model, so this only removes known spans. Record ids stay
    (they are words too). If nothing but links was there, the link texts stand in. Other markup is
    left for rapidfuzz's ``default_process``, which drops punctuation anyway."""
    kept, texts = text, []
    for link in links:
        if link.kind == "record":
            continue
        texts.append(link.text)
        for target in dict.fromkeys((link.target, unquote(link.target))):
            if target not in kept:  # every pattern below spells the target: no match is possible
                continue
            escaped = re.escape(target)
            if link.style == "inline":
                pattern = r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?" + escaped + r">?(?:\s+[\"'(][^)]*)?\s*\)"
            elif link.style == "autolink":
                pattern = r"<(?:mailto:)?" + escaped + ">"
            else:
                pattern = escaped
            kept, count = re.subn(pattern, " ", kept)
            if count:
                break
    return kept if re.search(r"\w", kept) else " ".join(texts)


_DEPTH_MARK = re.compile(r"[`*\[\]()]")


def depth_map(text: str) -> list[int]:
    """Nesting depth before each character: brackets, parentheses, code spans and **bold** count.

    Only the marks can change the depth, so the loop visits them alone and fills the runs between."""
    depths: list[int] = []
    depth, in_code, in_bold, filled = 0, False, False, 0
    for mark in _DEPTH_MARK.finditer(text):
        at = mark.start()
        depths += [depth + in_code + in_bold] * (at + 1 - filled)
        filled = at + 1
        char = text[at]
        if char == "`":
            in_code = not in_code
        elif in_code:
            continue
        elif char == "*":
            if text.startswith("**", at) and not text.startswith("**", at - 1 if at else at + 2):
                in_bold = not in_bold
        elif char in OPENERS:
            depth += 1
        elif depth:  # a closer
            depth -= 1
    depths += [depth + in_code + in_bold] * (len(text) - filled)
    return depths


def clause_cuts(text: str) -> list[tuple[int, int]]:
    """(start, end) of every separator at depth zero: text[:start] is a clause, text[end:] the rest."""
    separators = list(CLAUSE_SEPARATOR.finditer(text))
    if not separators:
        return []
    if not _DEPTH_MARK.search(text):  # no bracket, code span or bold: every separator is at depth zero
        return [m.span() for m in separators]
    depths = depth_map(text)
    return [(m.start(), m.end()) for m in separators if depths[m.start()] == 0]


def clauses(text: str) -> list[str]:
    parts, cursor = [], 0
    for start, end in clause_cuts(text):
        parts.append(text[cursor:start])
        cursor = end
    parts.append(text[cursor:])
    return [part for part in map(str.strip, parts) if part]


def read_optional(memory_dir: Path, name: str) -> bytes | None:
    path = Path(memory_dir) / name
    if not path.exists() and not path.is_symlink():
        return None
    return read_bytes(path)


def entries_by_id(index: HotIndex, entry_ids: list[str] | tuple[str, ...]) -> list[Entry]:
    found = []
    for entry_id in entry_ids:
        if not index.has_entry(entry_id):
            raise InputError(f"no entry with id {entry_id} (ids: `seat-curator check --json`)", path="MEMORY.md")
        found.append(index.entry(entry_id))
    if len({e.id for e in found}) != len(found):
        raise InputError("the same entry id was given twice", path="MEMORY.md")
    return found

