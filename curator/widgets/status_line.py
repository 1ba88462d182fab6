"""The status line: where every message of a screen goes — results, warnings, errors, and the app's
notifications — in a region of its own under the panels, so nothing ever covers the meter, a preview
or a dialog's buttons. A message goes when it is stale: after its timeout, or when the next one comes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.content import Content
from textual.timer import Timer
from textual.visual import VisualType
from textual.widgets import Static

from curator.widgets.verbatim import verbatim

STALE_AFTER = 10.0  # seconds a message stays unless it says otherwise
SEVERITY_STYLES = {"error": "bold $error", "warning": "$warning", "information": ""}


@dataclass(frozen=True)
class Notice:
    """One notification as the app received it (what tests read back)."""

    message: str
    title: str = ""
    severity: str = "information"


def notice_content(notice: Notice) -> Content:
    head = f"{notice.title}: " if notice.title else ""
    return verbatim(head + notice.message, SEVERITY_STYLES.get(notice.severity, ""))


class StatusLine(Static):
    _stale: Timer | None = None
    lasting: Content | None = None  # what to show once a passing message is stale (a state, not news)

    def __init__(self, *, folds: bool = False, **kwargs: Any) -> None:
        """``folds``: takes no row while it has nothing to say (a dialog's, under its body)."""
        super().__init__(**kwargs)
        self.folds = folds
        self.display = not folds

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(content, layout=layout)
        if self.folds:
            self.display = bool(str(content))

    def say(self, content: Content, timeout: float | None = STALE_AFTER, *, passing: bool = False) -> None:
        """Show ``content``; after ``timeout`` seconds it is cleared (None: it stays, and is what a later
        passing message gives way back to). ``passing``: a notification, which leaves the lasting state
        as it is; any other message is the screen's news and replaces it."""
        if self._stale is not None:
            self._stale.stop()
            self._stale = None
        if timeout is None:
            self.lasting = content
        elif not passing:
            self.lasting = None
        self.update(content)
        if timeout is not None:
            self._stale = self.set_timer(timeout, self.clear)

    def clear(self) -> None:
        self._stale = None
        self.update(self.lasting if self.lasting is not None else Content(""))
