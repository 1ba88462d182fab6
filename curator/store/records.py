"""What the seat store records: a file's fingerprint, one file's step of a change, and a change
as applied (one journal entry, with enough to restore either side byte for byte)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from curator.change import check_name


class JournalState(StrEnum):
    """Where a journalled change stands; journal.json keeps the value, so old journals still load."""

    PENDING = "pending"  # journalled; its files are being written
    APPLIED = "applied"
    UNDOING = "undoing"  # an undo journalled; its files are being written back
    REDOING = "redoing"
    UNDONE = "undone"


IN_TRANSITION = (JournalState.PENDING, JournalState.UNDOING, JournalState.REDOING)  # journalled before the first write


class Side(StrEnum):
    """Where one file of a journalled change stands now: its before, its after, or neither."""

    BEFORE = "before"
    AFTER = "after"
    CHANGED = "changed"  # someone wrote to it since


@dataclass(frozen=True)
class Fingerprint:
    """What the store last saw of a file. ``sha256`` None = the file did not exist."""

    size: int
    mtime_ns: int
    sha256: str | None


ABSENT = Fingerprint(0, 0, None)


@dataclass(frozen=True)
class FileStep:
    before: str | None  # sha256 of the bytes before (None = absent)
    after: str | None
    mode: int  # permission bits to give the file when it is (re)created


@dataclass(frozen=True)
class AppliedChange:
    """One journal entry: a change as applied, with enough to restore either side byte for byte."""

    id: str
    description: str
    kind: str
    applied_at: str  # ISO 8601, UTC
    files: Mapping[str, FileStep]
    bytes_saved: int
    entry_ids: tuple[str, ...]
    warnings: tuple[str, ...]
    state: JournalState

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "description": self.description,
            "kind": self.kind,
            "applied_at": self.applied_at,
            "files": {n: {"before": s.before, "after": s.after, "mode": s.mode} for n, s in self.files.items()},
            "bytes_saved": self.bytes_saved,
            "entry_ids": list(self.entry_ids),
            "warnings": list(self.warnings),
            "state": self.state,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AppliedChange:
        files = {check_name(n): FileStep(s["before"], s["after"], int(s["mode"])) for n, s in data["files"].items()}
        return cls(
            id=str(data["id"]),
            description=str(data["description"]),
            kind=str(data.get("kind", "")),
            applied_at=str(data["applied_at"]),
            files=MappingProxyType(files),
            bytes_saved=int(data.get("bytes_saved", 0)),
            entry_ids=tuple(data.get("entry_ids", ())),
            warnings=tuple(data.get("warnings", ())),
            state=JournalState(data["state"]),  # an unknown state: ValueError, an unreadable journal
        )

    def with_state(self, state: JournalState) -> AppliedChange:
        return dataclasses.replace(self, state=state)



def side(step: FileStep, now: str | None) -> Side:
    return Side.AFTER if now == step.after else Side.BEFORE if now == step.before else Side.CHANGED

