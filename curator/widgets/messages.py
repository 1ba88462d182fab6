"""Typed messages the index screen routes between its parts (workers, panels, the file watcher)."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from curator.analysis import Analysis


class AnalysisReady(Message):
    """A worker finished analysing ``raw`` (the editor's bytes when it started)."""

    def __init__(self, raw: bytes, analysis: Analysis | None, extras: dict[str, Any] | None = None,
                 error: str = "") -> None:
        super().__init__()
        self.raw = raw
        self.analysis = analysis
        self.extras = extras or {}
        self.error = error


class ChangeApplied(Message):
    """The store wrote a change (a save, a lever, an undo or redo): files on disk are new."""

    def __init__(self, description: str, kind: str = ""):
        super().__init__()
        self.description = description
        self.kind = kind


class DiskState(StrEnum):
    """What the watcher saw become of MEMORY.md outside the app."""

    CHANGED = "changed"
    GONE = "gone"
    UNREADABLE = "unreadable"


class FileChangedOnDisk(Message):
    """The watcher saw MEMORY.md change under the app (``state``); ``detail`` says why it is unreadable."""

    def __init__(self, state: DiskState, detail: str = ""):
        super().__init__()
        self.state = state
        self.detail = detail


class GoToLine(Message):
    """A panel asks the editor to show ``line`` (1-based) with ``select`` selected."""

    def __init__(self, line: int, select: str = ""):
        super().__init__()
        self.line = line
        self.select = select
