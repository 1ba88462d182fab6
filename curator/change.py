"""A change: the new bytes a lever wants written, per file, plus what a person needs to judge it.

Levers are pure functions from the model to a ``Change``; only the seat store writes. A change also
carries the sha256 of each file as the lever read it (``base``), so the store can refuse a plan made
from bytes that are no longer on disk.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from types import MappingProxyType
from collections.abc import Mapping

from curator.errors import InputError


def digest(data: bytes | None) -> str | None:
    """sha256 hex of ``data``; None stands for "the file does not exist"."""
    return None if data is None else hashlib.sha256(data).hexdigest()


def check_name(name: str) -> str:
    """A file name relative to the memory dir: no absolute paths, no '..', no empty parts."""
    path = PurePosixPath(name)
    if not name or path.is_absolute() or "\\" in name or any(part in ("", ".", "..") for part in name.split("/")):
        raise InputError(f"not a plain relative file name inside the memory dir: {name!r}", path=name)
    return name


@dataclass(frozen=True)
class Change:
    description: str
    files: Mapping[str, bytes | None]  # name relative to the memory dir -> new bytes (None = delete)
    # What a UI shows next to the change:
    bytes_saved: int = 0  # bytes the hot index shrinks by (negative if it grows)
    entry_ids: tuple[str, ...] = ()  # index entries this change touches
    warnings: tuple[str, ...] = ()  # e.g. pointers a forced merge drops
    kind: str = ""  # merge | archive | restore | trim-split | trim-tighten | ...
    base: Mapping[str, str | None] = field(default_factory=dict)  # name -> sha256 the plan was built on
    emptied_sections: tuple[str, ...] = ()  # headings an archive leaves with no entry (the UI offers dropping them)

    def __post_init__(self) -> None:
        for name in self.files:
            check_name(name)
        # Read-only views: a change handed around must not be edited after it was judged.
        object.__setattr__(self, "files", MappingProxyType(dict(self.files)))
        object.__setattr__(self, "base", MappingProxyType(dict(self.base)))
        object.__setattr__(self, "entry_ids", tuple(self.entry_ids))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        object.__setattr__(self, "emptied_sections", tuple(self.emptied_sections))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self.files))

    def summary(self) -> dict:
        """A JSON-ready digest for `--json` output and UI panels."""
        return {
            "kind": self.kind,
            "description": self.description,
            "files": list(self.names),
            "bytes_saved": self.bytes_saved,
            "entry_ids": list(self.entry_ids),
            "warnings": list(self.warnings),
        } | ({"emptied_sections": list(self.emptied_sections)} if self.emptied_sections else {})
