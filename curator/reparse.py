"""The hot index's parse, derived from the last one when an edit only rewrites, adds or removes
one-line items of a top-level bullet list: the usual edit of an index, by an agent's ``str_replace``
or a keystroke in the editor. Every other edit is parsed in full.

Why the derived tokens equal markdown-it's own parse of the new text: a top-level bullet item whose
content is one paragraph on one line is parsed alone (its paragraph cannot continue onto a line
that starts another item of the same list, nor reach back into the line before it), except for
what the whole document decides, and that is carried over: reference definitions (``env``; a
paragraph item defines none, so old and new lines change none), the list's tightness (blank lines,
which such an edit neither adds nor removes) and line numbers (shifted). The tests compare both
parses on real memory files under random edits (tests/core/test_reparse.py).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace

from markdown_it.token import Token

from curator import markdown

# The shape of one item: its list's own marker, 1-4 spaces (5 would open an indented code block),
# then text. Tabs are left to a full parse (they count by columns).
_ITEM = {marker: re.compile(rf"^{re.escape(marker)} {{1,4}}\S") for marker in "-*+"}
_ITEM_SHAPE = ["bullet_list_open", "list_item_open", "paragraph_open", "inline", "paragraph_close",
               "list_item_close", "bullet_list_close"]


@dataclass
class _Parse:
    lines: list[str]
    tokens: list[Token]
    env: dict[str, object]


_last: _Parse | None = None
_lock = threading.Lock()  # the MCP server's tools run in worker threads


def parse(text: str) -> list[Token]:
    """markdown-it's tokens for ``text`` (the same as ``markdown.parse``), derived from the last
    parse when the edit allows it. Tokens are shared with the last parse, never changed in place:
    the caller's to read, not to change."""
    global _last
    with _lock:
        lines = text.split("\n")
        last = _last
        tokens = _derive(last, lines) if last is not None else None
        if last is None or tokens is None:
            env: dict[str, object] = {}
            tokens = markdown.parser().parse(text, env)
            _last = _Parse(lines, tokens, env)
        else:
            _last = _Parse(lines, tokens, last.env)
        return tokens


def forget() -> None:
    """The next parse is a full one (benchmarks measure it; tests start from it)."""
    global _last
    with _lock:
        _last = None


def _derive(last: _Parse, lines: list[str]) -> list[Token] | None:
    old = last.lines
    if old == lines:
        return last.tokens
    start = 0
    while start < len(old) and start < len(lines) and old[start] == lines[start]:
        start += 1
    tail = 0
    while tail < len(old) - start and tail < len(lines) - start and old[-1 - tail] == lines[-1 - tail]:
        tail += 1
    old_end, new_end = len(old) - tail, len(lines) - tail
    after = next((line for line in lines[new_end:] if line.strip()), "")
    if after[:1] in (" ", "\t"):
        return None  # an indented line may belong to the item before it, by that item's indent
    found = _edited_list(last.tokens, start, old_end, new_end > start)
    if found is None:
        return None
    list_at, first, stop, tight = found
    marker = last.tokens[list_at].markup
    made: list[Token] = []
    for number in range(start, new_end):
        item = _one_item(lines[number], marker, tight, number, last.env)
        if item is None:
            return None
        made += item
    tokens = last.tokens[:first] + made + last.tokens[stop:]
    delta = new_end - old_end
    if delta:
        for at in range(first + len(made), len(tokens)):
            _move(tokens, at, delta, delta)
        _move(tokens, list_at, 0, delta)
    _close_items(tokens, list_at)
    return tokens


def _move(tokens: list[Token], at: int, start: int, end: int) -> None:
    """Shift a token's lines by a copy: the last parse's tokens may still be read by another thread."""
    token = tokens[at]
    if token.map and (start or end):
        tokens[at] = replace(token, map=[token.map[0] + start, token.map[1] + end])


def _close_items(tokens: list[Token], list_at: int) -> None:
    """Each item of the list ends where the next begins (blank lines between belong to the one
    before), the last where the list ends: as markdown-it maps them."""
    bounds = tokens[list_at].map
    assert bounds is not None
    item: int | None = None
    for at in range(list_at + 1, len(tokens)):
        token = tokens[at]
        if token.level == 0:
            break
        if token.level == 1 and token.type == "list_item_open" and token.map:
            if item is not None:
                _end_at(tokens, item, token.map[0])
            item = at
    if item is not None:
        _end_at(tokens, item, bounds[1])


def _end_at(tokens: list[Token], at: int, end: int) -> None:
    lines = tokens[at].map
    if lines is not None and lines[1] != end:
        _move(tokens, at, 0, end - lines[1])


def _edited_list(tokens: list[Token], start: int, old_end: int,
                 adds: bool) -> tuple[int, int, int, bool] | None:
    """Where lines [start, old_end) of the old text sit in one top-level bullet list as whole
    one-line paragraph items (blank lines after an item are the item's and stay where they are), with the line before them inside that list (or, when lines are added,
    a blank or heading line just before the list): (index of the list's open token, index of the
    first token to replace, index after the last). None when the edit is anything else."""
    single: dict[int, int] = {}  # line -> index of its one-line paragraph item's open token
    list_at, lists = -1, {}
    for index, token in enumerate(tokens):
        if token.level == 0 and token.nesting == 1:
            list_at = index if token.type == "bullet_list_open" else -1
        elif list_at >= 0 and token.level == 1 and token.type == "list_item_open" and token.map:
            if _is_paragraph_item(tokens, index) and tokens[index + 1].map == [token.map[0], token.map[0] + 1]:
                single[token.map[0]] = index
                lists[token.map[0]] = list_at
    region = range(start, old_end)
    if any(line not in single for line in region):
        return None
    owners = {lists[line] for line in region}
    if start - 1 in single:
        owners.add(lists[start - 1])
    elif not (adds and start in single and _opens_list(tokens, start)):
        return None
    if len(owners) != 1:
        return None
    list_at = owners.pop()
    beside = single[start - 1] if start - 1 in single else single[start]
    first = beside + 5 if start - 1 in single else beside  # after the item before, or at the list's first
    stop = single[old_end - 1] + 5 if old_end > start else first
    return list_at, first, stop, tokens[beside + 1].hidden


def _is_paragraph_item(tokens: list[Token], index: int) -> bool:
    shape = [token.type for token in tokens[index:index + 5]]
    return shape == _ITEM_SHAPE[1:6]


def _opens_list(tokens: list[Token], line: int) -> bool:
    """The top-level list opens on ``line`` (its first item is being rewritten or added to)."""
    return any(token.level == 0 and token.type == "bullet_list_open" and token.map and token.map[0] == line
               for token in tokens)


def _one_item(line: str, marker: str, tight: bool, number: int, env: dict[str, object]) -> list[Token] | None:
    """The tokens of ``line`` as one item of the list, at line ``number``; None unless it is a
    one-line paragraph item with the list's marker."""
    shape = _ITEM.get(marker)
    if shape is None or not shape.match(line):
        return None
    references = env.get("references")
    alone = markdown.parser().parse(line + "\n", {"references": dict(references) if isinstance(references, dict) else {}})
    if [token.type for token in alone] != _ITEM_SHAPE or alone[1].map != [0, 1] or alone[1].markup != marker:
        return None
    item = alone[1:6]
    item[1].hidden = item[3].hidden = tight
    for token in item:
        if token.map:
            token.map = [token.map[0] + number, token.map[1] + number]
    return item
