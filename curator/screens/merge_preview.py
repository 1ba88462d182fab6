"""The merge preview with the merged line editable by the bearer.

The core's default line keeps the first entry and appends the others' distinct facets, so two
paraphrases barely shrink. Here the bearer can write the line: every edit (debounced) is re-planned
by the core (``plan_merge(..., text=...)``, in a thread) and the bytes saved, meter after and diff
follow. A plan the core refuses (the line drops a pointer, orphans a detail file) shows what would
be lost and needs 'Apply anyway'. Apply always applies the plan shown for the text in the field:
if an edit has not been re-planned yet, it is re-planned first and shown, and a refusal stops there.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Button, Input, Static

from curator.change import Change
from curator.errors import CuratorError
from curator.index_model import LIST_MARKER
from curator.screens.dialogs import ConfirmDialog
from curator.widgets.keymap import bindings
from curator.widgets.text_input import TextInput
from curator.widgets.verbatim import verbatim
from curator.screens.worker_errors import ReportsWorkerErrors

# plan(text) -> (change, what a refused plan would lose); text None means the core's default line.
MergePlanner = Callable[[str | None], tuple[Change, list[str]]]
Describer = Callable[[Change, list[str]], Content]


def editable_line(merged: str) -> str:
    """The default merged entry as one line without its list marker: what ``plan_merge(text=...)``
    takes (it puts the first entry's marker back). Continuation lines join with a space."""
    line = " ".join(part.strip() for part in merged.split("\n") if part.strip())
    return LIST_MARKER.sub("", line, count=1)


class MergeDialog(ReportsWorkerErrors, ConfirmDialog):
    """Dismisses True to apply ``self.change`` (the plan for the text in the field), False to cancel."""

    REPLAN_DELAY = 0.3  # seconds of quiet typing before the core re-plans
    KEY_TARGETS = ("merge_dialog", "confirm")
    BINDINGS = bindings("merge_dialog")

    def __init__(self, title: str, default_line: str, plan: MergePlanner, describe: Describer,
                 first: tuple[Change, list[str]]):
        change, refused = first
        super().__init__(title, describe(change, refused), "Apply anyway" if refused else "Apply",
                         danger=bool(refused))
        self.default_line = default_line
        self.plan = plan
        self.describe = describe
        self.change: Change | None = change
        self.refused: list[str] = list(refused)
        self.shown_text = default_line  # the field text the preview below was planned for
        self._timer: Timer | None = None
        self._submitted: str | None = None  # the field text enter was pressed on, until Apply has focus

    def compose_above_body(self) -> ComposeResult:
        yield Static(verbatim("Merged line — e to edit (ctrl+u clears to the left), enter when done; "
                              "the list marker is kept:"), classes="merge-hint")
        yield TextInput(self.default_line, id="merge-text", select_on_focus=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """e is a priority key (curator/keys.py) but, in the line itself, a letter: it types there."""
        if not super().check_action(action, parameters):
            return None  # not on screen yet
        if action == "edit":
            fields = self.query("#merge-text")
            return bool(fields) and not fields.first().has_focus
        return True

    def action_edit(self) -> None:
        field = self.query_one("#merge-text", Input)
        self.set_focus(field)  # at once: the keys typed right behind e go into the line
        field.cursor_position = len(field.value)

    # -- re-planning ---------------------------------------------------------------------------
    def planned(self, text: str) -> tuple[Change | None, list[str], str]:
        """(change, refused, error) for the field text; the unedited default is the core's own line
        (exactly, even when the first entry spans several lines)."""
        if not text.strip():
            return None, [], "The merged line is empty: write one, or Cancel."
        try:
            change, refused = self.plan(None if text == self.default_line else text)
        except CuratorError as err:
            return None, [], str(err)
        return change, refused, ""

    @on(Input.Changed, "#merge-text")
    def text_changed(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(self.REPLAN_DELAY, self.replan)

    @on(Input.Submitted, "#merge-text")
    def text_submitted(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._submitted = self.query_one("#merge-text", Input).value
        self.replan()
        self.focus_answer()

    def focus_answer(self) -> None:
        """After enter: once the plan for the submitted text is shown and can be applied, focus Apply,
        so y / enter answer for it. Focusing it earlier fails while an older plan (say, of the
        empty field) has it disabled, and the next y would be typed into the field."""
        yes = self.query_one("#yes", Button)
        if self._submitted == self.shown_text and not yes.disabled:
            self._submitted = None
            yes.focus()

    def replan(self) -> None:
        self._timer = None
        text = self.query_one("#merge-text", Input).value
        if text != self.shown_text:
            self.plan_worker(text)

    @work(thread=True, exclusive=True, group="merge-replan", exit_on_error=False)
    def plan_worker(self, text: str) -> None:
        result = self.planned(text)
        self.app.call_from_thread(self.show_plan, text, *result)

    def show_plan(self, text: str, change: Change | None, refused: list[str], error: str) -> None:
        if text != self.query_one("#merge-text", Input).value:
            return  # typed on since: a newer plan is coming
        self.shown_text, self.change, self.refused = text, change, refused
        body = self.describe(change, refused) if change is not None else verbatim(error, "bold $error")
        self.query_one("#confirm-body", Static).update(body)
        yes = self.query_one("#yes", Button)
        yes.label = f"{'Apply anyway' if refused else 'Apply'} (y)"
        yes.variant = "error" if refused else "primary"
        yes.disabled = change is None
        self.focus_answer()

    def is_settled(self) -> bool:
        """True when the preview shown is the plan for the field's text and no re-plan is pending."""
        return (self._timer is None
                and self.query_one("#merge-text", Input).value == self.shown_text
                and not any(not w.is_finished for w in self.workers))

    # -- the answer ----------------------------------------------------------------------------
    def confirmed(self) -> bool:
        """True when the plan shown is the one for the field text and it may be applied."""
        text = self.query_one("#merge-text", Input).value
        if text == self.shown_text:
            return self.change is not None
        # Not re-planned yet: plan now and show it; never apply a plan the bearer has not seen.
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.show_plan(text, *self.planned(text))
        return self.change is not None and not self.refused

    def action_answer(self, answer: bool) -> None:
        if not answer:
            self.dismiss(False)
        elif self.confirmed():
            self.dismiss(True)
