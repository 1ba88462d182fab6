"""Fold: a facet of the index moves, verbatim, into one detail file; MEMORY.md keeps one line for it.

A *facet* is what a run of entries shares: the section they sit in (with its sub-sections), a
common prefix of the files they link (``project_wee-*``), or a ``#tag``. Folding it moves every byte
of those entries into a new file ``folded-<facet>.md`` beside MEMORY.md, and puts in their place one
line that links that file and names the facet and what it holds: its title, how many entries, and
the entries' own titles while they fit (``- [Craft hooks](folded-craft-hooks.md) — 23 entries: A;
B; …; +20 more``); where a link text names nothing (``[link]``, ``[here]``) or two entries share a
title, each such entry's hook, the words after its link or first clause, stands for it. The map gets coarser; the atlas keeps every word.

Relative links in the moved text are rewritten for their new file (``curator.levers.relink``), so
each still reaches what it reached; the files they link stay reachable through the fold file. A fold
that would leave a new dangling pointer or orphan is refused, naming them. Never folded: the
template's identity lines, the weak spots, the template's header (it is no entry and no facet).
The change goes through the seat store like any lever's: atomic, journalled, one undo.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from curator.change import Change, digest
from curator.constants import INDEX_NAME
from curator.errors import InputError
from curator.index_model import LIST_MARKER, Entry, HotIndex, Section, parse_index
from curator.levers.archive import UNSECTIONED
from curator.levers.merge import IDENTITY_SECTION
from curator.levers.placement import removal_spans
from curator.levers.pointer_delta import added_problems
from curator.levers.relink import destinations, move_bytes, rebase
from curator.levers.text import content_end, entries_by_id, entry_source, entry_start, plain_words, read_optional
from curator.pointers import check_pointers
from curator.slugs import github_slug, heading_slugs

PREFIX = "folded-"
WEAK_SPOTS = re.compile(r"weak[\s_-]*spots?|약점|弱点|弱み|слабые\s+места", re.IGNORECASE)
LINE_BUDGET = 320  # bytes the fold line may take with the entries' titles (the facet and count always fit)
TITLE_CHARS = 48  # one entry's title in the fold line, at most
MIN_FACET = 2  # entries: a facet of one is no coarser map
TAG = re.compile(r"(?<![\w#&/])#([A-Za-z][\w-]{1,40})\b")
_STEM_BREAK = re.compile(r"[-_]")


@dataclass(frozen=True)
class Facet:
    kind: str  # "section" | "prefix" | "tag"
    name: str  # the heading, ``project_wee-*``, ``#tag``
    entry_ids: tuple[str, ...]
    nbytes: int  # bytes the facet's entries take in MEMORY.md

    def plan(self, memory_dir: str | Path, index: HotIndex, overrides: Mapping[str, bytes | None] | None = None) -> Change:
        if self.kind == "section":
            return plan_fold(memory_dir, index, section=self.name, overrides=overrides)
        return plan_fold(memory_dir, index, ids=self.entry_ids, facet=self.name, overrides=overrides)


def is_protected(heading: str) -> bool:
    """The sections no lever folds: the template's identity lines and the weak spots."""
    return heading == IDENTITY_SECTION or bool(WEAK_SPOTS.fullmatch(heading.strip(" #*_:")))


# Link texts that name no entry (``[link](x.md) — the hook``): the hook after the link says what it holds.
GENERIC_LINK_TEXTS = frozenset({"link", "here", "details", "detail", "see", "more", "this", "file", "notes", "doc",
                                "docs", "read", "read more", "see more", "ref", "source", "memo", "링크", "여기",
                                "자세히", "リンク", "詳細", "こちら", "链接", "详情", "这里", "ссылка", "подробнее"})
_LEAD = re.compile(r"^(?:\[\[([^\]|]+)(?:\|([^\]]+))?\]\]|!?\[([^\]]+)\]\([^)]*\)|\*\*([^*]+)\*\*)")
_FIRST_CLAUSE = re.compile(r" [—–-] |[:;|。；]|\. ")


def _first_line_body(entry: Entry) -> str:
    body = LIST_MARKER.sub("", entry.text.partition("\n")[0], count=1).strip()
    return re.sub(r"^\|\s*", "", body)  # a row: its first cell


def _shortened(text: str) -> str:
    words = plain_words(text) or text
    if len(words) > TITLE_CHARS:
        cut = words[:TITLE_CHARS]
        words = (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"
    return words.strip(" —–-:;,.")


def entry_title(entry: Entry) -> str:
    """What the entry calls itself: a leading link's or bold text, else its first words."""
    body = _first_line_body(entry)
    lead = _LEAD.match(body)
    if lead:
        text = next(group for group in (lead.group(2), lead.group(1), lead.group(3), lead.group(4)) if group)
    else:
        text = _FIRST_CLAUSE.split(body, maxsplit=1)[0]
    return _shortened(text) or "entry"


def entry_hook(entry: Entry) -> str:
    """The words after what ``entry_title`` takes (the leading link, bold or first clause), their
    first clause: what a bare ``[link]`` points at, or what tells ``web_hmi: A`` from ``web_hmi: B``."""
    body = _first_line_body(entry)
    lead = _LEAD.match(body)
    if lead:
        rest = body[lead.end():]
    else:
        parts = _FIRST_CLAUSE.split(body, maxsplit=1)
        rest = parts[1] if len(parts) > 1 else ""
    rest = re.sub(r"^[\s—–:|-]+", "", rest)
    return _shortened(_FIRST_CLAUSE.split(rest, maxsplit=1)[0] if rest else "")


def entry_titles(entries: list[Entry]) -> list[str]:
    """The entries' titles for a fold line: ``entry_title``, but each entry's hook instead where its
    link text is generic (``[link]``, ``[here]``) or its title is another's too (a summary 'link; link'
    or 'web_hmi; web_hmi' says nothing)."""
    titles = [entry_title(e) for e in entries]
    seen: dict[str, int] = {}
    for title in titles:
        seen[title.casefold()] = seen.get(title.casefold(), 0) + 1
    out = []
    for entry, title in zip(entries, titles):
        if seen[title.casefold()] > 1 or title.casefold() in GENERIC_LINK_TEXTS:
            title = entry_hook(entry) or title
        out.append(title)
    return out


def fold_line(title: str, link: str, entries: list[Entry]) -> str:
    """``[title](link) — N entries: a; b; …; +K more`` within ``LINE_BUDGET`` bytes (titles while they fit)."""
    head = f"[{title}]({link}) — {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    titles = entry_titles(entries)
    for shown in range(len(titles), -1, -1):
        more = len(titles) - shown
        tail = "; ".join(titles[:shown]) + (f"; +{more} more" if more and shown else f"+{more} more" if more else "")
        line = head + (f": {tail}" if tail else "")
        if len(line.encode("utf-8")) <= LINE_BUDGET or shown == 0:
            return line
    return head


def detail_name(memory_dir: Path, facet: str, taken: Mapping[str, bytes | None] | None = None) -> str:
    """``folded-<slug>.md``, numbered past any file that exists (on disk or in ``taken``)."""
    stem = github_slug(facet.replace("*", "").replace("_", "-")).strip("-")
    if len(stem) > 40:
        stem = stem[:41].rsplit("-", 1)[0]
    stem = PREFIX + (stem or "entries")
    name, n = f"{stem}.md", 2
    while (memory_dir / name).exists() or (taken and name in taken):
        name, n = f"{stem}-{n}.md", n + 1
    return name


def section_span(index: HotIndex, section: Section) -> tuple[int, int]:
    """0-based [first, end) lines of the section's body: after its heading, through its sub-sections,
    blank lines at either end left out."""
    end = next((s.start for s in index.sections if s.start > section.start and 0 < s.level <= section.level),
               len(index.lines))
    first = section.start + 1
    while first < end and index.lines[first].is_blank:
        first += 1
    while end > first and index.lines[end - 1].is_blank:
        end -= 1
    return first, end


def _sections_in(index: HotIndex, section: Section) -> list[Section]:
    first, end = section_span(index, section)
    return [section] + [s for s in index.sections if first <= s.start < end]


def _file_header(title: str, where: str, count: int, newline: bytes) -> bytes:
    text = (f"# {title}\n\n> Folded verbatim out of MEMORY.md ({where}, {count} entr{'y' if count == 1 else 'ies'}); "
            "the line there links here.\n")
    return text.replace("\n", newline.decode()).encode("utf-8")


def plan_fold(memory_dir: str | Path, index: HotIndex, *, ids: Iterable[str] | None = None, section: str | None = None,
              facet: str | None = None, overrides: Mapping[str, bytes | None] | None = None) -> Change:
    """Fold a section (by heading) or the entries ``ids`` (a run sharing ``facet``; named for it)
    into one new detail file. ``overrides``: files earlier steps of the same plan write (their
    names are taken, and the pointer check sees them)."""
    memory_dir = Path(memory_dir)
    if (ids is None) == (section is None):
        raise InputError("name a section or the entry ids to fold (one of them)", path=INDEX_NAME)
    if section is not None:
        return _fold_section(memory_dir, index, section, overrides or {})
    assert ids is not None  # exactly one of the two is given (checked above)
    return _fold_entries(memory_dir, index, list(ids), facet, overrides or {})


def _find_section(index: HotIndex, heading: str) -> Section:
    wanted = " ".join(heading.split()).lstrip("#").strip()
    found = [s for s in index.sections if s.level > 0 and " ".join(s.heading.split()) == wanted]
    found = found or [s for s in index.sections if s.level > 0 and s.heading.casefold() == wanted.casefold()]
    found = found or [s for s in index.sections if s.level > 0 and github_slug(s.heading) == github_slug(wanted)]
    if not found:
        raise InputError(f"no section headed {heading!r}", path=INDEX_NAME)
    if len(found) > 1:
        raise InputError(f"{len(found)} sections are headed {heading!r}: fold them by entry id", path=INDEX_NAME)
    return found[0]


def _fold_section(memory_dir: Path, index: HotIndex, heading: str, overrides: Mapping[str, bytes | None]) -> Change:
    section = _find_section(index, heading)
    inner = _sections_in(index, section)
    barred = [s.heading for s in inner if is_protected(s.heading)]
    if barred:
        raise InputError(f"section '{section.heading}' holds '{barred[0]}': the identity lines and the weak "
                         "spots are never folded", path=INDEX_NAME)
    first, end = section_span(index, section)
    ids = [i for s in inner for i in s.entry_ids]
    entries = entries_by_id(index, ids)
    if len(entries) < MIN_FACET:
        raise InputError(f"section '{section.heading}' holds {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}: "
                         "nothing to fold", path=INDEX_NAME)
    for entry in entries:
        entry_source(index, entry)  # refuses bytes that are not UTF-8, naming the entry
    start = index.lines[first].offset
    stop = index.lines[end - 1].offset + len(index.lines[end - 1].raw)
    body = index.raw[start:stop]
    name = detail_name(memory_dir, section.heading, overrides)
    nl = index.newline
    header = _file_header(section.heading, f"section '{section.heading}'", len(entries), nl) + nl
    # The sub-headings move with the body: links to them, moved or staying, follow them there.
    old_slugs = heading_slugs([text for _level, text, _line in index.headings])
    moved_at = [n for n, (_level, _text, line) in enumerate(index.headings) if first < line <= end]
    new_slugs = heading_slugs([text for _level, text, _line in parse_index(header + body).headings])[1:]
    follow = {(INDEX_NAME, old_slugs[n]): (name, new) for n, new in zip(moved_at, new_slugs)}
    moved = move_bytes(_retarget(body, INDEX_NAME, follow), INDEX_NAME, name)
    detail = header + moved
    if not detail.endswith(b"\n"):
        detail += nl
    line = ("- " + fold_line(section.heading, name, entries)).encode("utf-8")
    ending = index.lines[end - 1].raw[len(index.lines[end - 1].raw.rstrip(b"\r\n")):]  # the body's own last ending
    folded = parse_index(index.splice([(start, stop, line + ending)]))
    new_index = _retarget(folded.raw, INDEX_NAME, follow) if follow else folded.raw
    return _change(memory_dir, index, new_index, name, detail, entries, f"section '{section.heading}'", overrides)


def _retarget(data: bytes, source: str, follow: Mapping[tuple[str, str], tuple[str, str]]) -> bytes:
    """``data`` (text of ``source``) with every relative link to a heading in ``follow`` (file, slug)
    pointing where that heading went, written from ``source``."""
    if not follow or (b"](" not in data and b"]:" not in data):
        return data
    text = data.decode("utf-8")
    out, cursor = [], 0
    for start, end, written in destinations(text):
        path, hashed, fragment = written.partition("#")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(source), path)) if path else source
        went = follow.get((target, fragment.lower())) if hashed else None
        if went is not None:
            out += [text[cursor:start], rebase(f"{went[0]}#{went[1]}", "", source) if went[0] != source else "#" + went[1]]
            cursor = end
    return ("".join(out) + text[cursor:]).encode("utf-8")


def _fold_entries(memory_dir: Path, index: HotIndex, ids: list[str], facet: str | None,
                  overrides: Mapping[str, bytes | None]) -> Change:
    entries = sorted(entries_by_id(index, ids), key=lambda e: e.offset)
    if len(entries) < MIN_FACET:
        raise InputError(f"name at least {MIN_FACET} entries to fold", path=INDEX_NAME)
    for entry in entries:
        if is_protected(entry.section):
            raise InputError(f"entry {entry.id} (line {entry.line}) sits in '{entry.section}': the identity lines "
                             "and the weak spots are never folded", path=INDEX_NAME)
        if entry.kind == "row":
            raise InputError(f"entry {entry.id} (line {entry.line}) is a table row: fold its section instead",
                             path=INDEX_NAME)
        entry_source(index, entry)
    facet = facet or shared_facet(entries) or f"{len(entries)} entries"
    name = detail_name(memory_dir, facet, overrides)
    nl = index.newline
    label = f"`{facet}`" if facet.endswith("*") else facet  # a file-name pattern, not emphasis
    body = b""
    for heading in dict.fromkeys(e.section for e in entries):  # each section's entries under its heading
        title = ("## " + (heading or UNSECTIONED)).encode("utf-8")
        body += nl + title + nl + nl + _group_block(index, [e for e in entries if e.section == heading], nl)
    detail = _file_header(label, f"facet {label}", len(entries), nl) + move_bytes(body, INDEX_NAME, name)
    first = entries[0]
    marker = LIST_MARKER.match(first.text)
    lead = marker.group(0) if marker else ""
    line = (lead + fold_line(label, name, entries)).encode("utf-8")
    keep_from, keep_to = entry_start(index, first), content_end(index, first.end_line)
    spans = [(a, b) for a, b in removal_spans(index, entries[1:])]
    if any(a < keep_to and b > keep_from for a, b in spans):
        raise InputError(f"entry {first.id} cannot hold the fold line where it stands", path=INDEX_NAME)
    new_index = index.splice([(keep_from, keep_to, line)] + [(a, b, b"") for a, b in spans])
    return _change(memory_dir, index, new_index, name, detail, entries, f"facet {facet}", overrides)


def _group_block(index: HotIndex, group: list[Entry], nl: bytes) -> bytes:
    """The entries' bytes one after another, as written; a blank line parts a paragraph or a § block
    from its neighbours (items of a list follow each other)."""
    out, previous = b"", None
    for entry in group:
        raw = index.raw[entry_start(index, entry) : entry.end_offset]
        if previous is not None and not previous == entry.kind == "item":
            out += nl
        out += raw if raw.endswith(b"\n") else raw + nl
        previous = entry.kind
    return out


def _change(memory_dir: Path, index: HotIndex, new_index: bytes, name: str, detail: bytes, entries: list[Entry],
            what: str, overrides: Mapping[str, bytes | None]) -> Change:
    files = {INDEX_NAME: new_index, name: detail}
    before = check_pointers(memory_dir, overrides={k: v for k, v in overrides.items() if k != INDEX_NAME},
                            parsed_index=index)
    after = check_pointers(memory_dir, overrides={**overrides, **files})
    broken = added_problems(before, after)
    if broken:  # e.g. a link elsewhere to a heading that moved: folding must never lose a pointer
        raise InputError(f"folding {what} would break pointers: {', '.join(broken)}", path=INDEX_NAME)
    return Change(
        description=f"fold {what} ({len(entries)} entries) into {name}",
        files=files,
        bytes_saved=len(index.raw) - len(new_index),
        entry_ids=tuple(e.id for e in entries),
        kind="fold",
        base={INDEX_NAME: digest(index.raw), name: digest(read_optional(memory_dir, name))},
    )


# -- facets ------------------------------------------------------------------------------------

def _link_stem(entry: Entry) -> str:
    """The stem of the first memory file the entry links (``project_wee-setup`` for a link to
    ``project_wee-setup.md`` or ``[[project_wee-setup]]``), '' if none."""
    for link in entry.pointers:
        if link.kind == "wiki":
            return link.wiki_name.strip()
        if link.kind == "file" and link.path and link.path.lower().endswith(".md"):
            return posixpath.splitext(posixpath.basename(link.path))[0]
    return ""


def _prefixes(stem: str) -> list[str]:
    """``project_wee-setup`` -> ``project``, ``project_wee`` (each part up to a ``-`` or ``_``)."""
    return [stem[: m.start()] for m in _STEM_BREAK.finditer(stem) if m.start() > 0]


def shared_facet(entries: list[Entry]) -> str:
    """The facet every one of ``entries`` shares, most specific first: a link prefix, a tag, a section."""
    stems = [_link_stem(e) for e in entries]
    if all(stems):
        common = set(_prefixes(stems[0]))
        for stem in stems[1:]:
            common &= set(_prefixes(stem))
        if common:
            prefix = max(common, key=len)
            return prefix + stems[0][len(prefix)] + "*"
    tags = set.intersection(*(set(TAG.findall(e.text)) for e in entries)) if entries else set()
    if tags:
        return "#" + sorted(tags)[0]
    sections = {e.section for e in entries}
    return sections.pop() if len(sections) == 1 and next(iter(sections), "") else ""


def facets(index: HotIndex) -> list[Facet]:
    """Every facet that may fold, largest first: sections (a document's lone title heading, which
    holds everything, is no facet), link prefixes and tags shared by at least two entries; none
    that touches the identity lines or the weak spots."""
    found: list[Facet] = []
    top = min((s.level for s in index.sections if s.level > 0), default=0)
    lone_title = sum(1 for s in index.sections if s.level == top) == 1
    for section in index.sections:
        if section.level == 0 or (lone_title and section.level == top):
            continue
        inner = _sections_in(index, section)
        if any(is_protected(s.heading) for s in inner):
            continue
        ids = tuple(i for s in inner for i in s.entry_ids)
        if len(ids) >= MIN_FACET:
            first, end = section_span(index, section)
            size = sum(len(line.raw) for line in index.lines[first:end])
            found.append(Facet("section", section.heading, ids, size))
    usable = [e for e in index.entries if not is_protected(e.section) and e.kind != "row"]
    by_prefix: dict[str, list[Entry]] = defaultdict(list)
    by_tag: dict[str, list[Entry]] = defaultdict(list)
    for entry in usable:
        for prefix in _prefixes(_link_stem(entry)):
            by_prefix[prefix].append(entry)
        for tag in set(TAG.findall(entry.text)):
            by_tag[tag].append(entry)
    for kind, groups in (("prefix", by_prefix), ("tag", by_tag)):
        for key, group in groups.items():
            if len(group) >= MIN_FACET:
                # A prefix is named as the files are: ``feedback_*``, ``project_wee-*``.
                name = key + _link_stem(group[0])[len(key)] + "*" if kind == "prefix" else "#" + key
                found.append(Facet(kind, name, tuple(e.id for e in group), sum(e.nbytes for e in group)))
    # The same entries under a shorter prefix add nothing: keep the most specific name.
    unique: dict[tuple[str, ...], Facet] = {}
    for facet in found:
        held = unique.get(facet.entry_ids)
        if held is None or (held.kind == facet.kind == "prefix" and len(facet.name) > len(held.name)):
            unique[facet.entry_ids] = facet
    return sorted(unique.values(), key=lambda f: (-f.nbytes, f.kind != "section", f.name))
