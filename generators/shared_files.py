"""Which fleet-owned files of different residents are one file on disk.

Two residents with the same repo, or with one repo a symlink to another (or a bind mount of it),
would write one ``opencode.jsonc`` or ``.mcp.json``: the second seat would boot with the first
seat's memory. Paths alone cannot see that, so each file is identified by what the disk says: the
device and inode of the file when it exists, else those of its nearest existing directory plus the
names below it. One ``stat`` per file for a settled fleet.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar
from collections.abc import Hashable, Iterable

T = TypeVar("T")


def file_identity(path: Path) -> Hashable:
    """Equal for two paths exactly when they name the same file (existing or still to be created)."""
    try:
        found = os.stat(path)  # follows symlinks on purpose: a link to another's file is that file
    except (OSError, ValueError):
        pass
    else:
        return ("file", found.st_dev, found.st_ino)
    below = [path.name]
    for parent in path.parents:
        try:
            found = os.stat(parent)
        except (OSError, ValueError):
            below.append(parent.name)
            continue
        return ("below", found.st_dev, found.st_ino, tuple(reversed(below)))
    return ("path", os.path.normpath(path))


def shared(entries: Iterable[tuple[str, Path, T, Hashable | None]]) -> list[list[tuple[str, Path, T]]]:
    """Groups of (owner id, path, payload) whose paths are one file and whose owners differ. An
    entry may bring its file's identity, from a stat already made (``("file", st_dev, st_ino)``)."""
    groups: dict[Hashable, list[tuple[str, Path, T]]] = {}
    for owner, path, payload, identity in entries:
        groups.setdefault(identity or file_identity(path), []).append((owner, path, payload))
    return [group for group in groups.values() if len({owner for owner, _, _ in group}) > 1]
