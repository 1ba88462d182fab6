"""Relative links that travel: text moved from one memory file to another keeps pointing where it did.

A link is relative to the file it sits in: ``[Patterns](#patterns)`` in MEMORY.md means
``MEMORY.md#patterns``, and ``[x](notes.md)`` in ``topics/a.md`` means ``topics/notes.md``. When a
lever moves text into another file (archive, restore, a trim that moves detail out), every relative
destination in it is re-expressed from the new file: ``#patterns`` archived into ARCHIVE.md becomes
``MEMORY.md#patterns``, and a link back to the file the text now sits in becomes ``#anchor`` again
(so archive then restore gives back the original line). URLs, absolute paths, ``file:`` URLs and
wikilinks (resolved by name, not by place) are left as written.

Destinations are found where markdown-it found links: each ``](`` outside code spans, and each
reference definition, whose destination normalises to a link markdown-it parsed in the same text.
"""

from __future__ import annotations

import posixpath
import re

from markdown_it.helpers import parseLinkDestination

from curator import markdown

CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)")
REFERENCE = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*", re.MULTILINE)


def _masked(text: str) -> str:
    """``text`` with code spans blanked out (same length), so nothing inside one is taken for a link."""
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text) if "`" in text else text


def destinations(text: str) -> list[tuple[int, int, str]]:
    """(start, end, destination as written) of every link destination in ``text`` that markdown-it
    also reads as a link (inline links, images, reference definitions)."""
    known = {link.target for link in markdown.links_in_text(text) if link.kind in ("file", "anchor")}
    if not known:
        return []
    masked = _masked(text)
    starts = [m.end() for m in re.finditer(r"\]\(", masked)] + [m.end() for m in REFERENCE.finditer(masked)]
    found = []
    md = markdown.parser()
    for start in sorted(starts):
        at = start
        while at < len(text) and text[at] in " \t":
            at += 1
        result = parseLinkDestination(text, at, len(text))
        if not result.ok or not result.str:
            continue
        if md.normalizeLink(result.str) not in known:
            continue
        end = result.pos
        if text[at] == "<":  # <a b.md>: the written destination sits inside the brackets
            at, end = at + 1, end - 1
        found.append((at, end, text[at:end]))
    return found


def rebase(destination: str, from_file: str, to_file: str) -> str:
    """``destination`` (as written in ``from_file``) re-expressed for ``to_file``; names are
    relative to the memory dir, '/'-separated."""
    if from_file == to_file or markdown.classify_target(destination) not in ("file", "anchor"):
        return destination
    if destination[:5].lower() == "file:" or destination.startswith(("/", "~")):
        return destination
    path, hash_mark, fragment = destination.partition("#")
    path, question, query = path.partition("?")
    if path:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(from_file), path))
    else:
        target = from_file  # "#x" or "?x": the file the text came from
    suffix = (question + query) + (hash_mark + fragment)
    if target == to_file and not question and hash_mark:
        return hash_mark + fragment  # back home: a plain anchor again
    relative = posixpath.relpath(target, posixpath.dirname(to_file) or ".")
    if path and relative == posixpath.normpath(path):
        return destination  # it reads the same from there: keep it as written (``dir/``, ``./x.md``)
    return relative + suffix


def move_text(text: str, from_file: str, to_file: str) -> str:
    """``text`` as it must read in ``to_file`` so that every relative link reaches what it reached
    in ``from_file``."""
    if from_file == to_file or ("](" not in text and "]:" not in text):
        return text
    out, cursor = [], 0
    for start, end, written in destinations(text):
        new = rebase(written, from_file, to_file)
        if new != written:
            if " " in new and not text[start - 1 : start] == "<":
                new = new.replace(" ", "%20")
            out.append(text[cursor:start])
            out.append(new)
            cursor = end
    out.append(text[cursor:])
    return "".join(out)


def move_bytes(data: bytes, from_file: str, to_file: str) -> bytes:
    """``move_text`` for UTF-8 bytes (line endings kept as they are)."""
    if from_file == to_file or (b"](" not in data and b"]:" not in data):
        return data
    return move_text(data.decode("utf-8"), from_file, to_file).encode("utf-8")
