"""The one-key re-provision preview: every artifact's status and diff for the chosen residents.

``enter`` applies when nothing is DIVERGENT (the composer writes pending files only, create-only);
otherwise the screen says why it refuses and names the escape hatch (``x`` sets the file aside, or
keep the edit by hand). The plan is re-read after every action; the result goes back to the fleet
panel.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Static

import styles
from curator.errors import CuratorError
from curator.screens.fleet import ask_set_aside
from curator.widgets.fleet_grid import STATUS_STYLES, STATUS_WORDS, artifact_detail
from curator.widgets.footer import KeysFooter
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim


class PreviewScreen(Screen[bool]):
    CSS_PATH = [styles.path("fleet.tcss")]
    """Dismisses with True when something was applied or set aside (the fleet panel re-plans)."""

    HELP_TITLE = "the re-provision preview"
    BINDINGS = [
        Binding("enter", "apply", "Apply plan", priority=True),
        Binding("x", "set_aside", "Set aside divergent file"),
        Binding("ctrl+r,f5", "refresh", "Re-plan"),
        Binding("escape,q", "close", "Close preview"),
    ]

    def __init__(self, fleet_path, resident_ids: list[str]):
        super().__init__()
        self.fleet_path = fleet_path
        self.resident_ids = list(resident_ids)
        self.fleet = None
        self.plans: list = []
        self.rows: list[tuple] = []  # (plan, artifact) per table row
        self.changed = False

    def compose(self) -> ComposeResult:
        who = ", ".join(self.resident_ids)
        yield Static(verbatim(f"Re-provision preview · {who}"), id="preview-title")
        yield Static(id="preview-verdict")
        yield DataTable(id="preview-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="preview-diff"):
            yield Static(id="preview-diff-text")
        yield Static(id="status")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#preview-table", DataTable).focus()
        self.replan()

    def replan(self) -> None:
        self.plan_worker()

    @work(thread=True, exclusive=True, group="preview-plan")
    def plan_worker(self) -> None:
        from generators.composer import plan_fleet
        from generators.manifest import load_manifest

        try:
            fleet = load_manifest(self.fleet_path)
            plans = [plan for rid in self.resident_ids for plan in plan_fleet(fleet, rid)]
        except CuratorError as err:
            self.app.call_from_thread(self.show_error, str(err))
            return
        self.app.call_from_thread(self.show_plans, fleet, plans)

    def show_error(self, message: str) -> None:
        verdict = self.query_one("#preview-verdict", Static)
        verdict.set_classes("refused")
        verdict.update(verbatim(f"Cannot plan: {message}", "bold"))

    def show_plans(self, fleet, plans: list) -> None:
        self.fleet, self.plans = fleet, plans
        self.rows = []
        table_rows = []
        order = {"DIVERGENT": 0, "CREATED": 1, "MATCH": 2}
        for plan in plans:
            for artifact in sorted(plan.artifacts, key=lambda a: order.get(a.status, 3)):
                self.rows.append((plan, artifact))
                where = (str(artifact.path.relative_to(plan.instance_home))
                         if artifact.path.is_relative_to(plan.instance_home) else str(artifact.path))
                table_rows.append(((
                    verbatim(STATUS_WORDS.get(artifact.status, artifact.status), STATUS_STYLES.get(artifact.status, "")),
                    verbatim(plan.agent_id),
                    verbatim(artifact.owner),
                    verbatim(where),
                    verbatim(artifact.reason),
                ), None))
        fill(self.query_one("#preview-table", DataTable),
             [("Status", "status"), ("Resident", "resident"), ("Owner", "owner"), ("File", "file"), ("Why", "why")],
             table_rows, max_width=70)
        self.show_verdict()
        self.show_row()

    def counts(self) -> dict[str, int]:
        statuses = [a.status for _, a in self.rows]
        return {s: statuses.count(s) for s in ("MATCH", "CREATED", "DIVERGENT")}

    def show_verdict(self) -> None:
        counts = self.counts()
        verdict = self.query_one("#preview-verdict", Static)
        if counts["DIVERGENT"]:
            verdict.set_classes("refused")
            verdict.update(Content.assemble(
                (f"REFUSED: {counts['DIVERGENT']} DIVERGENT file(s). ", "bold $error"),
                "Applying would write nothing: a fleet-owned file was hand-edited or is stale, and the curator "
                "never repairs or overwrites it silently. Escape hatch: select the file and press x to set it "
                "aside (renamed to <name>.divergent-<UTC stamp>, nothing deleted), then enter re-creates it; "
                "or keep the edit by hand, knowing the file is now the resident's.",
            ))
        elif counts["CREATED"]:
            verdict.set_classes("ready")
            verdict.update(Content.assemble(
                (f"READY: {counts['CREATED']} file(s) to create", "bold $success"),
                f", {counts['MATCH']} MATCH. Press enter to apply (create-only: existing files are never "
                "overwritten; bearer files are never touched once they exist).",
            ))
        else:
            verdict.set_classes("ready")
            verdict.update(Content.assemble((f"ALL MATCH ({counts['MATCH']} files).", "bold $success"),
                                            " Nothing to apply."))

    @on(DataTable.RowHighlighted, "#preview-table")
    def show_row(self) -> None:
        table = self.query_one("#preview-table", DataTable)
        text = self.query_one("#preview-diff-text", Static)
        if not self.rows or table.cursor_row >= len(self.rows):
            text.update(Content(""))
            return
        _, artifact = self.rows[table.cursor_row]
        text.update(artifact_detail(artifact))

    # -- actions -------------------------------------------------------------------------------
    def action_apply(self) -> None:
        if self.fleet is None:
            return
        counts = self.counts()
        if counts["DIVERGENT"]:
            self.app.notify("Refused: something is DIVERGENT, nothing was written. Set it aside (x) or keep it by hand.",
                            title="Not applied", severity="error", markup=False, timeout=8)
            return
        if not counts["CREATED"]:
            self.app.notify("Everything MATCHes: nothing to apply.", markup=False)
            return
        from generators.composer import apply_fleet

        try:
            fresh = apply_fleet(self.fleet, plans=self.plans)
        except CuratorError as err:
            self.app.notify(str(err), title="Not applied", severity="error", markup=False, timeout=10)
            self.replan()
            return
        self.changed = True
        created = [a for plan in fresh for a in plan.artifacts if a.status == "CREATED"]
        self.app.notify(f"Applied: created {len(created)} file(s); re-planned.", markup=False)
        self.replan()  # what is on disk now: everything just created reads MATCH

    def action_set_aside(self) -> None:
        table = self.query_one("#preview-table", DataTable)
        if not self.rows or table.cursor_row >= len(self.rows):
            return
        plan, artifact = self.rows[table.cursor_row]
        if artifact.status != "DIVERGENT":
            self.app.notify("Only a DIVERGENT file can be set aside.", severity="warning")
            return

        def then() -> None:
            self.changed = True
            self.replan()

        ask_set_aside(self.app, self.fleet, plan, artifact, then)

    def action_refresh(self) -> None:
        self.replan()

    def action_close(self) -> None:
        self.dismiss(self.changed)
