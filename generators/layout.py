"""Where a seat lives on disk (spec §2): one directory per (agent id, harness), keyed by agent id only."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from curator import caches

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_DOT_RUNS = re.compile(r"\.{2,}")
_SEGMENT_CAP = 40


def seg(value: str) -> str:
    """A file-name-safe, collision-proof segment for ``value``.

    Readable part: unsafe characters become ``-``, dot runs collapse (so ``..`` can never appear),
    leading/trailing ``.``/``-`` go, at most 40 characters (``x`` if nothing is left). The sha256
    suffix keeps two values that clean up alike (``@a/b`` and ``@a-b``) apart.
    """
    readable = _DOT_RUNS.sub(".", _UNSAFE.sub("-", value)).strip(".-")[:_SEGMENT_CAP] or "x"
    return f"{readable}-{hashlib.sha256(value.encode('utf-8')).hexdigest()[:12]}"


@caches.kept(maxsize=65536)
def instance_home(instance_root: str | Path, agent_id: str, harness: str) -> Path:
    return Path(instance_root) / seg(agent_id) / seg(harness)


def memory_dir(instance_root: str | Path, agent_id: str, harness: str) -> Path:
    return seat_path(instance_root, agent_id, harness, "memory")


# Pure and cached like the above: re-planning a fleet (the app refreshes its fleet panel) builds the
# same few thousand paths each time, and pathlib's joins and string formatting cost more than the
# lstat calls the plan makes on them. Only names are cached here, never anything read from disk.
@caches.kept(maxsize=65536)
def seat_path(instance_root: str | Path, agent_id: str, harness: str, *relative: str) -> Path:
    """A path inside the seat home, e.g. ``seat_path(root, id, harness, "memory", "MEMORY.md")``."""
    return _formatted(instance_home(instance_root, agent_id, harness).joinpath(*relative))


@caches.kept(maxsize=65536)
def repo_path(repo: Path, *relative: str) -> Path:
    """A path inside a resident's repo (``.mcp.json``, ``opencode.jsonc``)."""
    return _formatted(repo.joinpath(*relative))


def _formatted(path: Path) -> Path:
    str(path)  # pathlib formats a path once and keeps the text: the composer's safety walk needs it
    return path
