"""Owned projections (spec §6): the part of a fleet file the fleet owns, flattened to ``key → value``.

Two projections are compared as parsed values, so comments, formatting and anything outside the
owned keys are free for the resident. A file that does not parse has no projection: it is DIVERGENT.
Emitters build the expected projection from the same dict they render, with the functions below;
only the file on disk is parsed. Reading uses the stdlib's tomllib (values are what matter here, and
it is ~20x faster than tomlkit, which keeps formatting we never need when reading) and the C json
parser, falling back to json5 for hand-edited JSONC.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import json5

from generators.emission import KIMI_CONFIG, KIMI_MCP, OPENCODE_CONFIG

ABSENT = "<absent>"


class InvalidOwnedFile(ValueError):
    """The file cannot be parsed; ``reason`` starts with ``invalid TOML`` or ``invalid JSON``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# ------------------------------------------------------------------- projections of parsed documents


def key_part(name: str) -> str:
    """One part of a dotted owned key: as is, or as a JSON string when it holds a dot, a quote or a
    bracket (a path in a key), so adoption finds its place (``adoption.owned_path``)."""
    return json.dumps(name, ensure_ascii=False) if any(c in name for c in '.["]') else name


def kimi_config_projection(doc: Mapping[str, object]) -> dict[str, object]:
    permission = doc.get("permission", {})
    rules = permission.get("rules", ABSENT) if isinstance(permission, dict) else permission
    return {
        "default_permission_mode": doc.get("default_permission_mode", ABSENT),
        "default_model": doc.get("default_model", ABSENT),
        "permission.rules": rules,
        "hooks": doc.get("hooks", ABSENT),
    }


def kimi_mcp_projection(doc: dict, prefix: str) -> dict[str, object]:
    return _prefixed(doc, "mcpServers", prefix)


def opencode_projection(doc: dict, prefix: str) -> dict[str, object]:
    owned = {"instructions": doc.get("instructions", ABSENT)}
    owned.update(_prefixed(doc, "mcp", prefix))
    return owned


def _prefixed(doc: dict, key: str, prefix: str) -> dict[str, object]:
    table = doc.get(key, {})
    if not isinstance(table, dict):
        return {key: table}  # a non-object where the fleet's entries live: reported as that key
    return {f"{key}.{name}": value for name, value in table.items() if name.startswith(prefix)}


# The keys of the expected projections, known from the server names alone (a plan reports them for
# every fleet file, and builds the projection itself only for a file whose bytes differ).
KIMI_CONFIG_KEYS = tuple(kimi_config_projection({}))


def kimi_mcp_keys(names: Iterable[str], prefix: str) -> tuple[str, ...]:
    return tuple(kimi_mcp_projection({"mcpServers": dict.fromkeys(names)}, prefix))


def opencode_keys(names: Iterable[str], prefix: str) -> tuple[str, ...]:
    return tuple(opencode_projection({"mcp": dict.fromkeys(names)}, prefix))


# ---------------------------------------------------------------------------- projections of bytes


def project(convergence: str, data: bytes, prefix: str) -> dict[str, object]:
    """The owned projection of a fleet file's bytes. Raises InvalidOwnedFile if they do not parse."""
    projector = PROJECTORS.get(convergence)
    if projector is None:
        raise ValueError(f"no owned projection for {convergence!r}")
    return projector(data, prefix)


# convergence rule → (file bytes, mcp prefix) → owned projection. An emitter with a file kind of its
# own registers it here (``register_projector``); plan, the diff and adoption then handle it. Keys
# name their dotted place in the document (adoption inserts an absent key there).
PROJECTORS: dict[str, Callable[[bytes, str], dict[str, object]]] = {
    KIMI_CONFIG: lambda data, prefix: kimi_config_projection(parse_toml(data)),
    KIMI_MCP: lambda data, prefix: kimi_mcp_projection(json_object(data, json.loads), prefix),
    OPENCODE_CONFIG: lambda data, prefix: opencode_projection(json_object(data, loads_jsonc), prefix),
}


def register_projector(convergence: str, projector: Callable[[bytes, str], dict[str, object]]) -> None:
    PROJECTORS[convergence] = projector


def parse_toml(data: bytes) -> dict:
    text = _decode(data, "TOML")
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as err:
        raise InvalidOwnedFile(f"invalid TOML: {err}") from None


def loads_jsonc(text: str) -> Any:  # any JSON value, as json.loads gives it: callers check the shape they need
    """JSON5 semantics, fast: the generated shape (full-line ``//`` header, then plain JSON) parses
    with the C json parser; anything else (inline comments, trailing commas, unquoted keys) goes to
    json5, which is ~1000x slower on these files. JSON is a subset of JSON5, so both agree."""
    body = text.lstrip("\ufeff")
    start = 0  # past the leading blank and full-line comment lines, found without splitting the file
    while start < len(body):
        end = body.find("\n", start)
        line = body[start:] if end < 0 else body[start:end]
        if line.strip() and not line.lstrip().startswith("//"):
            break
        start = len(body) if end < 0 else end + 1
    try:
        return json.loads(body[start:])
    except ValueError:
        return json5.loads(text)


# Byte-order marks a strict JSON or TOML reader refuses (JSONC's readers skip the UTF-8 one).
_BOMS = ((b"\xef\xbb\xbf", "UTF-8"), (b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
         (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def _decode(data: bytes, kind: str, *, utf8_bom_ok: bool = False) -> str:
    for bom, encoding in _BOMS:
        if data.startswith(bom) and not (utf8_bom_ok and encoding == "UTF-8"):
            raise InvalidOwnedFile(f"invalid {kind}: starts with a {encoding} byte-order mark, which {kind} "
                                   "readers refuse; save it as UTF-8 without one")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidOwnedFile(f"invalid {kind}: not UTF-8 (byte {err.start})") from None


def json_object(data: bytes, loads: Callable[[str], object]) -> dict:
    """The top-level object of a JSON file, or InvalidOwnedFile."""
    text = _decode(data, "JSON", utf8_bom_ok=loads is loads_jsonc)
    try:
        doc = loads(text)
    except (ValueError, RecursionError) as err:  # JSONDecodeError and json5's errors are ValueErrors
        raise InvalidOwnedFile(f"invalid JSON: {err}") from None
    if not isinstance(doc, dict):
        raise InvalidOwnedFile("invalid JSON: the top level is not an object")
    return doc


# ------------------------------------------------------------------------------------- comparing


def differing_keys(expected: dict[str, object], found: dict[str, object]) -> list[str]:
    keys = list(expected) + [k for k in found if k not in expected]
    return [k for k in keys if expected.get(k, ABSENT) != found.get(k, ABSENT)]


def render(projection: dict[str, object]) -> list[str]:
    """Stable text of a projection for a unified diff (one owned key per block)."""
    text = json.dumps(projection, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    return [line + "\n" for line in text.split("\n")]
