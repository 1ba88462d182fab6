"""The line in MEMORY.md that leads to ARCHIVE.md: whether it is there, adding it, taking it out."""

from __future__ import annotations

import posixpath

from curator.constants import ARCHIVE_NAME
from curator.index_model import SECTION_SIGN, HotIndex, parse_index
from curator.levers.merge import IDENTITY_SECTION

SECTION_SIGN_BYTES = SECTION_SIGN.encode()
# The line that keeps ARCHIVE.md within the bearer's reach when MEMORY.md links nowhere to it.
ARCHIVE_POINTER = "[Archive](ARCHIVE.md) — entries moved out of this index, verbatim; not loaded: grep it when you need one."
POINTER_SECTION = IDENTITY_SECTION  # the template's section of pointer lines (identity.md, seat-pointers.md)


def links_archive(index: HotIndex) -> bool:
    """Whether MEMORY.md links ARCHIVE.md (a file link or a ``[[wikilink]]``)."""
    for link in index.links:
        if link.kind == "file" and link.path and posixpath.normpath(link.path) == ARCHIVE_NAME:
            return True
        if link.kind == "wiki" and link.wiki_name.lower() in ("archive", ARCHIVE_NAME.lower()):
            return True
    return False


def with_archive_pointer(raw: bytes) -> bytes:
    """``raw`` (MEMORY.md) with one line linking ARCHIVE.md, unless it links it already: after the
    last pointer line of the template's pointer section when there is one, else as the last line (a
    ``§`` file gets it as one more block). Nothing else moves, so ``without_archive_pointer`` finds
    the very bytes it had."""
    index = parse_index(raw)
    if links_archive(index):
        return raw
    nl = index.newline
    item = b"- " + ARCHIVE_POINTER.encode("utf-8")
    section = index.section_named(POINTER_SECTION)
    if section is not None and section.level > 0 and section.entry_ids:
        last = index.entry(section.entry_ids[-1])
        if last.kind == "item" and raw[: last.end_offset].endswith(b"\n"):
            return raw[: last.end_offset] + item + nl + raw[last.end_offset :]
    lead = b"" if not raw or raw.endswith(b"\n") else nl  # an unended last line stays unended
    ended = b"" if raw and not raw.endswith(b"\n") else nl
    if any(e.kind == "hermes" for e in index.entries):
        return raw + lead + SECTION_SIGN_BYTES + nl + ARCHIVE_POINTER.encode("utf-8") + ended
    return raw + lead + item + ended


def without_archive_pointer(raw: bytes) -> bytes | None:
    """The MEMORY.md that ``with_archive_pointer`` turned into ``raw``, or None if it is not one."""
    text = ARCHIVE_POINTER.encode("utf-8")
    at = raw.rfind(text)
    if at < 0:
        return None
    line_start = raw.rfind(b"\n", 0, at) + 1
    line_end = raw.find(b"\n", at)
    line_end = len(raw) if line_end < 0 else line_end + 1
    for back in range(min(line_start, 8) + 1):  # the separator it may have brought: a blank line, a § line
        for end in (line_end, at + len(text)):
            candidate = raw[: line_start - back] + raw[end:]
            if with_archive_pointer(candidate) == raw:
                return candidate
    return None
