"""Bare file names are found by scanning back from ".md" to the word's start: the same words as a
search for the last separator before it, on every real memory file kept in bench/heldout."""

from __future__ import annotations

import re
from pathlib import Path

from curator.pointers.orphans import _MD_END, _SEPARATORS, _SNAKE, _WRAPPED, _NAME_LIKE, MAX_NAME, bare_names

ROOT = Path(__file__).resolve().parents[2]
_TOKEN_START = re.compile(f"[{_SEPARATORS}][^{_SEPARATORS}]*$")


def _by_search(text: str) -> set[str]:
    """The words as found before the backward scan: a regex search for the last separator."""
    found: set[str] = set()
    for match in _MD_END.finditer(text):
        lo = max(0, match.start() - MAX_NAME)
        start = _TOKEN_START.search(text, lo, match.start())
        word = text[start.start() + 1 if start else lo:match.end()]
        found.add(word.rpartition(":")[2] if "://" not in word else "")
    found.update(_SNAKE.findall(text))
    for code, paren in _WRAPPED.findall(text):
        found.add(code or (paren if _NAME_LIKE.search(paren) else ""))
    found.discard("")
    return found


def test_the_backward_scan_finds_the_same_words_on_real_memory() -> None:
    files = sorted((ROOT / "bench" / "heldout").rglob("*.md"))
    assert len(files) > 100
    named = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert set(bare_names(text)) == _by_search(text), path.name
        named += bool(bare_names(text))
    assert named > 50


def test_a_word_longer_than_a_name_is_cut_at_the_longest_name() -> None:
    text = "see " + "x" * 400 + ".md and (a/b.md), `c.md`, notes.MD."
    assert set(bare_names(text)) == _by_search(text)
    assert "x" * MAX_NAME + ".md" in bare_names(text)
