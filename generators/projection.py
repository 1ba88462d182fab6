"""Owned projections (spec §6): the part of a fleet file the fleet owns, flattened to ``key → value``.

Two projections are compared as parsed values, so comments, formatting and anything outside the
owned keys are free for the resident. A file that does not parse has no projection: it is DIVERGENT.
"""

from __future__ import annotations

import json

import json5
import tomlkit
from tomlkit.exceptions import ParseError

from generators.emission import KIMI_CONFIG, KIMI_MCP, OPENCODE_CONFIG

ABSENT = "<absent>"
KIMI_OWNED = ("default_permission_mode", "default_model", "permission.rules", "hooks")


class InvalidOwnedFile(ValueError):
    """The file cannot be parsed; ``reason`` starts with ``invalid TOML`` or ``invalid JSON``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def project(convergence: str, data: bytes, prefix: str) -> dict[str, object]:
    if convergence == KIMI_CONFIG:
        return _kimi_config(_decode(data, "TOML"))
    if convergence == KIMI_MCP:
        return _prefixed(_json(_decode(data, "JSON"), json.loads), "mcpServers", prefix)
    if convergence == OPENCODE_CONFIG:
        doc = _json(_decode(data, "JSON"), json5.loads)
        owned = {"instructions": doc.get("instructions", ABSENT)}
        owned.update(_prefixed(doc, "mcp", prefix))
        return owned
    raise ValueError(f"no owned projection for {convergence!r}")


def differing_keys(expected: dict[str, object], found: dict[str, object]) -> list[str]:
    keys = list(expected) + [k for k in found if k not in expected]
    return [k for k in keys if expected.get(k, ABSENT) != found.get(k, ABSENT)]


def render(projection: dict[str, object]) -> list[str]:
    """Stable text of a projection for a unified diff (one owned key per block)."""
    text = json.dumps(projection, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    return [line + "\n" for line in text.split("\n")]


def _decode(data: bytes, kind: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidOwnedFile(f"invalid {kind}: not UTF-8 (byte {err.start})") from None


def _kimi_config(text: str) -> dict[str, object]:
    try:
        doc = tomlkit.parse(text).unwrap()
    except (ParseError, ValueError, RecursionError) as err:
        raise InvalidOwnedFile(f"invalid TOML: {err}") from None
    permission = doc.get("permission", {})
    rules = permission.get("rules", ABSENT) if isinstance(permission, dict) else permission
    return {
        "default_permission_mode": doc.get("default_permission_mode", ABSENT),
        "default_model": doc.get("default_model", ABSENT),
        "permission.rules": rules,
        "hooks": doc.get("hooks", ABSENT),
    }


def _json(text: str, loads) -> dict:
    try:
        doc = loads(text)
    except (ValueError, RecursionError) as err:  # JSONDecodeError and json5's errors are ValueErrors
        raise InvalidOwnedFile(f"invalid JSON: {err}") from None
    if not isinstance(doc, dict):
        raise InvalidOwnedFile("invalid JSON: the top level is not an object")
    return doc


def _prefixed(doc: dict, key: str, prefix: str) -> dict[str, object]:
    table = doc.get(key, {})
    if not isinstance(table, dict):
        return {key: table}  # a non-object where the fleet's entries live: reported as that key
    return {f"{key}.{name}": value for name, value in table.items() if name.startswith(prefix)}
