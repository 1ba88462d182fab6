"""Repairing a fleet file whose owned keys hold other values: rewrite only those values, in place.

Adoption (generators.adoption) adds owned keys that are *absent*; repair is its twin for owned keys
that are *there with other values* (a hand edit, a moved interpreter, a catalog change). Only the
owned values change: every other key, comment, blank line and line ending stays byte for byte.

- TOML: tomlkit, assigning the owned values key by key inside the tables they live in (a value's
  trailing comment and its table's layout stay; an array of tables of the same length is repaired
  table by table).
- JSON/JSONC: splicing, like adoption (no well-kept library edits JSONC in place while keeping its
  comments; see adoption's docstring): adoption's scanner finds the span of each owned value and only
  that span is replaced. Objects and equal-length arrays are repaired member by member, so a comment
  inside a fleet-owned server entry stays too. Array entries the fleet owns (Claude Code's
  ``permissions.allow[mcp__neo-mjs-*]``) are replaced in place, extra ones removed, missing ones
  appended after the resident's own.
- A script (owned as a whole file) is repaired by writing the generated script again: no byte of it
  is the resident's.

Owned keys that are absent as well are then added by adoption, in a second step proven on its own.
Every repair is proven before it is offered: the new bytes parse, their owned projection equals the
fleet's, and the document with the owned keys taken out equals the old one with them taken out.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import tomlkit
from tomlkit.items import AoT, Item, Key, Table, Whitespace

from generators import adoption
from generators.adoption import (MAX_BYTES, Adoption, NotAdoptable, _insertions, _line_indent, _Scan, owned_path,
                                 owns_entries)
from generators.emission import WHOLE_FILE, WHOLE_FILE_KEYS, EmittedFile
from generators.projection import ABSENT, InvalidOwnedFile, differing_keys, loads_jsonc, project

# One owned value to rewrite: its path in the document, the fleet's value, and its owned key.
Edit = tuple[tuple[str, ...], object, str]

REPAIR_HINT = "`provision --repair` rewrites them in place and keeps the rest of the file"


@dataclass(frozen=True)
class Repair(Adoption):
    """What ``provision --repair`` would write into one existing file (pure data; nothing written).
    ``added_keys`` are the owned keys it rewrites (or adds)."""

    @property
    def diff(self) -> str:
        """A unified diff of the whole file, before → after."""
        return "".join(difflib.unified_diff(
            self.before.decode("utf-8", "replace").splitlines(True),
            self.after.decode("utf-8", "replace").splitlines(True),
            fromfile=f"{self.path} (on disk)", tofile=f"{self.path} (repaired)"))


class NotRepairable(ValueError):
    """Why a file cannot be repaired in place (set it aside instead)."""


def offer(item: EmittedFile, found: bytes, prefix: str) -> Repair | None:
    """The repair of a DIVERGENT fleet file read as ``found``, or None when its owned keys cannot be
    rewritten in place (it does not parse, or the edit cannot be proven)."""
    if item.convergence == WHOLE_FILE:
        return Repair(item.path, found, item.content, WHOLE_FILE_KEYS) if found != item.content else None
    if item.owned is None:
        return None
    try:
        return repair(item.path, item.convergence, found, item.owned, prefix)
    except NotRepairable:
        return None


def repair(path: Path, convergence: str, found: bytes, expected: dict[str, object], prefix: str) -> Repair:
    """The repair of ``found`` for an artifact whose owned projection is ``expected``. Raises
    NotRepairable with the reason when nothing is held to rewrite or the edit cannot be proven."""
    try:
        actual = project(convergence, found, prefix)
    except InvalidOwnedFile as err:
        raise NotRepairable(err.reason) from None
    changed = differing_keys(expected, actual)
    held = [k for k in changed if not adoption._absent(k, actual.get(k, ABSENT))
            and expected.get(k, ABSENT) != ABSENT]
    if not held:
        raise NotRepairable("no owned key holds another value")
    if len(found) > MAX_BYTES:
        raise NotRepairable(f"{len(found):,} bytes: config files over {MAX_BYTES:,} bytes are not edited")
    kind = adoption._format(path)
    try:
        text = found.decode("utf-8")
        edits: list[Edit] = [(owned_path(key), expected[key], key) for key in held]
        new_text = _toml_repair(text, edits) if kind == "toml" else _json_repair(text, edits, convergence, prefix)
        after = new_text.encode("utf-8")
        _prove(kind, convergence, text, new_text, held, expected, prefix)
        rest = differing_keys(expected, project(convergence, after, prefix))
        if rest:  # owned keys absent as well: adoption adds them, proven on its own
            after = adoption.adopt(path, convergence, after, expected, prefix).after
    except (NotRepairable, NotAdoptable) as err:
        raise NotRepairable(str(err)) from None
    except Exception as err:  # an offer, never a crash: the file stays as it is
        raise NotRepairable(f"cannot be edited safely ({type(err).__name__}: {err})") from None
    return Repair(path, found, after, tuple(changed))


# ------------------------------------------------------------------------------------------ proof


def _prove(kind: str, convergence: str, text: str, new_text: str, held: list[str], expected: dict[str, object],
           prefix: str) -> None:
    loads = tomllib.loads if kind == "toml" else loads_jsonc
    try:
        old_doc, new_doc = loads(text), loads(new_text)
        repaired = project(convergence, new_text.encode("utf-8"), prefix)
    except (ValueError, InvalidOwnedFile, RecursionError) as err:
        raise NotRepairable(f"the edited file would not parse ({err})") from None
    if any(repaired.get(k, ABSENT) != expected[k] for k in held):
        raise NotRepairable("the edited file's owned values would still differ")
    for key in held:
        _strip(old_doc, key, kind, convergence, prefix)
        _strip(new_doc, key, kind, convergence, prefix)
    if old_doc != new_doc:
        raise NotRepairable("the edit would change keys the fleet does not own")


def _strip(doc: dict, key: str, kind: str, convergence: str, prefix: str) -> None:
    """Take the owned ``key`` out of a parsed document (its entries only, for an entries key)."""
    path = owned_path(key)
    parent: object = doc
    for part in path[:-1]:
        parent = parent.get(part) if isinstance(parent, dict) else None
    if not isinstance(parent, dict) or path[-1] not in parent:
        return
    if owns_entries(key) and isinstance(parent[path[-1]], list):
        parent[path[-1]] = [e for e in parent[path[-1]] if not _is_owned(e, key, kind, convergence, prefix)]
    else:
        del parent[path[-1]]


def _is_owned(entry: object, key: str, kind: str, convergence: str, prefix: str) -> bool:
    """Whether one array entry is the fleet's: the projection of a document holding only it says so
    (the projection stays the one authority on what is owned)."""
    minimal: object = [entry]
    for part in reversed(owned_path(key)):
        minimal = {part: minimal}
    assert isinstance(minimal, dict)  # an owned key names at least one part
    data = (tomlkit.dumps(minimal) if kind == "toml" else json.dumps(minimal)).encode("utf-8")
    try:
        return project(convergence, data, prefix).get(key) == [entry]
    except InvalidOwnedFile:
        return False


# ------------------------------------------------------------------------------------------- TOML


def _plain(value: object) -> object:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _toml_repair(text: str, edits: list[Edit]) -> str:
    """tomlkit writes new tables with LF: in a file that is CRLF throughout, they get CRLF too."""
    out = _toml_edit(text, edits)
    if "\r\n" in text and "\n" not in text.replace("\r\n", ""):
        out = re.sub(r"(?<!\r)\n", "\r\n", out)
    return out


def _toml_edit(text: str, edits: list[Edit]) -> str:
    doc = tomlkit.parse(text)
    for path, value, key in edits:
        if owns_entries(key):
            raise NotRepairable(f"{key}: owned entries of a TOML array are not repaired in place")
        container: dict = doc
        for part in path[:-1]:
            inner = container.get(part)
            if not isinstance(inner, dict):
                raise NotRepairable(f"{'.'.join(path[:-1])} is not a table")
            container = inner
        _toml_set(container, path[-1], value)
    return tomlkit.dumps(doc)


def _toml_set(container: dict, key: str, value: object) -> None:
    """Give ``container[key]`` the value ``value``, touching only what differs."""
    current = container.get(key)
    if _plain(current) == value:
        return
    if isinstance(value, dict) and isinstance(current, dict):
        for name in [name for name in current if name not in value]:
            del current[name]
        for name, item in value.items():
            _toml_set(current, name, item)
    elif isinstance(current, AoT) and value and all(isinstance(item, dict) for item in cast("Iterable[object]", value)):
        _toml_set_tables(current, cast("list[dict]", value))  # (a value that is not iterable raised just above)
    else:
        container[key] = value


def _toml_set_tables(tables: AoT, value: list[dict]) -> None:
    """An array of tables, in place: the tables both have are repaired key by key, extra ones go
    from the end, missing ones are appended; the blank lines after the array stay after it."""
    for table, item in zip(tables, value):
        for name in [name for name in table if name not in item]:
            del table[name]
        for name, field in item.items():
            _toml_set(table, name, field)
    if len(tables) == len(value):
        return
    gap = _trailing_whitespace(tables[-1])
    while len(tables) > len(value):
        del tables[len(tables) - 1]
    for item in value[len(tables):]:
        tables.append(item)
    if gap is not None:
        tables[-1].value.body.append(gap)


def _trailing_whitespace(table: Table) -> tuple[Key | None, Item] | None:
    """Take the blank lines that end a table (they separate the array from what follows)."""
    body = table.value.body
    if body and body[-1][0] is None and isinstance(body[-1][1], Whitespace):
        return body.pop()
    return None


# ------------------------------------------------------------------------------------------- JSON


def _json_repair(text: str, edits: list[Edit], convergence: str, prefix: str) -> str:
    scan = _Scan(text)
    newline = "\r\n" if "\r\n" in text else "\n"
    changes: list[tuple[int, int, str]] = []  # (start, end, replacement)
    for path, value, key in edits:
        start = scan.skip(0)
        for part in path:
            members = [m for m in scan.members(start)[0] if m[0] == part] if text[start] == "{" else []
            if len(members) != 1:
                raise NotRepairable(f"{'.'.join(path)}: not found once where the fleet's value lives")
            start = members[0][2]
        end = scan.value_end(start)
        if owns_entries(key):
            changes += _entry_changes(scan, start, value, key, convergence, prefix, newline)
        else:
            changes += _value_changes(scan, start, end, value, newline)
    return _apply(text, changes)


def _value_changes(scan: _Scan, start: int, end: int, value: object, newline: str) -> list[tuple[int, int, str]]:
    """Edits that turn the JSON value spanning ``start:end`` into ``value``, member by member where
    its shape allows (comments between members stay)."""
    text = scan.text
    found = loads_jsonc(text[start:end])
    if found == value:
        return []
    if isinstance(value, dict) and isinstance(found, dict) and text[start] == "{":
        members, close = scan.members(start)
        names = [m[0] for m in members]
        if len(set(names)) != len(names):
            raise NotRepairable("a key appears twice in an owned object; which one counts is unclear")
        extra = [i for i, m in enumerate(members) if m[0] not in value]
        missing = [(k, v) for k, v in value.items() if k not in names]
        if not (extra and missing):
            changes = []
            for key, _, value_start, value_end in members:
                if key in value:
                    changes += _value_changes(scan, value_start, value_end, value[key], newline)
            changes += [_removal(scan, [(m[1], m[3]) for m in members], i) for i in extra]
            if missing:
                spans = [(m[1], m[3]) for m in members]
                changes += [(at, at, insert) for at, insert in _insertions(scan, start, spans, close, missing, newline)]
            return changes
    if isinstance(value, list) and isinstance(found, list) and len(value) == len(found) and text[start] == "[":
        elements, _ = scan.elements(start)
        return [change for (s, e), item in zip(elements, value) for change in _value_changes(scan, s, e, item, newline)]
    return [(start, end, _render(text, start, end, value, newline))]


def _entry_changes(scan: _Scan, start: int, value: object, key: str, convergence: str, prefix: str,
                   newline: str) -> list[tuple[int, int, str]]:
    """Edits of the array at ``start`` whose entries ``key`` owns: the owned entries take the fleet's
    values in order, extra owned entries go, missing ones are appended after the last entry."""
    text = scan.text
    if text[start] != "[":
        raise NotRepairable(f"{key}: not an array")
    assert isinstance(value, list)  # the value of a key that owns entries lists them
    elements, close = scan.elements(start)
    owned = [i for i, (s, e) in enumerate(elements)
             if _is_owned(loads_jsonc(text[s:e]), key, "json", convergence, prefix)]
    changes = []
    for i, item in zip(owned, value):
        changes += _value_changes(scan, *elements[i], item, newline)
    changes += [_removal(scan, elements, i) for i in owned[len(value):]]
    if len(value) > len(owned):
        extra = [(None, item) for item in value[len(owned):]]
        changes += [(at, at, insert) for at, insert in _insertions(scan, start, elements, close, extra, newline)]
    return changes


def _removal(scan: _Scan, items: list[tuple[int, int]], index: int) -> tuple[int, int, str]:
    """The span that removes item ``index`` of an object or array (items as (start, end)) with its
    comma: up to the next item's start, or for the last one from the previous item's end (a
    trailing comma then stays, on the item before)."""
    text = scan.text
    start, end = items[index]
    if index + 1 < len(items):
        return start, items[index + 1][0], ""
    if index == 0:  # the only item: its trailing comma goes with it
        after = scan.skip(end)
        return start, after + 1 if after < len(text) and text[after] == "," else end, ""
    if "/" in text[items[index - 1][1]:start]:
        raise NotRepairable("a comment sits before an owned entry to remove; set the file aside instead")
    return items[index - 1][1], end, ""


def _render(text: str, start: int, end: int, value: object, newline: str) -> str:
    """``value`` as JSON in the layout of the value it replaces: on one line if that was, else
    indented from the line it starts on."""
    if "\n" not in text[start:end]:
        return json.dumps(value, ensure_ascii=False)
    indent = _line_indent(text, start)
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline + indent)


def _apply(text: str, changes: list[tuple[int, int, str]]) -> str:
    out, last = text, len(text) + 1
    for start, end, replacement in sorted(changes, key=lambda c: (c[0], c[1]), reverse=True):
        if end > last:
            raise NotRepairable("two owned values overlap in the file; set it aside instead")
        out = out[:start] + replacement + out[end:]
        last = start
    return out
