"""Where a seat lives on disk (spec §2): one directory per (agent id, harness), keyed by agent id only."""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_DOT_RUNS = re.compile(r"\.{2,}")
_SEGMENT_CAP = 40


@lru_cache(maxsize=65536)  # pure; a fleet plan asks for the same few segments many times
def seg(value: str) -> str:
    """A file-name-safe, collision-proof segment for ``value``.

    Readable part: unsafe characters become ``-``, dot runs collapse (so ``..`` can never appear),
    leading/trailing ``.``/``-`` go, at most 40 characters (``x`` if nothing is left). The sha256
    suffix keeps two values that clean up alike (``@a/b`` and ``@a-b``) apart.
    """
    readable = _DOT_RUNS.sub(".", _UNSAFE.sub("-", value)).strip(".-")[:_SEGMENT_CAP] or "x"
    return f"{readable}-{hashlib.sha256(value.encode('utf-8')).hexdigest()[:12]}"


@lru_cache(maxsize=65536)
def instance_home(instance_root: str | Path, agent_id: str, harness: str) -> Path:
    return Path(instance_root) / seg(agent_id) / seg(harness)


def memory_dir(instance_root: str | Path, agent_id: str, harness: str) -> Path:
    return instance_home(instance_root, agent_id, harness) / "memory"
