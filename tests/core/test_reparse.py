"""The hot index's derived parse (curator/reparse.py) equals markdown-it's full parse of the new text,
on real memory files under random edits and on edits made to break it; and it is taken for the
edits it exists for."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from curator import markdown, reparse
from curator.index_model import parse_index

ROOT = Path(__file__).resolve().parents[2]
MEMORY_FILES = sorted((ROOT / "bench" / "heldout").rglob("*.md"))
# Lines chosen to end an item early, open a block, define a reference, change the list's marker,
# indent, or join the next line: each must fall back to a full parse or parse exactly as in full.
HOSTILE = ["- plain", "- [a]: /u", "- # h", "- ```", "- > q", "- <!-- c", "- | a | b |", "- ", "-",
           "- - -", "* x", "+ y", "-     code", "- x\\", "- x  ", "text", "", "1. one", "- [link](notes.md)",
           "- see [x][ref]", "- [[wiki]] and http://a.b/c", "  - nested", "- \ttab", "---", "- <div>",
           "-  two", "-    four", "- <!-- open", "- `code", "- [unclosed](", "- <https://x.y>", "===",
           "- a\n  b", "  continued", "    indented"]


def _fresh(text: str) -> None:
    reparse.forget()
    reparse.parse(text)


def _edit(rng: random.Random, lines: list[str]) -> list[str]:
    items = [i for i, line in enumerate(lines) if line[:2] in ("- ", "* ", "+ ")] or list(range(len(lines)))
    at = rng.choice(items)
    line = rng.choice([rng.choice(HOSTILE), lines[rng.choice(items)], lines[at] + " edited",
                       lines[at][: max(2, len(lines[at]) // 2)]])
    new = list(lines)
    roll = rng.random()
    if roll < 0.5:
        new[at] = line
    elif roll < 0.75:
        new.insert(at + rng.choice([0, 1]), line)
    elif roll < 0.9:
        del new[at]
    else:
        new[at : at + 2] = [line]
    return "\n".join(new).split("\n")


def test_the_memory_files_are_there() -> None:
    assert len(MEMORY_FILES) > 100


@pytest.mark.parametrize("seed", [0])
def test_a_derived_parse_equals_the_full_parse_under_random_edits(seed: int) -> None:
    rng = random.Random(seed)
    derived = 0
    for path in MEMORY_FILES:
        text = path.read_text(encoding="utf-8", errors="replace")
        _fresh(text)
        for _ in range(6):
            assert reparse._last is not None
            lines = _edit(rng, reparse._last.lines)
            new = "\n".join(lines)
            tokens = reparse.parse(new)
            full = markdown.parser().parse(new, {})
            assert tokens == full, f"{path.name}: {new!r}"
            derived += reparse._last.tokens is tokens and tokens is not full
    assert derived


def _index(count: int = 40) -> str:
    return "# Index\n\n## Lessons\n" + "".join(f"- lesson {n}: see [notes](notes-{n}.md)\n" for n in range(count)) \
        + "\n## Later\n- [ref]\n\n[ref]: https://example.org\n"


def _derived(old: str, new: str) -> bool:
    _fresh(old)
    last = reparse._last
    assert last is not None
    tokens = reparse._derive(last, new.split("\n"))
    _fresh(new)
    assert reparse._last is not None
    if tokens is not None:
        assert tokens == reparse._last.tokens
    return tokens is not None


@pytest.mark.parametrize("old, new", [
    ("- lesson 5: see", "- lesson 5 (again): see"),  # an entry rewritten
    ("- lesson 0: see", "- lesson zero: see"),  # the list's first entry
    ("- lesson 39: see [notes](notes-39.md)\n", "- lesson 39: see [notes](notes-39.md)\n- a new one\n"),  # added
    ("- lesson 7: see [notes](notes-7.md)\n", ""),  # removed
    ("- lesson 3: see", "- lesson 3: see [ref] and"),  # a reference defined further down
])
def test_the_usual_edits_of_an_index_are_derived(old: str, new: str) -> None:
    text = _index()
    assert old in text
    assert _derived(text, text.replace(old, new, 1))


@pytest.mark.parametrize("old, new", [
    ("- lesson 5: see", "# lesson 5: see"),  # a heading now
    ("- lesson 5: see", "* lesson 5: see"),  # another list begins
    ("- lesson 5: see", "- [x]: /y\n- lesson 5: see"),  # a reference definition
    ("- lesson 5: see", "-      lesson 5: see"),  # indented code in the item
    ("## Later", "## Later\n  - nested under nothing"),  # outside the list
    ("- lesson 0: see [notes](notes-0.md)\n", ""),  # the list's first entry removed: the list moves
])
def test_other_edits_are_parsed_in_full(old: str, new: str) -> None:
    text = _index()
    assert old in text
    assert not _derived(text, text.replace(old, new, 1))


def test_an_indented_line_after_the_edit_falls_back() -> None:
    """``-  a`` then ``  - b``: b is a sibling; rewrite a as ``- a`` and b is nested in it."""
    text = "# x\n\n- one\n-  two\n  - three\n"
    assert not _derived(text, text.replace("-  two", "- two"))


def test_the_index_model_of_a_derived_parse_is_the_full_one() -> None:
    text = _index()
    parse_index(text.encode())
    new = text.replace("- lesson 5: see", "- lesson 5 (moved to [x](x.md)): see")
    derived = parse_index(new.encode())
    reparse.forget()
    full = parse_index(new.encode())
    assert derived == full
    assert any(link.target == "x.md" for link in derived.links)
