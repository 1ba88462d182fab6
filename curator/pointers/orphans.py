"""Orphans: the boot files, which files are memories, and what reaches a file by a link or a bare name."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping

from curator.constants import ARCHIVE_NAME, IDENTITY_NAME, INDEX_NAME
from curator.pointers.targets import is_markdown

# What a harness loads at boot: MEMORY.md, identity.md (kimi-code, opencode), USER.md (Hermes).
BOOT_NAMES = (INDEX_NAME, IDENTITY_NAME, "USER.md")
ROOT_NAMES = BOOT_NAMES + (ARCHIVE_NAME,)


# Files a repository keeps beside memories that are not memories: never orphans (by stem, any case).
NOT_MEMORY_STEMS = frozenset({"readme", "claude", "agents", "gemini", "license", "licence", "copying", "notice",
                              "changelog", "contributing", "code_of_conduct", "security"})
NOT_MEMORY_PREFIXES = ("license-", "licence-", "license_", "licence_")


# A bare file name: what ends in .md, a snake_case word, or a whole code span / parenthesis.
_MD_END = re.compile(r"\.(?:md|markdown)(?![\w-])", re.IGNORECASE)
_SEPARATORS = "\\s`'\"()\\[\\]{}<>|,;!?*=，。；：、（）「」『』【】《》"
_WORD_BACKWARDS = re.compile(f"[^{_SEPARATORS}]*")  # matched on the text before ".md", reversed
_SNAKE = re.compile(r"(?<![\w./-])[A-Za-z0-9][\w-]*_[\w-]*[A-Za-z0-9](?![\w/-]|\.\w)")
_WRAPPED = re.compile(r"`([^`\s]{2,200})`|\(([^()\s]{2,200})\)")
_NAME_LIKE = re.compile(r"[-_./\d]")
MAX_NAME = 300  # no file name is longer: the scan back from ".md" stops here


def bare_names(text: str) -> tuple[str, ...]:
    """Every word of ``text`` that may name a file bare, once each, in no particular order. A scan
    of the text by compiled patterns: linear, whatever its size."""
    found: set[str] = set()
    for match in _MD_END.finditer(text):
        lo = max(0, match.start() - MAX_NAME)
        before = _WORD_BACKWARDS.match(text[lo:match.start()][::-1])  # back to the last separator
        word = text[match.start() - (before.end() if before else 0):match.end()]
        found.add(word.rpartition(":")[2] if "://" not in word else "")
    found.update(_SNAKE.findall(text))
    for code, paren in _WRAPPED.findall(text):
        # A whole code span may be a plain word (`user`); a parenthesis only a name-like one.
        found.add(code or (paren if _NAME_LIKE.search(paren) else ""))
    found.discard("")
    return tuple(found)


def is_memory(name: str) -> bool:
    """A markdown file a memory dir holds as a memory: not a README, CLAUDE.md, LICENSE, … kept
    there for people or for another tool."""
    stem = posixpath.splitext(posixpath.basename(name))[0].lower()
    return stem not in NOT_MEMORY_STEMS and not stem.startswith(NOT_MEMORY_PREFIXES)


class BareNames:
    """Which memory file a bare word names, if any: ``dir/x.md`` relative to the file that says it or
    to the memory dir, a path that ends in a memory's path (``.claude/memory/x.md``), a base name or
    stem that only one memory has. A name is whole: ``sre-ops-checks.md`` does not name
    ``ops-checks.md``, nor does ``~/.claude/agents/ops-checks.md`` unless the memory dir is that
    folder (``home``: the memory dir's path by parts)."""

    def __init__(self, docs: Iterable[str], home: Iterable[str] = ()) -> None:
        self.docs = set(docs)
        self.home = tuple(home)  # the memory dir's own path, by parts: where a written folder may lead
        self.base: dict[str, list[str]] = {}
        self.stem: dict[str, list[str]] = {}
        for name in self.docs:
            base = posixpath.basename(name)
            self.base.setdefault(base, []).append(name)
            self.stem.setdefault(posixpath.splitext(base)[0], []).append(name)

    def target(self, source: str, word: str) -> str | None:
        word = word.split("#", 1)[0].lstrip("@").rstrip(".:")
        if not word or "://" in word:
            return None
        if not is_markdown(word):
            if "/" in word:
                word += ".md"
            else:
                hits = self.stem.get(word, ())
                return hits[0] if len(hits) == 1 else None
        here = posixpath.normpath(posixpath.join(posixpath.dirname(source), word))
        if here in self.docs:
            return here
        parts = [part for part in posixpath.normpath(word).split("/") if part not in ("", ".", "..")]
        for depth in range(len(parts), 1, -1):
            tail = "/".join(parts[-depth:])
            if tail in self.docs:
                return tail
        if len(parts) > 1 and not self._leads_home(parts[:-1]):
            return None  # a folder that is not the memory dir's: another file of the same name
        hits = self.base.get(parts[-1], ()) if parts else ()
        return hits[0] if len(hits) == 1 else None

    def _leads_home(self, folders: list[str]) -> bool:
        """``folders`` (``.claude/memory``) end the memory dir's own path, so they lead into it."""
        folders = [part for part in folders if part != "~"]
        return not folders or tuple(folders) == self.home[len(self.home) - len(folders):]


def _reach(roots: Iterable[str], *edge_maps: Mapping[str, set[str]]) -> set[str]:
    reached: set[str] = set()
    stack = list(roots)
    while stack:
        current = stack.pop()
        if current in reached:
            continue
        reached.add(current)
        for edges in edge_maps:
            stack.extend(edges.get(current, ()))
    return reached
