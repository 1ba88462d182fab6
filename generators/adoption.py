"""Adopting a resident's own config file: add the fleet's owned keys, keep every other byte.

A repo or seat home often already holds its own ``opencode.jsonc``, ``mcp.json`` or ``.mcp.json``,
with the user's keys and comments. When the fleet's owned keys are simply *absent* from it (not
set to other values), the file can be adopted: the owned keys are added and nothing else changes.
A file whose owned keys hold other values is not adoptable: it stays DIVERGENT.

Generic over an artifact's owned projection, so any emitter's files get it: an owned key names its
place in the document, dotted (``mcp.neo-mjs-memory-core`` is ``doc["mcp"]["neo-mjs-memory-core"]``;
server names hold no dots), and the file's suffix picks the format (``.toml``; ``.json``/``.jsonc``).
A key ending in ``[selector]`` owns *entries* of the array at the dotted place (Claude Code's
``permissions.allow[mcp__neo-mjs-*]``): its projection is the list of the fleet's entries, absent when
empty, and adopting it appends them to the array (created, with its parents, when missing).

TOML is edited with tomlkit, which keeps comments and layout. For JSONC no library on PyPI is both
sound and well kept for *editing* (json5 and commentjson drop comments; json-five's round-trip model
has no API for inserting members with their layout; the jsonc-parser bindings are new native code),
so JSON is edited by splicing text: a small scanner (strings, comments, nesting: only what is needed
to find an object's members and its closing brace) finds where a member goes, and the new text is
inserted there; nothing is removed or rewritten. Every adoption is then proven before it is offered:
the new bytes parse (json5 / tomllib), their owned projection equals the fleet's, the document with
the added keys and array entries taken out equals the old one, and the old bytes are all still there, in order (the
change is insertions only).
"""

from __future__ import annotations

import copy
import difflib
import json
import tomllib
from dataclasses import dataclass
from collections.abc import Sequence
from pathlib import Path

import tomlkit

from curator.safe_replace import keep_line_endings
from generators.jsonc_scan import Scan as _Scan
from generators.not_adoptable import NotAdoptable
from generators.projection import ABSENT, InvalidOwnedFile, differing_keys, loads_jsonc, project


@dataclass(frozen=True)
class Adoption:
    """What ``provision --adopt`` would write into one existing file (pure data; nothing written)."""

    path: Path
    before: bytes
    after: bytes
    added_keys: tuple[str, ...]

    @property
    def diff(self) -> str:
        """A unified diff of the whole file, before → after (only added lines)."""
        return "".join(difflib.unified_diff(
            self.before.decode("utf-8").splitlines(True), self.after.decode("utf-8").splitlines(True),
            fromfile=f"{self.path} (on disk)", tofile=f"{self.path} (adopted)"))


# One owned key to add: its path in the document, the fleet's value, and whether the key owns entries
# of an array (the value then lists the entries to append) rather than the whole value.
Insert = tuple[tuple[str, ...], object, bool]

MAX_BYTES = 1_000_000  # a config file past this is not edited (hand-written configs are a few KB)


def owned_path(key: str) -> tuple[str, ...]:
    """The document path of an owned key. A part holding dots is written as a JSON string
    (``hooks.state."/a.b/hooks.json:session_start:0:0".trusted_hash``, ``projection.key_part``)."""
    if '"' not in key:
        return tuple(key.split("[", 1)[0].split("."))
    parts, at, decoder = [], 0, json.JSONDecoder()
    while at < len(key) and key[at] != "[":
        if key[at] == '"':
            part, at = decoder.raw_decode(key, at)
        else:
            end = min((i for i in (key.find(".", at), key.find("[", at)) if i >= 0), default=len(key))
            part, at = key[at:end], end
        parts.append(part)
        at += key[at:at + 1] == "."
    return tuple(parts)


def owns_entries(key: str) -> bool:
    """``a.b[selector]``: the key owns some entries of the array ``a.b``, not the whole value."""
    return key.endswith("]") and "[" in key


def _absent(key: str, value: object) -> bool:
    return value == ABSENT or (owns_entries(key) and value == [])


def adopt(path: Path, convergence: str, found: bytes, expected: dict[str, object], prefix: str) -> Adoption:
    """The adoption of ``found`` (the file's bytes) for an artifact whose owned projection is
    ``expected``. Raises NotAdoptable with the reason when the owned keys already hold other values,
    or when the edit cannot be proven to change nothing but them."""
    try:
        actual = project(convergence, found, prefix)
    except InvalidOwnedFile as err:
        raise NotAdoptable(err.reason) from None
    changed = differing_keys(expected, actual)
    if not changed:
        raise NotAdoptable("its owned keys already match: nothing to adopt")
    held = [k for k in changed if not _absent(k, actual.get(k, ABSENT))]
    if held:
        raise NotAdoptable("owned keys already hold other values: " + ", ".join(held), held=True)
    if len(found) > MAX_BYTES:
        raise NotAdoptable(f"{len(found):,} bytes: config files over {MAX_BYTES:,} bytes are not edited")
    inserts: list[Insert] = [(owned_path(key), expected[key], owns_entries(key)) for key in changed]
    kind = _format(path)
    try:
        text = found.decode("utf-8")
        new_text = _toml_adopt(text, inserts) if kind == "toml" else _json_adopt(text, inserts)
        after = keep_line_endings(found, new_text.encode("utf-8"))  # tomlkit adds LF lines to a CRLF file
        new_text = after.decode("utf-8")
        _prove(kind, convergence, text, new_text, after, inserts, expected, prefix)
    except NotAdoptable:
        raise
    except Exception as err:  # an offer, never a crash: whatever the editors trip on, the file stays as it is
        raise NotAdoptable(f"cannot be edited safely ({type(err).__name__}: {err})") from None
    return Adoption(path, found, after, tuple(changed))


def _format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".toml":
        return "toml"
    if suffix in (".json", ".jsonc", ".json5"):
        return "json"
    raise NotAdoptable(f"no adoption for {path.name} files")


# ------------------------------------------------------------------------------------------ proof


def _prove(kind: str, convergence: str, text: str, new_text: str, after: bytes, inserts: list[Insert],
           expected: dict[str, object], prefix: str) -> None:
    loads = tomllib.loads if kind == "toml" else loads_jsonc
    try:
        old_doc, new_doc = loads(text), loads(new_text)
        adopted = project(convergence, after, prefix)
    except (ValueError, InvalidOwnedFile, RecursionError) as err:
        raise NotAdoptable(f"the edited file would not parse ({err})") from None
    if differing_keys(expected, adopted):
        raise NotAdoptable("the edited file's owned keys would still differ")
    stripped = copy.deepcopy(new_doc)
    for path, value, entries in inserts:
        _remove(stripped, path, value if entries and _has(old_doc, path) else None)
    if _prune_empty(stripped, old_doc, inserts) != old_doc:
        raise NotAdoptable("the edit would change keys the fleet does not own")
    if not _is_subsequence(text, new_text):
        raise NotAdoptable("the edit would rewrite bytes outside the owned keys")


def _is_subsequence(old: str, new: str) -> bool:
    """Every character of ``old`` is in ``new``, in order: ``new`` is ``old`` with text inserted."""
    remaining = iter(new)
    return all(char in remaining for char in old)


def _remove(doc: dict, path: tuple[str, ...], appended: object = None) -> None:
    """Take an added key out, or with ``appended`` the entries appended at the end of its array."""
    for part in path[:-1]:
        doc = doc[part]
    if appended is None:
        del doc[path[-1]]
        return
    array = doc[path[-1]]
    assert isinstance(appended, list)  # the value of a key that owns entries lists them
    if not appended or array[len(array) - len(appended):] != appended:
        raise NotAdoptable("the edit would not end the array with the owned entries")
    del array[len(array) - len(appended):]


def _has(doc: dict, path: tuple[str, ...]) -> bool:
    return path[-1] in _at(doc, path[:-1])


def _prune_empty(doc: dict, old: dict, inserts: list[Insert]) -> dict:
    """Drop the parent tables the adoption created (empty once its keys are removed)."""
    for path, *_ in inserts:
        for size in range(len(path) - 1, 0, -1):
            node, before, key = _at(doc, path[:size - 1]), _at(old, path[:size - 1]), path[size - 1]
            if node.get(key) == {} and key not in before:
                del node[key]
    return doc


def _at(doc: object, path: tuple[str, ...]) -> dict:
    for part in path:
        doc = doc.get(part, {}) if isinstance(doc, dict) else {}
    return doc if isinstance(doc, dict) else {}


# ------------------------------------------------------------------------------------------- TOML


def _toml_adopt(text: str, inserts: list[Insert]) -> str:
    doc = tomlkit.parse(text)
    for path, value, entries in inserts:
        container = doc
        for part in path[:-1]:
            if part not in container:
                container[part] = tomlkit.table()
            container = container[part]
        if entries and path[-1] in container:
            container[path[-1]].extend(value)
        else:
            container[path[-1]] = tomlkit.item(value)
    return tomlkit.dumps(doc)


# ------------------------------------------------------------------------------------------- JSON
# The text is scanned by generators.jsonc_scan; these splice the new members into it.


def _json_adopt(text: str, inserts: list[Insert]) -> str:
    scan = _Scan(text)
    newline = "\r\n" if "\r\n" in text else "\n"
    top = scan.skip(0)
    # Group the inserts per target object: (path of the object) → [(key, value)].
    edits: dict[tuple[str, ...], list[tuple[str, object]]] = {}
    spliced = []  # (offset, text to insert there)
    for path, value, entries in inserts:
        members = scan.members(top)[0]
        for depth, part in enumerate(path):
            match = [m for m in members if m[0] == part]
            if len(match) > 1:
                raise NotAdoptable(f"the key {part!r} appears twice; which one counts is unclear")
            if not match:  # the rest of the path does not exist: insert it whole, one level up
                value = _nest(path[depth + 1:], value)
                path = path[:depth + 1]
                edits.setdefault(path[:-1], []).append((path[-1], value))
                break
            if depth == len(path) - 1:  # the array whose entries the key owns: append to it
                if not entries:
                    raise NotAdoptable(f"{'.'.join(path)} is already there")
                if text[match[0][2]] != "[":
                    raise NotAdoptable(f"{'.'.join(path)} is not an array")
                elements, close = scan.elements(match[0][2])
                assert isinstance(value, list)  # the value of a key that owns entries lists them
                spliced += _insertions(scan, match[0][2], elements, close, [(None, v) for v in value], newline)
                break
            if text[match[0][2]] != "{":
                raise NotAdoptable(f"{'.'.join(path[:depth + 1])} is not an object")
            members = scan.members(match[0][2])[0]
    # Splice from the end of the text backwards, so earlier offsets stay valid.
    for parent, added in edits.items():
        start = _object_start(scan, top, parent)
        members, close = scan.members(start)
        spliced += _insertions(scan, start, [(m[1], m[3]) for m in members], close, _merge(added), newline)
    out = text
    for at, insertion in sorted(spliced, key=lambda item: item[0], reverse=True):
        out = out[:at] + insertion + out[at:]
    return out


def _nest(path: tuple[str, ...], value: object) -> object:
    for part in reversed(path):
        value = {part: value}
    return value


def _merge(entries: list[tuple[str, object]]) -> list[tuple[str, object]]:
    """Entries for one object, with new parents that several keys share merged into one member."""
    merged: dict[str, object] = {}
    for key, value in entries:
        previous = merged.get(key)
        if key in merged and isinstance(previous, dict) and isinstance(value, dict):
            merged[key] = {**previous, **value}
        else:
            merged[key] = value
    return list(merged.items())


def _object_start(scan: _Scan, top: int, parent: tuple[str, ...]) -> int:
    start = top
    for part in parent:
        start = next(m[2] for m in scan.members(start)[0] if m[0] == part)
    return start


def _line_indent(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    prefix = text[line_start:at]
    return prefix[:len(prefix) - len(prefix.lstrip(" \t"))]


def _line_end(text: str, at: int) -> int:
    """Past the spaces and one-line comments after ``at`` up to the end of its line (where a new
    member goes, so a comment stays on the line it annotates), or ``at`` if other text follows."""
    i = at
    while i < len(text):
        if text[i] in " \t":
            i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0 or "\n" in text[i:end]:  # a block comment that runs on: the line ends before it
                break
            i = end + 2
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end - (text[end - 1] == "\r")  # a CRLF line ends at its \r
            break
        else:
            break
    if text.startswith("\r\n", i):
        return i
    return i if i >= len(text) or text[i] == "\n" else at


def _insertions(scan: _Scan, start: int, items: list[tuple[int, int]], close: int,
                entries: Sequence[tuple[str | None, object]],
                newline: str) -> list[tuple[int, str]]:
    """Where to insert ``entries`` ((key, value), or (None, value) for an array's elements) into the
    object or array at ``start`` whose items span ``items`` ((start, end) each), and the text for each
    place."""
    text = scan.text
    members = [(None, item_start, None, item_end) for item_start, item_end in items]
    base = _line_indent(text, start)
    multiline = "\n" in text[start:members[0][1]] if members else True
    indent = _line_indent(text, members[0][1]) if members and multiline else base + "  "

    def member(key: str | None, value: object) -> str:
        if multiline:
            rendered = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline + indent)
        else:  # an object written on one line gets its new members on that line too
            rendered = json.dumps(value, ensure_ascii=False)
        return rendered if key is None else f"{json.dumps(key, ensure_ascii=False)}: {rendered}"

    separator = "," + (newline + indent if multiline else " ")
    body = separator.join(member(key, value) for key, value in entries)
    if not members:
        inner = text[start + 1:close]
        tail = "" if "\n" in inner else newline + base
        return [(start + 1, newline + indent + body + tail)]
    last_end = members[-1][3]
    after = scan.skip(last_end)
    trailing = text[after] == ","  # a trailing comma stays a trailing comma
    if not multiline:
        return [(after + 1, " " + body + ",")] if trailing else [(last_end, ", " + body)]
    if trailing:
        return [(_line_end(text, after + 1), newline + indent + body + ",")]
    line_end = _line_end(text, last_end)
    if line_end == last_end:
        return [(last_end, "," + newline + indent + body)]
    return [(last_end, ","), (line_end, newline + indent + body)]
