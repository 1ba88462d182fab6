"""Trim hooks: suggestions for the longest entries — tighten the wording, or split the line.

**Split** keeps the lesson clause in the index and moves the rest, verbatim, into the entry's linked
detail file, appended under a heading named after the entry; the kept line links to that heading, so
the index line never loses its pointer. An entry without a usable detail link gets a new detail file,
and the kept line links to it. Nothing is reworded, so nothing is lost; the
lesson clause is the text up to the first clause break (``—``, ``;``, sentence end) after the
entry's own words begin, never cut inside a link, code span, brackets or bold.

**Tighten** is a fixed list of mechanical rewrites, applied outside code spans, links and URLs:
runs of spaces become one, trailing spaces on the last line go, a space before ``,``/``.``/``;``
goes, an immediately repeated lower-case word goes (``the the``), and a short list of filler
phrases is shortened ("in order to" → "to", "due to the fact that" → "because",
"basically"/"essentially"/"actually" dropped, …). It does not summarise or paraphrase, so it rarely
saves much. A tighten that would drop a fact (``facts``: a number, a name, a code span, a
parenthetical, a status word or a link) is not offered.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from curator.change import Change, digest
from curator.constants import INDEX_NAME
from curator.errors import InputError
from curator.index_model import LIST_MARKER, Entry, HotIndex, parse_index
from curator.levers.finished import OPEN_WORDS, finished_mark
from curator.levers.merge import PROSE
from curator.levers.pointer_delta import added_problems
from curator.levers.relink import move_text
from curator.markdown import links_in_text
from curator.levers.text import (
    clause_cuts,
    content_end,
    depth_map,
    entries_by_id,
    entry_source,
    entry_start,
    plain_words,
    read_optional,
)
from curator.meter import Limits, Meter, measure
from curator.pointers import check_pointers
from curator.slugs import github_slug, heading_slugs

DEFAULT_THRESHOLD = 200  # bytes: shorter entries are not worth a suggestion
DEFAULT_TOP = 10
MIN_MOVED = 24  # a split that moves less than this is not worth a second file
RESERVED = {"MEMORY.md", "ARCHIVE.md", "identity.md"}
LEADING_LINK = re.compile(r"^!?\[[^\]]*\]\([^)]*\)")
PROTECTED = re.compile(r"`[^`]*`|!?\[[^\]]*\]\([^)]*\)|<[^>\s]+>|https?://\S+")
FILLERS = [  # (pattern, replacement): wording that never carries the lesson
    (r"\bin order to\b", "to"),
    (r"\bdue to the fact that\b", "because"),
    (r"\bfor the purpose of\b", "for"),
    (r"\bat this point in time\b", "now"),
    (r"\bin the event that\b", "if"),
    (r"\b(?:is|are) able to\b", "can"),
    (r"\bhas the ability to\b", "can"),
    (r"\bit is important to note that\s+", ""),
    (r"\bit should be noted that\s+", ""),
    (r"\bplease note that\s+", ""),
    (r"\b(?:basically|essentially|actually)\b,?\s+", ""),
]
# The words the fillers above remove or rewrite: dropping them (capitalised or not) drops no name.
FILLER_WORDS = {word for pattern, _ in FILLERS for word in re.findall(r"[a-z]+", pattern.replace("\\b", " "))} - {"s"}


@dataclass(frozen=True)
class TrimSuggestion:
    entry_id: str
    kind: str  # "tighten" | "split"
    new_line: str  # the entry's text after the change
    detail_file: str  # where a split moves text ('' for tighten)
    bytes_saved: int  # MEMORY.md bytes saved
    change: Change
    meter: Meter  # the index meter once applied


def suggestions(
    memory_dir: str | Path,
    index: HotIndex,
    *,
    threshold_bytes: int = DEFAULT_THRESHOLD,
    top: int = DEFAULT_TOP,
    limits: Limits = Limits(),
) -> list[TrimSuggestion]:
    """For the ``top`` longest entries of at least ``threshold_bytes``: a split and/or a tighten."""
    longest = sorted((e for e in index.entries if e.nbytes >= threshold_bytes), key=lambda e: (-e.nbytes, e.line))
    found = []
    for entry in longest[:top]:
        for kind in ("split", "tighten"):
            try:
                found.append(_suggest(memory_dir, index, entry, kind, limits))
            except InputError:
                continue  # this entry cannot be trimmed this way (or holds bytes that are not UTF-8)
    return found


def plan_trim(memory_dir: str | Path, index: HotIndex, entry_id: str, *, kind: str = "split") -> Change:
    (entry,) = entries_by_id(index, [entry_id])
    return _suggest(memory_dir, index, entry, kind, Limits()).change


def suggest(memory_dir: str | Path, index: HotIndex, entry: Entry, kind: str, limits: Limits = Limits()) -> TrimSuggestion:
    """The ``kind`` trim of one entry, checked (facts kept, pointers whole, shorter); InputError if none."""
    return _suggest(memory_dir, index, entry, kind, limits)


def _suggest(memory_dir: str | Path, index: HotIndex, entry: Entry, kind: str, limits: Limits) -> TrimSuggestion:
    if kind == "split":
        if entry.kind == "row":
            raise InputError(f"entry {entry.id} is a table row: it is tightened, never split", path=INDEX_NAME)
        new_text, detail, files = _split(Path(memory_dir), index, entry)
    elif kind == "tighten":
        old_text = entry_source(index, entry).rstrip("\n")
        new_text, detail = _tighten(old_text), ""
        dropped = sorted((facts(old_text) - facts(new_text)).elements())
        if dropped:  # a tighten rewords filler, never a fact
            raise InputError(f"tighten would drop {', '.join(dropped)} from entry {entry.id}: not offered",
                             path=INDEX_NAME)
        files = {}
    else:
        raise InputError(f"unknown trim kind {kind!r} (split or tighten)")
    new_index = _replace_entry(index, entry, new_text)
    if new_index == index.raw or len(new_index) >= len(index.raw):
        raise InputError(f"{kind} would not shorten entry {entry.id}", path=INDEX_NAME)
    files = {INDEX_NAME: new_index, **files}
    base = {INDEX_NAME: digest(index.raw)}
    if detail:
        base[detail] = digest(read_optional(Path(memory_dir), detail))
        before = check_pointers(Path(memory_dir), parsed_index=index)
        after = check_pointers(Path(memory_dir), overrides=files)
        broken = added_problems(before, after)
        if broken:  # a moved relative anchor, say: trimming must never lose a pointer
            raise InputError(f"splitting {entry.id} would break pointers: {', '.join(broken)}")
    saved = len(index.raw) - len(new_index)
    change = Change(
        description=f"trim ({kind}) entry {entry.id}" + (f" into {detail}" if detail else ""),
        files=files,
        bytes_saved=saved,
        entry_ids=(entry.id,),
        kind=f"trim-{kind}",
        base=base,
    )
    return TrimSuggestion(entry.id, kind, new_text, detail, saved, change, measure(new_index, limits))


def _replace_entry(index: HotIndex, entry: Entry, text: str) -> bytes:
    return index.splice([entry_edit(index, entry, text)])


def entry_edit(index: HotIndex, entry: Entry, text: str) -> tuple[int, int, bytes]:
    """The splice edit that puts ``text`` in the entry's place (its last line ending and BOM kept)."""
    new = text.replace("\n", index.newline.decode()).encode("utf-8")
    return entry_start(index, entry), content_end(index, entry.end_line), new


def split_entry(memory_dir: str | Path, index: HotIndex, entry: Entry,
                pending: Mapping[str, bytes] | None = None) -> tuple[str, str, dict[str, bytes]]:
    """A split without the pointer re-check (a caller batching splits checks them together): the
    entry's new text, the detail file, and that file's new bytes. ``pending``: detail files earlier
    splits of the same batch already wrote (read from there, and never taken as a new name). Raises
    InputError if it cannot."""
    if entry.kind == "row":
        raise InputError(f"entry {entry.id} is a table row: it is tightened, never split", path=INDEX_NAME)
    return _split(Path(memory_dir), index, entry, pending or {})


# -- split -------------------------------------------------------------------------------------

# Where the lesson itself begins when the entry tells a story first: a weak spot's counter, a rule, a fix.
# An arrow counts only between spaces ("story → counter: …"); "A+B→C" is an arrow inside one clause.
LESSON_MARK = re.compile(r"(?<=\s)(?:(?:→|->|=>)(?=\s)|(?:counter|rule|fix|lesson|takeaway|remedy|do this)\s*[:：]"
                         r"|(?:对策|教训|规则|対策|教訓|ルール|교훈|대책|규칙|урок|правило|решение)\s*[:：])", re.IGNORECASE)
# A clause that opens with one of these is a rule's imperative: the lesson, wherever it stands.
IMPERATIVE = re.compile(r"^(?:\*\*)?(?:never|always|don't|do not|must|avoid|prefer|use|run|check|keep|make sure|ensure|"
                        r"only|stop|verify|remember|ask|wait|read|write|put|set|add|pin|test|"
                        r"不要|必须|务必|禁止|请|绝不|切勿|先|必ず|常に|絶対に|禁止|반드시|항상|절대|금지|никогда|всегда|не )",
                        re.IGNORECASE)
# Words that make a clause a rule wherever they stand (Korean, Japanese, Chinese, Russian rules often
# end with them), and the warning signs bearers open a rule with.
RULE_WORDS = re.compile(r"\b(?:never|must|do not|don't|always)\b|말\s?것|마세요|하지\s?마|금지|필수|반드시|할\s?것|"
                        r"しないこと|すること|してはいけない|禁止|必ず|不要|必须|务必|切勿|不得|нельзя|не\s+надо|"
                        r"обязательно|запрещено|^\s*[⚠🚨🔒❗‼🔑🚩]", re.IGNORECASE)
_WEAK_BREAK = "、"  # an enumeration comma parts items of a list, not the lesson from its story


def lesson_cut(body: str) -> tuple[int, int] | None:
    """(end of the first clause, start of the rest) in the first line's body, or None.

    The first clause is the text up to the first clause break after the entry's own words begin
    (a leading ``[Title](file.md)`` alone is a title, not a lesson)."""
    lead = LEADING_LINK.match(body)
    skip = lead.end() if lead else 0
    cuts = clause_cuts(body)
    strong = [c for c in cuts if body[c[0] - 1 : c[0]] != _WEAK_BREAK] or cuts
    for start, end in strong:
        if start > skip and re.search(r"\w", body[skip:start]):
            return start, end
    return None


def lesson_split(body: str) -> tuple[str, str] | None:
    """(the text the index keeps, the text that moves), both verbatim pieces of ``body``, or None.

    The kept text is the first clause, plus the clause that carries the lesson when that is a later
    one: everything from a lesson mark on (``→``, ``counter:``, ``rule:``, ``fix:``, …), or else
    the first clause that is an imperative ("never …", "always …", "不要 …"). The story between
    moves; so does what follows an imperative."""
    lead = LEADING_LINK.match(body)
    skip = lead.end() if lead else 0
    first = lesson_cut(body)
    depths = depth_map(body)
    mark = next((m for m in LESSON_MARK.finditer(body)
                 if m.start() > skip and depths[m.start()] == 0 and re.search(r"\w", body[skip:m.start()])), None)
    if mark is not None:
        # The title (or the first clause, when it ends before the mark) and the lesson from the mark on stay.
        head_end, rest_start = first if first and first[1] <= mark.start() else (skip, skip)
        at = mark.start()
        while at > rest_start and body[at - 1] == " ":
            at -= 1
        story = body[rest_start:at].strip(" —–-;,")
        if not story.strip() or (head_end == skip and not skip):
            return None  # the lesson is all there is (or nothing names the entry once the story goes)
        return body[:head_end] + body[at:], story
    if first is None:
        return None
    head_end, rest_start = first
    # Every later clause that is a rule stays beside the first; the rest (the story) moves, each piece
    # with the separator it had.
    cuts = [c for c in clause_cuts(body) if c[0] >= head_end]
    kept, moved = body[:head_end], ""
    for n, (separator, start) in enumerate(cuts):
        end = cuts[n + 1][0] if n + 1 < len(cuts) else len(body)
        if is_rule(body[start:end]):
            kept += body[separator:end]
        else:
            moved += body[separator:end] if moved else body[start:end]
    moved = moved.strip(" —–-;")
    return (kept, moved) if moved else None


def is_rule(clause: str) -> bool:
    """A clause that tells what to do or never do, or warns: it is a lesson, and stays in the index."""
    return bool(IMPERATIVE.match(clause.lstrip(" *_")) or RULE_WORDS.search(clause))


def _detail_target(memory_dir: Path, entry: Entry) -> str | None:
    """The first markdown file the entry links to inside the memory dir (a sub-directory too: the
    moved text's relative links are rewritten for it), never through a symlink."""
    for link in entry.pointers:
        if link.kind != "file" or link.style == "image" or link.target[:5].lower() == "file:":
            continue
        name = posixpath.normpath(link.path) if link.path else ""
        if (not name.lower().endswith(".md") or name.startswith(("../", "/", "~")) or name in RESERVED
                or not (memory_dir / name).is_file()):
            continue
        walk, safe = memory_dir, True
        for part in name.split("/"):
            walk = walk / part
            safe = safe and not walk.is_symlink()
        if safe:
            return name
    return None


def _title(body: str) -> str:
    match = LEADING_LINK.match(body)
    words = plain_words(match.group(0) if match else body)
    if len(words) > 60:
        words = words[:60].rsplit(" ", 1)[0]
    return words.strip(" —–-:;,.") or "Entry"


def _new_detail_name(memory_dir: Path, title: str, taken: Mapping[str, bytes] | None = None) -> str:
    stem = github_slug(title)
    if len(stem) > 40:  # cut at a word, not inside one
        stem = stem[:41].rsplit("-", 1)[0]
    stem = stem.strip("-") or "detail"
    name, n = f"{stem}.md", 2
    while (memory_dir / name).exists() or name in RESERVED or name in (taken or {}):
        name, n = f"{stem}-{n}.md", n + 1
    return name


def _split(memory_dir: Path, index: HotIndex, entry: Entry,
           pending: Mapping[str, bytes] | None = None) -> tuple[str, str, dict[str, bytes]]:
    pending = pending or {}
    source = entry_source(index, entry).rstrip("\n")
    if entry.kind in PROSE:  # flowing text: its lesson may run past its first line
        source = " ".join(part.strip() for part in source.split("\n") if part.strip())
    first, _, continuation = source.partition("\n")
    marker = LIST_MARKER.match(first)
    prefix = marker.group(0) if marker else ""
    body = first[len(prefix) :].rstrip()
    parts = lesson_split(body)
    if parts is None:
        if not continuation:
            raise InputError(f"entry {entry.id} has no clause break to split at", path=INDEX_NAME)
        lesson, rest = body, ""
    else:
        lesson, rest = parts
    moved = "\n".join(part for part in (rest, continuation) if part)
    if len(moved.encode("utf-8")) < MIN_MOVED:
        raise InputError(f"entry {entry.id}: too little to move", path=INDEX_NAME)

    title = _title(body if LEADING_LINK.match(body) else lesson)
    detail = _detail_target(memory_dir, entry)
    moved = move_text(moved, INDEX_NAME, detail) if detail else moved  # its links, seen from there
    old = (pending[detail] if detail in pending else read_optional(memory_dir, detail)) if detail else None
    if detail and old is not None:
        nl = parse_index(old).newline
        lead = old if old.endswith(b"\n") or not old else old + nl
        new_detail = lead + nl + f"## {title}\n\n{moved}\n".replace("\n", nl.decode()).encode("utf-8")
        new_line = prefix + lesson
        if not any(link.path == detail for link in links_in_text(lesson)):
            # The pointer left with the moved text: link the section that now holds it.
            headings = [text for _level, text, _line in parse_index(new_detail).headings]
            new_line += f" → [details]({detail}#{heading_slugs(headings)[-1]})"
    else:
        detail = _new_detail_name(memory_dir, title, pending)
        moved = move_text(moved, INDEX_NAME, detail)
        newline = index.newline.decode()
        new_detail = f"# {title}\n\n{moved}\n".replace("\n", newline).encode("utf-8")
        new_line = f"{prefix}{lesson} → [details]({detail})"
    return new_line, detail, {detail: new_detail}


# -- tighten -----------------------------------------------------------------------------------

def _match_case(original: str, replacement: str) -> str:
    if replacement and original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def _cased(replacement: str) -> Callable[[re.Match[str]], str]:
    """A re.sub replacement: ``replacement`` in the case of the text it replaces."""
    return lambda m: _match_case(m.group(0), replacement)


def _tighten_prose(text: str, whole_line: str) -> str:
    for pattern, replacement in FILLERS:
        text = re.sub(pattern, _cased(replacement), text, flags=re.IGNORECASE)
    text = re.sub(r"(?<=\S)[ \t]{2,}(?=\S)", " ", text)
    text = re.sub(r"(?<=\w) +(?=[,;.](?:\s|$))", "", text)
    return re.sub(r"\b(?!(?:that|had)\b)([a-z]{2,})( \1\b)+", r"\1", text)


def facts(text: str) -> Counter:
    """What a tighten must keep, each as often as written: numbers, names and identifiers (a word
    with a capital, a digit, ``_`` or an inner ``-``), code spans, links, parentheticals and status words."""
    found: Counter = Counter(m.group(0) for m in PROTECTED.finditer(text))
    bare = PROTECTED.sub(" ", text)
    found.update(m.group(0) for m in re.finditer(r"\([^()]*\)", bare))
    found.update(m.group(0) for m in re.finditer(r"\d+(?:[.,:/]\d+)*", bare))
    for word in re.findall(r"\w+(?:[-_.]\w+)*", bare):
        if word.isdigit():
            continue  # counted as a number above
        named = word.lower() not in FILLER_WORDS and (word[:1].isupper() or not word.isalpha())
        if named or finished_mark(f"({word})") or word.lower() in OPEN_WORDS:
            found[word] += 1
    return found


def _tighten(source: str) -> str:
    lines = source.split("\n")
    out = []
    for number, line in enumerate(lines):
        indent = line[: len(line) - len(line.lstrip())]
        body = line[len(indent) :]
        if number == len(lines) - 1:
            body = body.rstrip()
        pieces, cursor = [], 0
        for match in PROTECTED.finditer(body):
            pieces.append(_tighten_prose(body[cursor : match.start()], body))
            pieces.append(match.group(0))
            cursor = match.end()
        pieces.append(_tighten_prose(body[cursor:], body))
        out.append(indent + "".join(pieces))
    return "\n".join(out)
