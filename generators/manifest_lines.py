"""Where a manifest key sits: the 1-based line of a dotted TOML path, for error messages."""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[|\[)\s*([^\[\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(r'^\s*("([^"]*)"|\'([^\']*)\'|[A-Za-z0-9_-]+)\s*=')


def _header_parts(name: str) -> tuple[str, ...]:
    parts = re.findall(r'"([^"]*)"|\'([^\']*)\'|([^.\s]+)', name)
    return tuple(next(p for p in groups if p) for groups in parts)


def locate(text: str, where: tuple) -> int | None:
    """The 1-based line of ``where`` (e.g. ``("residents", 2, "harness")``), or its table's line.

    tomlkit keeps no positions, so this walks the text: table headers (counting ``[[array]]``
    entries) and ``key =`` lines. Inline tables resolve to the line of their key.
    """
    table_path = tuple(p for p in where[:-1]) if where else ()
    key = where[-1] if where and not isinstance(where[-1], int) else None
    if key is None:
        table_path = where
    best = None
    current: tuple = ()
    counts: dict[tuple[str, ...], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            parts = _header_parts(header.group(2))
            if header.group(1) == "[[":
                counts[parts] = counts.get(parts, -1) + 1
                current = _with_indexes(parts, counts)
            else:
                current = _with_indexes(parts, counts)
            if current == tuple(where):
                return number
            if current == table_path and best is None:
                best = number
            continue
        match = _KEY.match(line)
        if match:
            name = match.group(2) or match.group(3) or match.group(1)
            if key is not None and current + (name,) == tuple(where):
                return number
            if current + (name,) == table_path and best is None:
                best = number  # a key holding an inline table or an array
            if current == () and where and name == where[0] and best is None:
                best = number
    return best


def _with_indexes(parts: tuple[str, ...], counts: dict[tuple[str, ...], int]) -> tuple:
    """``residents.mcp`` inside the third ``[[residents]]`` is ("residents", 2, "mcp")."""
    out: list = []
    for size in range(1, len(parts) + 1):
        out.append(parts[size - 1])
        prefix = parts[:size]
        if prefix in counts:
            out.append(counts[prefix])
    return tuple(out)
