"""Emitting a standalone script = its source with the marked literal lines filled in.

A line ``NAME = <anything>  # seat-curator:literal`` is replaced by ``NAME = <repr(value)>`` with the
same marker; every other byte is copied. Deterministic, and the result stays a valid Python file.
"""

from __future__ import annotations

from pathlib import Path

from curator import caches

SCRIPTS_DIR = Path(__file__).parent / "scripts"
HOOK_SCRIPT = "identity_anchor_hook.py"
WAKE_SCRIPT = "write_wake_envelope.py"
CAP_GUARD_SCRIPT = "cap_guard_hook.py"
MARKER = "  # seat-curator:literal"


def script_source(name: str) -> bytes:
    return (SCRIPTS_DIR / name).read_bytes()


@caches.kept  # split once per process: a fleet plan emits the same script a thousand times
def _split_at_literals(name: str) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    """The source as text chunks between literal lines, and each literal's name (None after the last)."""
    chunks: list[str] = []
    names: list[str | None] = []
    current: list[str] = []
    for line in script_source(name).decode("utf-8").split("\n"):
        if line.endswith(MARKER):
            chunks.append("\n".join(current + [""]))
            names.append(line.split(" = ", 1)[0])
            current = []
        else:
            current.append(line)
    chunks.append("\n".join(current))
    names.append(None)
    return tuple(chunks), tuple(names)


def emit_script(name: str, literals: dict[str, object] | None = None) -> bytes:
    if not literals:
        return _script_without_literals(name)
    return _emit(name, dict(literals))


@caches.kept  # the same bytes for every seat (the wake-envelope script has no literals)
def _script_without_literals(name: str) -> bytes:
    return _emit(name, {})


def _emit(name: str, literals: dict[str, object]) -> bytes:
    chunks, names = _split_at_literals(name)
    out = []
    for chunk, key in zip(chunks, names):
        out.append(chunk)
        if key is None:
            continue
        if key not in literals:
            raise KeyError(f"{name}: no value for the literal {key}")
        out.append(f"{key} = {literals.pop(key)!r}{MARKER}\n")
    if literals:
        raise KeyError(f"{name}: no literal line for {', '.join(sorted(literals))}")
    return "".join(out).encode("utf-8")


def identity_hook(harness: str, memory_dir: str | Path, seat_home: str | Path, boot_files: tuple[str, ...]) -> bytes:
    """The identity-anchor hook for one seat: ``harness`` picks the events it answers (kimi-code:
    UserPromptSubmit + PostCompact; claude-code: SessionStart), ``boot_files`` what it prints."""
    return emit_script(HOOK_SCRIPT, {"HARNESS": harness, "MEMORY_DIR": str(memory_dir),
                                     "SEAT_HOME": str(seat_home), "BOOT_FILES": tuple(boot_files)})


def cap_guard(harness: str, memory_dir: str | Path, server_name: str, read_limit: int) -> bytes:
    """The cap guard for one seat: blocks its harness's writes that take MEMORY.md past ``read_limit``,
    naming the levers of its MCP server ``server_name``."""
    return emit_script(CAP_GUARD_SCRIPT, {"HARNESS": harness, "MEMORY_DIR": str(memory_dir),
                                          "READ_LIMIT": read_limit, "MCP_SERVER": server_name})
