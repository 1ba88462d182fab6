"""Emitting a standalone script = its source with the marked literal lines filled in.

A line ``NAME = <anything>  # seat-curator:literal`` is replaced by ``NAME = <repr(value)>`` with the
same marker; every other byte is copied. Deterministic, and the result stays a valid Python file.
"""

from __future__ import annotations

from pathlib import Path

SCRIPTS_DIR = Path(__file__).parent / "scripts"
HOOK_SCRIPT = "identity_anchor_hook.py"
WAKE_SCRIPT = "write_wake_envelope.py"
MARKER = "  # seat-curator:literal"


def script_source(name: str) -> bytes:
    return (SCRIPTS_DIR / name).read_bytes()


def emit_script(name: str, literals: dict[str, object] | None = None) -> bytes:
    literals = dict(literals or {})
    lines = script_source(name).decode("utf-8").split("\n")
    for index, line in enumerate(lines):
        if not line.endswith(MARKER):
            continue
        key = line.split(" = ", 1)[0]
        if key not in literals:
            raise KeyError(f"{name}: no value for the literal {key}")
        lines[index] = f"{key} = {literals.pop(key)!r}{MARKER}"
    if literals:
        raise KeyError(f"{name}: no literal line for {', '.join(sorted(literals))}")
    return "\n".join(lines).encode("utf-8")
