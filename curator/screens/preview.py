"""The one-key re-provision preview: every file's status and diff for the chosen residents.

``enter`` (or the Apply button) applies when nothing is DIVERGENT (the composer writes pending files
only, create-only); otherwise the screen says why it refuses and names the escape hatch (``x`` sets
the file aside, or keep the edit by hand). ``esc`` / ``q`` (or Cancel) close it. The screen fills
the terminal: the file list on top, the selected file's diff (in the file's own lines) below it,
scrollable from the keyboard (tab into it, then arrows / PgUp / PgDn), the buttons always in view.
The plan is re-read after every action; the result goes back to the fleet panel.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import HorizontalGroup, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, DataTable, Static

import styles
from curator.errors import CuratorError
from curator.screens.fleet import ask_repair, ask_set_aside
from curator.widgets.status_line import StatusLine
from curator.widgets.fleet_grid import artifact_detail, role_title, status_text
from curator.widgets.footer import KeysFooter
from curator.widgets.keymap import bindings
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim
from curator.screens.worker_errors import ReportsWorkerErrors
from generators.composer import ADOPTED, CREATED, DIVERGENT, MATCH, OUTDATED, PENDING, UPDATED

if TYPE_CHECKING:
    from textual.binding import Binding

    from generators.composer.plan import Artifact, ResidentPlan
    from generators.fleet_model import Fleet

ORDER = {DIVERGENT: 0, PENDING: 1, OUTDATED: 2, MATCH: 3}  # what needs a decision first


def short_where(plan: ResidentPlan, artifact: Artifact) -> tuple[str, str]:
    """(path relative to its base, "home" / "repo"), or the absolute path and nothing."""
    for base, label in ((plan.instance_home, "home"), (plan.repo, "repo")):
        if artifact.path.is_relative_to(base):
            return str(artifact.path.relative_to(base)), label
    return str(artifact.path), ""


class PreviewScreen(ReportsWorkerErrors, Screen[bool]):
    """Dismisses with True when something was applied or set aside (the fleet panel re-plans)."""

    CSS_PATH = [styles.path("fleet.tcss")]
    HELP_TITLE = "the re-provision preview"
    BINDINGS = bindings("preview")  # keys as data: curator/keys.py

    def __init__(self, fleet_path: Path, resident_ids: list[str]) -> None:
        super().__init__()
        self.fleet_path = fleet_path
        self.resident_ids = list(resident_ids)
        self.fleet: Fleet | None = None
        self.plans: list = []
        self.rows: list[tuple] = []  # (plan, artifact) per table row
        self.file_diffs: dict = {}  # path -> a divergent file's diff in its own lines
        self.changed = False

    def compose(self) -> ComposeResult:
        who = ", ".join(self.resident_ids)
        yield Static(verbatim(f"Re-provision preview · {who}"), id="preview-title")
        yield Static(id="preview-verdict")
        yield DataTable(id="preview-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="preview-diff"):
            yield Static(id="preview-diff-text")
        with HorizontalGroup(id="preview-buttons"):
            yield Button("Apply (enter)", id="apply", variant="primary", compact=True, disabled=True)
            yield Button("Adopt (a)", id="adopt", variant="warning", compact=True, classes="hidden")
            yield Button("Cancel (esc/q)", id="cancel", compact=True)
            yield Static(id="preview-hint")
        yield StatusLine(id="status", folds=True, classes="dialog-status")  # notices: never over the diff
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#preview-diff").border_title = "diff"
        self.query_one("#preview-table", DataTable).focus()
        self.replan()

    def replan(self) -> None:
        self.plan_worker()

    @work(thread=True, exclusive=True, group="preview-plan", exit_on_error=False)
    def plan_worker(self) -> None:
        from generators.composer import plan_fleet
        from generators.file_diff import file_diff
        from generators.manifest import load_manifest

        try:
            fleet = load_manifest(self.fleet_path)
            plans = [plan for rid in self.resident_ids for plan in plan_fleet(fleet, rid)]
            diffs = {a.path: file_diff(a) for p in plans for a in p.artifacts if a.status == DIVERGENT}
        except CuratorError as err:
            self.app.call_from_thread(self.show_error, str(err))
            return
        self.app.call_from_thread(self.show_plans, fleet, plans, diffs)

    def show_error(self, message: str) -> None:
        verdict = self.query_one("#preview-verdict", Static)
        verdict.set_classes("refused")
        verdict.update(verbatim(f"Cannot plan: {message}", "bold"))
        self.query_one("#apply", Button).disabled = True

    def show_plans(self, fleet: Fleet, plans: list[ResidentPlan], diffs: dict[Path, str] | None = None) -> None:
        self.fleet, self.plans, self.file_diffs = fleet, plans, diffs or {}
        self.rows = []
        table_rows = []
        several = len(plans) > 1
        for plan in plans:
            for artifact in sorted(plan.artifacts, key=lambda a: ORDER.get(a.status, 3)):
                self.rows.append((plan, artifact))
                path, base = short_where(plan, artifact)
                cells = [status_text(artifact.status)] + ([verbatim(plan.agent_id)] if several else [])
                cells += [verbatim(", ".join(role_title(r, narrow=True) for r in artifact.roles)),
                          verbatim(base, "dim"), verbatim(path)]
                table_rows.append((cells, None))
        columns = [("Status", "status")] + ([("Resident", "resident")] if several else [])
        columns += [("Role", "role"), ("In", "base"), ("File", "file")]
        fill(self.query_one("#preview-table", DataTable), columns, table_rows, max_width=48)
        self.show_verdict()
        self.show_row()

    def counts(self) -> dict[str, int]:
        statuses = [a.status for _, a in self.rows]
        return {s: statuses.count(s) for s in (MATCH, PENDING, OUTDATED, DIVERGENT)}

    def adoptable(self) -> list:
        return [a for _, a in self.rows if a.status == DIVERGENT and getattr(a, "adoption", None) is not None]

    def show_verdict(self) -> None:
        counts = self.counts()
        adoptable = len(self.adoptable())
        repairable = any(a.repair is not None for _plan, a in self.rows)
        verdict = self.query_one("#preview-verdict", Static)
        ready = not counts[DIVERGENT] and bool(counts[PENDING] + counts[OUTDATED])
        self.query_one("#apply", Button).disabled = not ready
        adopt = self.query_one("#adopt", Button)
        adopt.set_class(not adoptable, "hidden")
        adopt.disabled = not adoptable or adoptable < counts[DIVERGENT]
        if counts[DIVERGENT] > adoptable:
            verdict.set_classes("refused")
            verdict.update(Content.assemble(
                (f"REFUSED: {counts[DIVERGENT] - adoptable} {DIVERGENT} file(s): nothing will be written. ",
                 "bold $error"),
                ("Select the file and press r to rewrite only its owned values in place (every other byte kept), "
                 "or x to set it aside (renamed; enter re-creates it with the fleet's keys only); "
                 if repairable else
                 "Select the file and press x to set it aside (renamed, nothing deleted), then enter re-creates it; ")
                + "or keep the edit by hand: the file is then the resident's.",
            ))
        elif adoptable:
            verdict.set_classes("refused")
            verdict.update(Content.assemble(
                (f"ADOPTABLE: {adoptable} existing file(s) lack the fleet's owned keys. ", "bold $warning"),
                "a adds them and keeps every other byte (the diff below), and writes what is "
                f"{PENDING}; or x sets a file aside.",
            ))
        elif ready and counts[OUTDATED]:
            verdict.set_classes("ready")
            verdict.update(Content.assemble(
                (f"READY: {counts[PENDING]} file(s) {PENDING}, {counts[OUTDATED]} {OUTDATED}", "bold $success"),
                f", {counts[MATCH]} {MATCH}. enter applies: creates what is absent and writes this version over "
                "the scripts an earlier seat-curator wrote (no byte of them was the resident's); bearer files are "
                "never touched once they exist.",
            ))
        elif ready:
            verdict.set_classes("ready")
            verdict.update(Content.assemble(
                (f"READY: {counts[PENDING]} file(s) {PENDING}", "bold $success"),
                f", {counts[MATCH]} {MATCH}. enter applies: create-only, no existing file is overwritten "
                "and bearer files are never touched once they exist.",
            ))
        else:
            verdict.set_classes("ready")
            verdict.update(Content.assemble((f"ALL {MATCH} ({counts[MATCH]} files).", "bold $success"),
                                            " Nothing to apply."))
        self.refresh_bindings()
        hint = (("a: adopt · " if adoptable else "") + ("r: repair · " if repairable else "")
                + ("x: set aside · " if counts[DIVERGENT] else ""))
        self.query_one("#preview-hint", Static).update(verbatim(f"{hint}tab: diff, ↑↓ PgUp PgDn", "dim"))

    def footer_label(self, binding: Binding) -> str | None:
        """Adopt and set aside are offered only when the plan has something for them (pressed anyway,
        they say why nothing happens)."""
        if binding.action == "adopt" and not self.adoptable():
            return ""
        if binding.action == "set_aside" and not self.counts()[DIVERGENT]:
            return ""
        if binding.action == "repair" and not any(a.repair is not None for _plan, a in self.rows):
            return ""
        return None

    @on(DataTable.RowHighlighted, "#preview-table")
    def show_row(self) -> None:
        table = self.query_one("#preview-table", DataTable)
        text = self.query_one("#preview-diff-text", Static)
        pane = self.query_one("#preview-diff", VerticalScroll)
        if not self.rows or table.cursor_row >= len(self.rows):
            text.update(Content(""))
            pane.border_title = "diff"
            return
        plan, artifact = self.rows[table.cursor_row]
        diff = self.file_diffs.get(artifact.path)
        shown = artifact.diff if diff is None else diff
        text.update(artifact_detail(artifact, plan=plan, diff=diff))
        pane.border_title = (f"{artifact.path.name} · diff of {len(shown.splitlines())} lines" if shown
                             else artifact.path.name)
        pane.scroll_home(animate=False)

    # -- actions -------------------------------------------------------------------------------
    @on(DataTable.RowSelected, "#preview-table")
    def row_selected(self) -> None:
        self.action_apply()

    @on(Button.Pressed, "#apply")
    def apply_pressed(self) -> None:
        self.action_apply()

    @on(Button.Pressed, "#adopt")
    def adopt_pressed(self) -> None:
        self.action_adopt()

    @on(Button.Pressed, "#cancel")
    def cancel_pressed(self) -> None:
        self.action_close()

    def action_apply(self) -> None:
        if self.fleet is None:
            return
        counts = self.counts()
        if counts[DIVERGENT]:
            self.app.notify(f"Refused: something is {DIVERGENT}, nothing was written. Set it aside (x) or keep it "
                            "by hand.", title="Not applied", severity="error", markup=False, timeout=8)
            return
        if not counts[PENDING] and not counts[OUTDATED]:
            self.app.notify(f"Everything is {MATCH}: nothing to apply.", markup=False)
            return
        self.write(adopt=False)

    def write(self, *, adopt: bool) -> None:
        from generators.composer import apply_fleet

        if self.fleet is None:  # nothing planned yet: nothing to write
            return
        try:
            fresh = apply_fleet(self.fleet, plans=self.plans, adopt=adopt)
        except CuratorError as err:
            self.app.notify(str(err), title="Not applied", severity="error", markup=False, timeout=10)
            self.replan()
            return
        self.changed = True
        written = [a for plan in fresh for a in plan.artifacts if a.status in (CREATED, UPDATED, ADOPTED)]
        adopted = sum(a.status == ADOPTED for a in written)
        self.app.notify(f"Applied: wrote {len(written)} file(s)" + (f", {adopted} adopted" if adopted else "")
                        + "; re-planned.", markup=False)
        self.replan()  # what is on disk now: everything just written reads MATCH

    def action_adopt(self) -> None:
        """Add the fleet's owned keys to existing files that only lack them (every other byte kept),
        after showing what would be added; the rest of the plan is written with them."""
        from curator.screens.dialogs import ConfirmDialog
        from curator.widgets.verbatim import diff_content

        adoptable = self.adoptable()
        if self.fleet is None or not adoptable:
            self.app.notify("Nothing here can be adopted: only a file that lacks the fleet's owned keys can.",
                            severity="warning", markup=False)
            return
        if len(adoptable) < self.counts()[DIVERGENT]:
            self.app.notify(f"Refused: a {DIVERGENT} file holds other values for owned keys; repair it (r), "
                            "set it aside (x) or keep it by hand first.", title="Not adopted", severity="error", markup=False)
            return
        body = Content("\n\n").join(diff_content(a.adoption.diff) for a in adoptable)

        def decided(yes: bool | None) -> None:
            if yes:
                self.write(adopt=True)
            else:
                self.app.notify("Nothing was adopted.", markup=False)

        self.app.push_screen(ConfirmDialog(f"Adopt {len(adoptable)} file(s)?", body, "Adopt"), decided)

    def action_set_aside(self) -> None:
        table = self.query_one("#preview-table", DataTable)
        if not self.rows or table.cursor_row >= len(self.rows):
            return
        plan, artifact = self.rows[table.cursor_row]
        if artifact.status != DIVERGENT or self.fleet is None:  # rows exist only once a fleet is planned
            self.app.notify(f"Only a {DIVERGENT} file can be set aside.", severity="warning")
            return

        def then() -> None:
            self.changed = True
            self.replan()

        ask_set_aside(self.app, self.fleet, plan, artifact, then)

    def action_repair(self) -> None:
        """Rewrite the selected DIVERGENT file's owned values in place, every other byte kept (the
        same confirm as the fleet panel's `r`)."""
        table = self.query_one("#preview-table", DataTable)
        if not self.rows or table.cursor_row >= len(self.rows):
            return
        plan, artifact = self.rows[table.cursor_row]
        if artifact.status != DIVERGENT or artifact.repair is None or self.fleet is None:
            self.app.notify(f"Only a {DIVERGENT} file whose owned keys hold other values can be repaired; "
                            "select one (its reason says `provision --repair`).", severity="warning", markup=False)
            return

        def then() -> None:
            self.changed = True
            self.replan()

        ask_repair(self.app, self.fleet, plan, artifact, then)

    def action_refresh(self) -> None:
        self.replan()

    def action_close(self) -> None:
        self.dismiss(self.changed)
