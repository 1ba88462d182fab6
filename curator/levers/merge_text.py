"""The default merged text: one headline of the parts' distinct clauses, then their sub-lines, rows cell by cell."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Set
from urllib.parse import unquote

from curator.index_model import LIST_MARKER, Entry, HotIndex
from curator.markdown import Link
from curator.levers.similarity import stem, words_of
from curator.levers.text import clauses, depth_map, entry_source

FACET_JOIN = "; "


# A file named in a code span (`docs/codex-config.md`): many indexes name their detail files so,
# without a link. Such a name is a detail the entry cites, as a link is (never checked as a pointer).
FILE_SPAN = re.compile(r"`(?:\./)?([\w~-][\w.~/-]*\.[A-Za-z][\w]{0,5})`")


BARE_WORDS = 3  # content words besides the target's name up to which an entry only points at it


def bare_pointer(entry: Entry, target: str) -> bool:
    """The entry says little besides naming ``target``: "See [x.md](x.md) for full schema", "Details
    in topic file: `x.md`". (A titled link, ``[Gate & Recalibration](x.md) — …``, says more.)"""
    if entry.text.count("\n") or len(entry.text) > 160:
        return False
    path = target.partition("#")[0]
    name = posixpath.splitext(posixpath.basename(path))[0].lower()
    text = entry.text.replace(path, " ").replace(unquote(path), " ")
    own = words_of(text) - {stem(w) for w in re.split(r"[\W_]+", unquote(name)) if w}
    return len(own) <= BARE_WORDS


def leading_target(entry: Entry) -> str:
    """The detail the entry opens with (a link, or a file named in a code span), or ''."""
    opening = LIST_MARKER.sub("", entry.text.partition("\n")[0], count=1).lstrip("*_ ")
    if opening.startswith("`"):
        named = FILE_SPAN.match(opening)
        return named.group(1) if named else ""
    for link in entry.pointers:
        if link.kind == "file" and link.path and link.line == entry.line:
            if opening.startswith(("[", "![")):
                return link.path + (f"#{link.anchor}" if link.anchor else "")
        break
    return ""


def lead_first(group: list[Entry]) -> list[Entry]:
    """The order a careful bearer merges in: the entry that indexes a detail file (opens with its
    link) keeps its place and headline; otherwise the first in the file does."""
    return sorted(group, key=lambda e: (superseded(e), not leading_target(e), e.line))


# An entry that says of itself it is superseded ("SUPERSEDED by unified rules below", "obsolete")
# is merged into the rule that replaced it: that one leads, and the old one brings only its links.
SUPERSEDED = re.compile(r"\b(?:superseded|obsolete)\b", re.IGNORECASE)


def superseded(entry: Entry) -> bool:
    first = entry.text.partition("\n")[0]
    # (substring tests first, any case: a regex with word bounds is slow on a 12 KB line)
    return any(bit in first for bit in ("upersed", "UPERSED", "bsolete", "BSOLETE")) and bool(SUPERSEDED.search(first))


FACET_SAID = 0.8  # a facet whose content words are said at least this much already is not repeated
FACET_NEW = 2  # ... and that brings at most this many new words


def merged_entry_text(index: HotIndex, group: list[Entry], *, plain: bool = False) -> str:
    """The default merged entry: one headline, then every part's sub-lines without duplicates.

    The headline is the first entry's first line extended by the other first lines' distinct facets
    (clauses whose content words it does not mostly say yet, and every clause carrying a pointer it
    lacks). Below it come the first entry's own continuation lines, then the others' that say
    something new (a line already there, or one whose words are all said, is not repeated). No line
    ending at the end.

    ``plain``: the caller knows the file is valid UTF-8 without a carriage return (``plain_text``),
    so each entry's decoded text is already its source and nothing is decoded again."""
    sources = [entry.text.rstrip("\n") if plain else entry_source(index, entry).rstrip("\n") for entry in group]
    if group[0].kind == "row":
        return _merged_row(group, sources)
    # A table row merged into a list item brings its cells as clauses.
    sources = [" — ".join(split_cells(source)) if entry.kind == "row" and n else source
               for n, (entry, source) in enumerate(zip(group, sources))]
    # A paragraph is flowing text: merged into another entry its lines are one line of clauses;
    # kept, it keeps its lines and the others' clauses (their sub-lines too) follow its last line.
    prose = group[0].kind in PROSE
    sources = sources[:1] + [_flowing(entry, source, prose) for entry, source in zip(group[1:], sources[1:])]
    head, _newline, tail = sources[0].partition("\n")
    if prose:
        head, tail = sources[0], ""
    line = head.rstrip()
    below = list(tail.split("\n")) if tail else []
    said = set(words_of(sources[0]))
    bits = set(EXACT_BITS.findall(sources[0]))  # code spans and numbers said so far, verbatim
    kept_lines = {" ".join(part.split()) for part in below}
    have = {link.target for link in group[0].pointers}
    lead = leading_target(group[0])
    for other, source in zip(group[1:], sources[1:]):
        if (words_of(source) <= said and _bits_said(source, bits)
                and not ({link.target for link in other.pointers} - have)):
            continue  # it says nothing the merged entry does not: no clause to weigh one by one
        if lead and bare_pointer(other, lead) and not ({link.target for link in other.pointers} - have):
            continue  # "See x.md for details" beside x.md's own index line: covered whole
        if superseded(other):
            carried = [span for span in INLINE_LINK.findall(source)
                       if any(_spells(span, link) for link in other.pointers if link.target not in have)]
            if carried:
                line += FACET_JOIN + "superseded: " + " ".join(carried)
                have.update(link.target for link in other.pointers)
            continue
        other_head, _nl, other_tail = source.partition("\n")
        # The words of this entry the merged one does not say yet, as written: a clause holding none
        # of them says nothing new, and that is a substring test, not a word split per clause.
        # (A stem is a prefix of every word it stems from, but for -ies -> -y: "polic" for "policy".)
        unsaid = {word[:-1] if word.endswith("y") else word for word in words_of(source) - said}
        for clause in clauses(LIST_MARKER.sub("", other_head.strip(), count=1)):
            # The links were found by markdown-it in the model: a clause carries the ones it spells.
            new_pointers = {link.target for link in other.pointers if _spells(clause, link)} - have \
                if other.pointers else ()
            if not new_pointers and _bits_said(clause, bits):
                lowered = clause.lower()
                if not any(word in lowered for word in unsaid):
                    continue
                if _said(words_of(clause), said):
                    continue
            if not new_pointers:
                clause = _without_said_tail(clause, said, bits)
            words = words_of(clause)
            if new_pointers:
                # Its words are said already: carry only its links (every pointer kept, no repeat).
                spans = [m.group(0) for m in INLINE_LINK.finditer(clause)
                         if any(_spells(m.group(0), link) for link in other.pointers if link.target in new_pointers)]
                rest = INLINE_LINK.sub(" ", clause)
                if spans and _said(words_of(rest), said) and _bits_said(rest, bits) and all(
                        any(_spells(span, link) for span in spans) for link in other.pointers
                        if link.target in new_pointers):
                    clause, words = " ".join(spans), words_of(" ".join(spans))
            line += (" " if line.endswith((".", "!", "?", ";")) else FACET_JOIN) + clause
            said |= words
            if "`" in clause:
                bits.update(EXACT_BITS.findall(clause))
            have.update(new_pointers)
        for part in other_tail.split("\n") if other_tail else ():
            flat = " ".join(part.split())
            if not flat or flat in kept_lines:
                continue
            new_pointers = {link.target for link in other.pointers if _spells(part, link)} - have \
                if other.pointers else ()
            words = words_of(part)
            if not new_pointers and words <= said and _bits_said(part, bits):
                continue
            below.append(part)
            kept_lines.add(flat)
            said |= words
            bits.update(EXACT_BITS.findall(part))
            have.update(new_pointers)
    return "\n".join([line, *below])


INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\([^()\s]*(?:\([^()]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)")
PROSE = ("paragraph", "hermes")  # entries written as flowing text, not as a list item or a row


def _flowing(entry: Entry, source: str, into_prose: bool) -> str:
    """An entry merged away, as the text the merge weighs: a paragraph's lines joined (one line of
    clauses); merged into a paragraph, a list item's lines too, each without its marker, as clauses."""
    if entry.kind in PROSE:
        return " ".join(part.strip() for part in source.split("\n") if part.strip())
    if into_prose:
        return FACET_JOIN.join(LIST_MARKER.sub("", part.strip(), count=1) for part in source.split("\n") if part.strip())
    return source


def split_cells(row: str) -> list[str]:
    """The cells of a table row (GFM: an escaped pipe stays in its cell), stripped."""
    body = row.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", body)]


def _merged_row(group: list[Entry], sources: list[str]) -> str:
    """Rows merged cell by cell: each cell keeps its text and gains the others' distinct clauses in
    the same column (a list item's clauses, or cells past the last column, go to the last cell)."""
    cells = split_cells(sources[0])
    said = set(words_of(sources[0]))
    bits = set(EXACT_BITS.findall(sources[0]))
    have = {link.target for link in group[0].pointers}
    for other, source in zip(group[1:], sources[1:]):
        parts = split_cells(source) if other.kind == "row" else [" ".join(source.split("\n"))]
        for column, part in enumerate(parts):
            into = min(column, len(cells) - 1) if other.kind == "row" else len(cells) - 1
            for clause in clauses(LIST_MARKER.sub("", part, count=1)):
                new_pointers = {link.target for link in other.pointers if _spells(clause, link)} - have
                words = words_of(clause)
                if not new_pointers and _said(words, said) and _bits_said(clause, bits):
                    continue
                clause = re.sub(r"(?<!\\)\|", r"\\|", clause)
                cells[into] = f"{cells[into]}{FACET_JOIN}{clause}" if cells[into] else clause
                said |= words
                bits.update(EXACT_BITS.findall(clause))
                have.update(new_pointers)
    return "| " + " | ".join(cells) + " |"


FRAGMENT_CUT = re.compile(r"[,:] ")


def _without_said_tail(clause: str, said: set[str], bits: set[str]) -> str:
    """The clause without a trailing run of fragments (after a ', ' or ': ' outside brackets and code)
    whose words and code spans are all said already: "Coverage push from 83% → 95%: 1937 tests all
    passing" beside "1937 tests … all passing" keeps "Coverage push from 83% → 95%". Only a tail goes:
    a leading fragment gives the rest its sense ("never …, set passwords")."""
    cuts = [m.start() for m in FRAGMENT_CUT.finditer(clause)]
    if not cuts:
        return clause
    depths = depth_map(clause)
    keep, end = len(clause), len(clause)
    for cut in reversed([cut for cut in cuts if depths[cut] == 0]):  # each fragment looked at once
        fragment = clause[cut + 2 : end]
        if not (words_of(fragment) <= said and _bits_said(fragment, bits) and "](" not in fragment):
            break
        keep = end = cut
    return clause[:keep]


def _said(words: Set[str], said: Set[str]) -> bool:
    """The clause's content words are (mostly) said already: nothing to add."""
    if not words:
        return True
    new = len(words - said)
    return new <= FACET_NEW and new <= len(words) * (1 - FACET_SAID)


EXACT_BITS = re.compile(r"`[^`]+`")  # numbers are words already (9.0 and 7.0 stay whole)


def _bits_said(clause: str, bits: set[str]) -> bool:
    """Code spans are said only verbatim: `Maps/Materials/` is not `Maps/Data/`."""
    if "`" not in clause:
        return True
    return all(bit in bits for bit in EXACT_BITS.findall(clause))


def dropped_words(index: HotIndex, group: list[Entry], merged: str) -> list[str]:
    """Content words of the merged entries that the merged text no longer says (for the preview)."""
    said = words_of(merged)
    gone: set[str] = set()
    for entry in group:
        gone |= words_of(entry_source(index, entry)) - said
    return sorted(gone)


def _spells(text: str, link: Link) -> bool:
    return link.target in text or unquote(link.target) in text
