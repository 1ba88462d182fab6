"""The fit preview: one plan of lever steps that brings MEMORY.md under the target (``plan_fit``),
a reason per step, steps that can be unticked (the rest is planned again, in a worker), the meter
after, whether the target is reached and what is left, and the questions the plan leaves to the
bearer (entries that look finished, splits), each with its evidence. Apply writes the plan shown as ONE change
through the screen's lever path (store, conflicts, journal, undo as for every lever)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual import on, work
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Button, SelectionList, Static
from textual.widgets.selection_list import Selection

from curator.screens.dialogs import ConfirmDialog
from curator.widgets.verbatim import verbatim
from curator.screens.worker_errors import ReportsWorkerErrors

if TYPE_CHECKING:
    from curator.change import Change
    from curator.index_model import HotIndex
    from curator.levers.fit import FitPlan, FitStep

# plan(skip) -> FitPlan; describe(plan) -> the body (summary and diff)
Planner = Callable[[tuple[int, ...]], "FitPlan"]


class FitLevers(Protocol):
    """What the fit preview uses of the index screen's lever flows (``LeverFlows``)."""

    @property
    def screen(self) -> Any: ...  # the index screen: its memory dir, limits and status line
    @property
    def app(self) -> Any: ...
    def disk_index(self) -> HotIndex | None: ...
    def preview(self, change: Change, index: HotIndex, refused: list[str]) -> Content: ...
    def apply(self, change: Change, note: str = "") -> None: ...


def step_label(step: FitStep) -> Content:
    from curator.levers.fit import line_ranges

    where = line_ranges(step.lines)
    return verbatim(f"{step.number}. {step.kind} · saves {step.bytes_saved:,} B · line {where}: {step.reason}")


class FitDialog(ReportsWorkerErrors, ConfirmDialog):
    """Dismisses True to apply ``self.plan.change`` (the plan shown for the ticked steps)."""

    def __init__(self, plan: FitPlan, replan: Planner, describe: Callable[[FitPlan], Content]) -> None:
        super().__init__("Fit under the target: preview", describe(plan), "Apply")
        self.plan = plan
        self.replan = replan
        self.describe = describe
        self.shown_skip: tuple[int, ...] = ()

    def compose_above_body(self) -> ComposeResult:
        yield Static(verbatim("Steps — tab here, space unticks one (the rest is planned again):"), classes="merge-hint")
        yield SelectionList[int](*(Selection(step_label(s), s.number, s.selected) for s in self.plan.steps),
                                 id="fit-steps")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#yes", Button).disabled = self.plan.change is None

    def wanted_skip(self) -> tuple[int, ...]:
        ticked = set(self.query_one("#fit-steps", SelectionList).selected)
        return tuple(s.number for s in self.plan.steps if s.number not in ticked)

    @on(SelectionList.SelectedChanged, "#fit-steps")
    def ticks_changed(self) -> None:
        skip = self.wanted_skip()
        if skip != self.shown_skip:
            self.query_one("#yes", Button).disabled = True  # until the plan for these ticks is shown
            self.plan_worker(skip)

    @work(thread=True, exclusive=True, group="fit-replan", exit_on_error=False)
    def plan_worker(self, skip: tuple[int, ...]) -> None:
        plan = self.replan(skip)
        self.app.call_from_thread(self.show_plan, skip, plan)

    def show_plan(self, skip: tuple[int, ...], plan: FitPlan) -> None:
        if skip != self.wanted_skip():
            return  # ticked on since: a newer plan is coming
        self.plan, self.shown_skip = plan, skip
        self.query_one("#confirm-body", Static).update(self.describe(plan))
        self.query_one("#yes", Button).disabled = plan.change is None

    def is_settled(self) -> bool:
        return self.wanted_skip() == self.shown_skip and not any(not w.is_finished for w in self.workers)

    def action_answer(self, answer: bool) -> None:
        if not answer:
            self.dismiss(False)
        elif self.wanted_skip() == self.shown_skip and self.plan.change is not None:
            self.dismiss(True)  # never a plan the bearer has not seen


def open_fit(levers: FitLevers) -> None:
    """F6 on the index screen: plan the fit on the saved index, preview it, apply what is shown."""
    from curator.errors import CuratorError
    from curator.levers.fit import plan_fit

    screen, app = levers.screen, levers.app
    index = levers.disk_index()
    if index is None:
        return
    target = screen.limits.target

    def plan(skip: tuple[int, ...]) -> FitPlan:
        return plan_fit(screen.memory_dir, index, target=target, skip=skip)

    try:
        first = plan(())
    except CuratorError as err:
        app.notify(str(err), title="Cannot fit", severity="error", markup=False)
        return
    if not first.steps and not first.questions:  # questions alone still open the preview: they are the news
        app.notify(f"Nothing to fit: MEMORY.md is {first.before:,} B, target {target:,} B"
                   + ("." if first.reached else f". {first.left}"), markup=False, timeout=8)
        return

    def describe(fit: FitPlan) -> Content:
        head = [verbatim(f"MEMORY.md {fit.before:,} B → {fit.after:,} B (target {fit.target:,} B) · "
                         + ", ".join(f"{k} ×{n}" for k, n in fit.counts.items() if n), "bold"),
                verbatim("TARGET REACHED" if fit.reached else f"TARGET NOT REACHED: {fit.left}",
                         "bold $success" if fit.reached else "bold $warning"),
                verbatim(f"pointer problems: {fit.problems_before} before, {fit.problems_after} after")]
        head += [verbatim(f"left out: {note}", "$warning") for note in fit.left_out]
        for q in fit.questions:  # judgment stays the bearer's: asked with its evidence, never a step
            head += [verbatim(f"question: {q.question}", "$accent"), *(verbatim(f"  {said}") for said in q.said())]
        if fit.change is None:
            none = "No step ticked" if fit.steps else "No step: the rest is the questions above"
            return Content("\n").join([*head, verbatim(f"{none}: nothing would be written.", "$warning")])
        return Content("\n").join([*head, levers.preview(fit.change, index, [])])

    dialog = FitDialog(first, plan, describe)

    def decided(yes: bool | None) -> None:
        if yes and dialog.plan.change is not None:
            levers.apply(dialog.plan.change)
        else:
            screen.set_status("Cancelled: nothing was written.")

    app.push_screen(dialog, decided)
