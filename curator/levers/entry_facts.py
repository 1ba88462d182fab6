"""What one entry says, as the kinds of merge evidence ask it: detail files, subjects, labels, markers."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from functools import cached_property
from typing import TypeVar
from urllib.parse import unquote

from curator import caches
from curator.index_model import LIST_MARKER, Entry
from curator.levers.similarity import words_of
from curator.markdown import Link

DETAIL_EXTENSION = ".md"
INDEX_STEMS = frozenset({"memory", "readme", "claude", "agents", "gemini", "changelog", "license", "contributing"})  # not memories: never one entry's detail

MD_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^()\s]*(?:\([^()]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)")
WIKI_LINK = re.compile(r"\[\[([^\[\]\n|]+?)(?:\|([^\[\]\n]*))?\]\]")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
CODE_WORDS = re.compile(r"`[^`\n]+`")
URL = re.compile(r"\b(?:https?|file)://\S+")
BARE_FILE = re.compile(r"(?<![\w/.\-\]\[(])((?:[\w.~-]+/)*[\w~][\w.~-]*\.md)(?:#([\w-]+))?(?![\w/])")
# A code span that is a command, not a subject: a shell verb, a flag, or several words.
COMMAND = re.compile(r"^\s*(?:[$>]\s*)?(?:pip3?|npm|npx|pnpm|yarn|uv|git|gh|python3?|node|cargo|go|make|docker|"
                     r"kubectl|brew|apt(?:-get)?|sudo|cd|ls|rm|mv|cp|cat|curl|bash|sh)\b|\s-{1,2}\w|\S\s+\S")

# Words by which an entry says of itself that it is old (or, for REPLACES, that it replaced another).
SUPERSEDED = re.compile(
    r"\b(?:superseded|obsolete|deprecated|outdated|replaced\s+by|no\s+longer\s+(?:valid|true|used|applies))\b"
    r"|대체됨|폐기됨|구버전|已废弃|废弃|已被|取代|已过时|過時|置き換え|廃止|旧版"
    r"|устарел|заменен|заменён|заменено", re.IGNORECASE)
REPLACES = re.compile(r"\b(?:supersedes|replaces)\b", re.IGNORECASE)


def detail_key(name: str, anchor: str = "") -> str:
    """How a detail file is compared: its stem and anchor, case-folded ('' for what is no detail)."""
    base = posixpath.basename(unquote(name.strip()))
    stem_part, extension = posixpath.splitext(base)
    if extension and extension.lower() != DETAIL_EXTENSION:
        return ""
    key = (stem_part if extension else base).casefold()
    if not key or key in INDEX_STEMS:
        return ""
    return key + (f"#{anchor.casefold()}" if anchor else "")


def said(text: str) -> str:
    """What an entry says, code spans included (for containment): link texts, no targets, no URLs."""
    if "[[" in text:  # (each pass only when its mark is there: entries can be long)
        text = WIKI_LINK.sub(lambda m: " " + (m.group(2) or m.group(1)) + " ", text)
    if "](" in text:
        text = MD_LINK.sub(lambda m: " " + m.group(1) + " ", text)
    return URL.sub(" ", text) if "://" in text else text


def prose(text: str) -> str:
    """What an entry says in words: link texts kept, link targets, URLs and code spans cut out."""
    return _without_code(said(text))


def prose_words(entry: Entry) -> frozenset[str]:
    return words_of(prose(entry.text))


def said_words(entry: Entry) -> frozenset[str]:
    return words_of(said(entry.text))


def _without_code(text: str) -> str:
    return CODE_SPAN.sub(" ", text) if "`" in text else text


def code_spans(entry: Entry) -> frozenset[str]:
    return frozenset(CODE_WORDS.findall(entry.text)) if "`" in entry.text else frozenset()


def _link_key(link: Link) -> str:
    if link.kind == "file" and link.style != "image":
        return detail_key(link.path, link.anchor) if link.path.lower().endswith(DETAIL_EXTENSION) else ""
    if link.kind == "wiki":
        name, _, anchor = link.wiki_name.partition("#")
        return detail_key(name, anchor or link.anchor)
    return ""


MD_NAME = re.compile(r"\.md", re.IGNORECASE)


def cited_keys(entry: Entry) -> frozenset[str]:
    """Every detail file the entry names: its links, its wikilinks, file names bare or in code spans."""
    keys = {_link_key(link) for link in entry.pointers}
    if MD_NAME.search(entry.text):
        for name, anchor in BARE_FILE.findall(_without_targets(entry.text)):
            keys.add(detail_key(name, anchor))
    keys.discard("")
    return frozenset(keys)


# What may stand before an entry's first subject: a marker's leftovers, emphasis, emoji; and, before a
# detail file, a bold label ("**Testing**: [testing.md](testing.md)"). Before a code span a label is
# the subject itself ("**Player radius**: `World` ctor parameter" is about the radius, not `World`).
_LEAD = re.compile(r"^(?:[\s*_~>]|[^\w\s\[`(*_])*")
_LABEL = re.compile(r"^(?:\*\*[^*]{1,40}\*\*|__[^_]{1,40}__)\s*[:：]?\s*")
_SUBJECT = re.compile(r"\[\[[^\[\]\n|]+?(?:\|[^\[\]\n]*)?\]\]|!?\[(?:[^\[\]]|\[[^\]]*\])*\]\([^()\s]*(?:\([^()]*\)[^()\s]*)*\)|`[^`\n]+`"
                      r"|(?:[\w.~-]+/)*[\w~][\w.~-]*\.md(?:#[\w-]+)?(?![\w/])")
_JOIN = re.compile(r"^[\s*_]*(?:[✅✔️🆕]\s*)?(?:#\d+\s*)?(?:[·•,/+&]|and)\s*")


@caches.kept(maxsize=4096)  # asked of every entry by several kinds
def opening_subjects(first_line: str, after_label: bool = True) -> tuple[str, ...]:
    """The subjects an entry opens with, as written: links, wikilinks, code spans, file names (after
    a bold label too when ``after_label``)."""
    rest = LIST_MARKER.sub("", first_line, count=1)
    lead = _LEAD.match(rest)
    assert lead is not None  # its pattern matches the empty string too
    rest = rest[lead.end():]
    if after_label and (label := _LABEL.match(rest)):
        rest = rest[label.end():]
    found: list[str] = []
    while True:
        match = _SUBJECT.match(rest)
        if not match:
            return tuple(found)
        found.append(match.group(0))
        rest = rest[match.end():]
        joined = _JOIN.match(rest)
        if not joined:
            return tuple(found)
        rest = rest[joined.end():]


def _subject_key(subject: str) -> str:
    if subject.startswith("[["):
        wiki = WIKI_LINK.match(subject)
        assert wiki is not None  # _SUBJECT matched a wikilink
        name, _, anchor = wiki.group(1).partition("#")
        return detail_key(name, anchor)
    if subject.startswith(("[", "![")):
        target = subject[subject.rindex("](") + 2 : -1].strip("<> ")
        path, _, anchor = target.partition("#")
        return detail_key(path, anchor) if path.lower().endswith(DETAIL_EXTENSION) else ""
    name = subject.strip("`")
    path, _, anchor = name.partition("#")
    return detail_key(path, anchor) if path.lower().endswith(DETAIL_EXTENSION) else ""


BARE_WORDS = 3  # own content words up to which an entry only points at the file it names
# How a line that only points opens: "See …", "Details in …", "→ …", "참고 …", "详见 …", "詳細は …".
POINTING = re.compile(r"(?:see|details?|more|full|further|ref(?:erence)?s?|cf\.?|docs?|→|->|=>|참고|상세|자세한|"
                      r"详见|参见|详情|詳細|詳しく|参照|подробн|см\.)", re.IGNORECASE)


def _without_targets(text: str) -> str:
    """The text with its markdown links and URLs cut out (what is left names files only bare)."""
    if "](" in text:
        text = MD_LINK.sub(" ", text)
    return URL.sub(" ", text) if "://" in text else text


def indexed_keys(entry: Entry, cited: frozenset[str] | None = None) -> frozenset[str]:
    """The detail files the entry indexes: the ones it opens with, or the one file it only points at
    (``cited``: its ``cited_keys``, when known)."""
    keys = {_subject_key(s) for s in opening_subjects(entry.text.partition("\n")[0])}
    keys.discard("")
    if keys:
        return frozenset(keys)
    cited = cited_keys(entry) if cited is None else cited
    opening = LIST_MARKER.sub("", entry.text, count=1).lstrip(" *_>")
    if len(cited) == 1 and "\n" not in entry.text and len(entry.text) <= 160 and POINTING.match(opening):
        # Its own words: the text without its links, wikilinks and file names (a link's text there is
        # the file's name or title, not something the entry teaches).
        own = BARE_FILE.sub(" ", MD_LINK.sub(" ", WIKI_LINK.sub(" ", entry.text)))  # (short: ≤ 160 chars)
        if len(words_of(prose(own))) <= BARE_WORDS:
            return cited
    return frozenset()


def code_subject(entry: Entry) -> str:
    """The code span an entry opens with when it names a thing (a path, a module), not a command."""
    subjects = opening_subjects(entry.text.partition("\n")[0], after_label=False)
    if not subjects or not subjects[0].startswith("`"):
        return ""
    inner = subjects[0].strip("`").strip()
    return "" if COMMAND.search(inner) else inner


_LABEL_WORDS = 8


def label_line(entry: Entry, cited: frozenset[str] | None = None) -> bool:
    """A category line, not a memory: "**Testing:**", "Three subprojects under one workspace:" (the
    lines under it summarise it; pairing it with them by words only repeats the heading)."""
    first = entry.text.partition("\n")[0]
    if len(first) > 400:  # (a label is short: no need to look further)
        return False
    first = LIST_MARKER.sub("", first, count=1).strip()
    if not first or (cited_keys(entry) if cited is None else cited):
        return False
    bare = first.strip("*_ ").rstrip()
    if first.startswith(("**", "__")) and first.rstrip(":").rstrip().endswith(("**", "__")):
        return "**" not in bare.strip("*:") and len(bare.split()) <= _LABEL_WORDS
    return bare.endswith((":", "：")) and len(bare.split()) <= _LABEL_WORDS


def title_words(entry: Entry) -> frozenset[str]:
    """The words of the entry's name: its first link's text, its leading bold label, or its first
    clause before the hook's dash."""
    first = LIST_MARKER.sub("", entry.text.partition("\n")[0], count=1)
    for subject in opening_subjects(first):
        if subject.startswith("[["):
            match = WIKI_LINK.match(subject)
            assert match is not None  # _SUBJECT matched a wikilink
            return words_of(match.group(2) or match.group(1))
        if subject.startswith("["):
            link = MD_LINK.match(subject)
            assert link is not None  # _SUBJECT matched a markdown link
            return words_of(link.group(1))
    bold = re.match(r"\s*\*\*([^*]+)\*\*", first)
    if bold:
        return words_of(bold.group(1))
    return words_of(prose(re.split(r" [—–] | -- | - ", first, maxsplit=1)[0]))


# Plain substrings of the markers, tested first (a regex of alternatives is slow on a 12 KB line).
MARKER_BITS = ("supersed", "obsolete", "deprecat", "outdated", "replace", "no longer", "대체됨", "폐기됨", "구버전",
               "废弃", "已被", "取代", "过时", "過時", "置き換え", "廃止", "旧版", "устар", "замен")


def _marker(first_line: str) -> re.Match[str] | None:
    """The words by which the line says it is old, or that it replaced another; None if it does not."""
    lowered = first_line.lower()
    if not any(bit in lowered for bit in MARKER_BITS):
        return None
    return SUPERSEDED.search(first_line) or REPLACES.search(first_line)


def old_marked(entry: Entry) -> bool:
    first = entry.text.partition("\n")[0]
    return _marker(first) is not None and bool(SUPERSEDED.search(first))


# Where one clause of an entry ends: a line, a sentence, a semicolon, a dash between words, CJK stops.
# (Plain replacements, not a regex: a clause split runs over entries of many kilobytes.)
CLAUSE_ENDS = (". ", "! ", "? ", "; ", " — ", " – ", " -- ", " - ", "。", "；", "！", "？")


def _clauses(text: str) -> list[str]:
    for end in CLAUSE_ENDS:
        if end in text:
            text = text.replace(end, "\n")
    return text.split("\n")


def clause_words(entry: Entry, said_text: str | None = None) -> tuple[frozenset[str], ...]:
    """The content words of each clause the entry says (link texts kept, targets cut out)."""
    said_text = said(entry.text) if said_text is None else said_text
    clauses = dict.fromkeys(part.strip() for part in _clauses(said_text))  # each distinct clause once
    return tuple(dict.fromkeys(words for words in map(words_of, clauses) if words))


def said_within(small: tuple[frozenset[str], ...], large: tuple[frozenset[str], ...]) -> bool:
    """Every clause of the one is in the other: its words all in one clause there, not scattered."""
    exact = set(large)  # (a repeated clause is found at once; only the others are looked for)
    return all(clause in exact or any(clause <= other for other in large) for clause in small)


_Answer = TypeVar("_Answer")


def _answered(question: Callable[[Entry], _Answer]) -> cached_property[_Answer]:
    """``question(entry)``, asked of a ``Facts``' entry once."""
    return cached_property(lambda facts: question(facts.entry))


class Facts:
    """One entry's answers to the questions the kinds of evidence ask, each worked out once."""

    def __init__(self, entry: Entry):
        self.entry = entry

    said_text = _answered(lambda entry: said(entry.text))
    code_spans = _answered(code_spans)
    cited_keys = _answered(cited_keys)

    @cached_property
    def prose_words(self) -> frozenset[str]:
        return words_of(_without_code(self.said_text))

    @cached_property
    def said_words(self) -> frozenset[str]:
        return words_of(self.said_text)

    @cached_property
    def indexed_keys(self) -> frozenset[str]:
        return indexed_keys(self.entry, self.cited_keys)

    @cached_property
    def label(self) -> bool:
        return label_line(self.entry, self.cited_keys)

    @cached_property
    def clause_words(self) -> tuple[frozenset[str], ...]:
        return clause_words(self.entry, self.said_text)

    marker = _answered(lambda entry: _marker(entry.text.partition("\n")[0]))

    @cached_property
    def old(self) -> bool:
        """It says it is superseded (not that it replaced another)."""
        return self.marker is not None and self.marker.re is SUPERSEDED
    title_words = _answered(title_words)
    code_subject = _answered(code_subject)
