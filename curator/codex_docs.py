"""The AGENTS.md files Codex loads for a working directory, and what its shared byte budget cuts.

Codex CLI collects "project docs" from the git root down to the working directory: in each
directory the first of ``AGENTS.override.md`` and ``AGENTS.md`` that exists. Every file is cut to
the budget still left of ``project_doc_max_bytes`` (32 KiB by default), silently but for a log line,
and the parts are joined with a blank line (openai/codex ``core/src/project_doc.rs``). The seat's
memory does not ride this budget (its hook injects it as a developer message), but a repo whose
AGENTS.md files use it up loses their tail without a word, so the codex profile reports it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_BYTES = 32 * 1024
CANDIDATES = ("AGENTS.override.md", "AGENTS.md")


@dataclass(frozen=True)
class ProjectDoc:
    path: Path
    size: int  # bytes on disk
    loaded: int  # bytes Codex keeps of it


def discover(cwd: Path) -> list[Path]:
    """The project docs Codex would read for ``cwd``, git root first."""
    cwd = Path(os.path.realpath(cwd))
    chain = [cwd]
    root = None
    for folder in [cwd, *cwd.parents]:
        if (folder / ".git").exists():
            root = folder
            break
    if root is not None:
        chain = [p for p in [cwd, *cwd.parents] if p == root or root in p.parents][::-1]
    found = []
    for folder in chain:
        for name in CANDIDATES:
            path = folder / name
            if path.is_file():
                found.append(path)
                break
    return found


def budget(cwd: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> list[ProjectDoc]:
    """Each project doc with what the shared budget keeps of it, in load order."""
    left, docs = max_bytes, []
    for path in discover(cwd):
        try:
            size = path.stat().st_size
        except OSError:
            continue
        kept = min(size, left)
        left -= kept
        docs.append(ProjectDoc(path, size, kept))
    return docs
