"""The operator's fleet panel: residents × artifacts, a hot-index meter per resident, a filter.

Selecting a cell shows its artifacts' reasons and diffs. ``x`` sets a DIVERGENT file aside (with a
confirmation); ``p`` opens the re-provision preview for the selected residents; ``enter`` opens a
resident's index screen. Plans come from ``generators.composer``; this screen only shows them.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

import styles
from curator.errors import CuratorError
from curator.meter import measure
from curator.screens.dialogs import ConfirmDialog
from curator.widgets.fleet_grid import FleetGrid, artifact_detail
from curator.widgets.footer import KeysFooter
from curator.widgets.verbatim import verbatim


def read_meter(memory_dir: Path, limits):
    """The resident's hot-index meter, or None when MEMORY.md is not there (yet) or unreadable."""
    from curator.fsio import read_bytes

    try:
        return measure(read_bytes(memory_dir / "MEMORY.md"), limits)
    except (CuratorError, OSError):
        return None


BOOT_CHECK = "Boot check"
BOOT_STYLES = {"PASS": "$success", "FAIL": "bold $error", "ERROR": "bold $error"}


def last_boot_checks(fleet_path: Path, plans: list) -> dict:
    """The canary's last result per resident, as grid cells ("never run", "PASS 3m ago", …)."""
    from curator.canary.last_result import describe, load_result

    cells = {}
    for plan in plans:
        result = load_result(fleet_path, plan.agent_id)
        style = BOOT_STYLES.get(result.status, "") if result else "dim"
        cells[(plan.agent_id, BOOT_CHECK)] = verbatim(describe(result), style)
    return cells


def matches(plan, query: str) -> bool:
    """Filter words (all must match): agent id, harness, or a status word present in the plan."""
    haystack = " ".join([plan.agent_id, plan.harness, plan.status] + [a.status for a in plan.artifacts]).lower()
    return all(word in haystack for word in query.lower().split())


class FleetScreen(Screen):
    CSS_PATH = [styles.path("fleet.tcss")]
    HELP_TITLE = "the fleet panel"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    BINDINGS = [
        Binding("p", "preview", "Re-provision preview"),
        Binding("o", "open_seat", "Open seat's index (enter)"),
        Binding("x", "set_aside", "Set aside divergent file"),
        Binding("d", "show_diff", "Show diff"),
        Binding("slash", "filter", "Filter", key_display="/"),
        Binding("c", "canary", "Boot check (canary)"),
        Binding("e", "evidence", "Boot check evidence"),
        Binding("ctrl+r,f5", "refresh", "Refresh plan"),
        Binding("escape", "leave_filter", "Back to grid", show=False),
    ]

    def __init__(self, fleet_path: Path):
        super().__init__()
        self.fleet_path = Path(fleet_path)
        self.fleet = None
        self.plans: list = []
        self.meters: dict = {}
        self.boot_checks: dict = {}  # (agent_id, BOOT_CHECK) -> cell: the canary's last result
        self.canary_ids: list[str] = []  # residents whose boot check is running now

    def compose(self) -> ComposeResult:
        yield Static(verbatim(f"Fleet · {self.fleet_path}"), id="fleet-title")
        yield Input(placeholder="filter: agent id, harness, or status (divergent, created, match)…", id="fleet-filter")
        yield FleetGrid(id="fleet-grid")
        with VerticalScroll(id="fleet-detail"):
            yield Static(id="fleet-detail-text")
        yield Static(id="status")
        yield KeysFooter()

    def on_mount(self) -> None:
        grid = self.query_one(FleetGrid)
        grid.extra_columns = [BOOT_CHECK]
        grid.focus()
        self.refresh_plan()

    # -- planning (reads only) -----------------------------------------------------------------
    def refresh_plan(self) -> None:
        self.set_status("Planning…")
        self.plan_worker()

    @work(thread=True, exclusive=True, group="fleet-plan")
    def plan_worker(self) -> None:
        from generators.composer import plan_fleet
        from generators.manifest import load_manifest

        try:
            fleet = load_manifest(self.fleet_path)
            plans = plan_fleet(fleet)
            limits = self.app_limits()  # once for the fleet, not per seat
            meters = {p.agent_id: read_meter(p.memory_dir, limits) for p in plans}
            boot_checks = last_boot_checks(self.fleet_path, plans)
        except CuratorError as err:
            self.app.call_from_thread(self.app.notify, str(err), title="Cannot plan the fleet",
                                      severity="error", markup=False, timeout=10)
            self.app.call_from_thread(self.set_status, f"plan failed: {err}", "$error")
            return
        self.app.call_from_thread(self.show_plans, fleet, plans, meters, boot_checks)

    def app_limits(self):
        from curator.meter import Limits

        return getattr(self.app, "limits", None) or Limits()

    def show_plans(self, fleet, plans: list, meters: dict, boot_checks: dict | None = None) -> None:
        self.fleet, self.plans, self.meters = fleet, plans, meters
        self.boot_checks = boot_checks or {}
        for rid in self.canary_ids:  # a re-plan while the canary runs keeps showing that it runs
            self.boot_checks[(rid, BOOT_CHECK)] = verbatim("running…", "bold $warning")
        self.apply_filter()
        counts = {s: sum(1 for p in plans for a in p.artifacts if a.status == s) for s in ("MATCH", "CREATED", "DIVERGENT")}
        self.set_status(
            f"{len(plans)} residents · {counts['MATCH']} MATCH · {counts['CREATED']} CREATED (pending) · "
            f"{counts['DIVERGENT']} DIVERGENT",
            "$error" if counts["DIVERGENT"] else "",
        )

    def apply_filter(self) -> None:
        query = self.query_one("#fleet-filter", Input).value
        shown = [p for p in self.plans if matches(p, query)]
        self.query_one(FleetGrid).show(shown, self.meters, self.boot_checks)
        self.show_detail()

    @on(Input.Changed, "#fleet-filter")
    def filter_changed(self) -> None:
        if self.fleet is not None:
            self.apply_filter()

    @on(Input.Submitted, "#fleet-filter")
    def filter_submitted(self) -> None:
        self.query_one(FleetGrid).focus()

    # -- details -------------------------------------------------------------------------------
    @on(DataTable.CellHighlighted, "#fleet-grid")
    def cell_highlighted(self) -> None:
        self.show_detail()

    @on(DataTable.CellSelected, "#fleet-grid")
    def cell_selected(self) -> None:
        self.action_open_seat()

    def show_detail(self) -> None:
        grid = self.query_one(FleetGrid)
        plan = grid.current_plan()
        text = self.query_one("#fleet-detail-text", Static)
        if plan is None:
            text.update(verbatim("No resident matches the filter." if self.plans else ""))
            return
        artifacts = grid.current_artifacts()
        head = verbatim(f"{plan.agent_id} ({plan.harness}) · home {plan.instance_home} · worst: {plan.status}", "bold")
        text.update(Content("\n\n").join([head] + [artifact_detail(a) for a in artifacts]))

    # -- actions -------------------------------------------------------------------------------
    def action_filter(self) -> None:
        self.query_one("#fleet-filter", Input).focus()

    def action_leave_filter(self) -> None:
        self.query_one(FleetGrid).focus()

    def action_refresh(self) -> None:
        self.refresh_plan()

    def action_preview(self) -> None:
        ids = self.query_one(FleetGrid).selected_ids()
        if not ids:
            self.app.notify("No resident selected.", severity="warning")
            return
        self.app.open_preview(ids)

    def action_canary(self) -> None:
        """Run the boot canary for the selected residents: a real harness turn per step, in a thread;
        the grid cell and the status line show its progress, the evidence opens when it ends."""
        ids = self.query_one(FleetGrid).selected_ids()
        if not ids or self.fleet is None:
            self.app.notify("No resident selected.", severity="warning")
            return
        if self.canary_ids:
            self.app.notify("A boot check is already running; it ends within its turn timeouts.", severity="warning")
            return
        self.canary_ids = list(ids)
        for rid in ids:
            self.boot_checks[(rid, BOOT_CHECK)] = verbatim("running…", "bold $warning")
        self.apply_filter()
        self.set_status(f"Boot check running for {', '.join(ids)}: real harness turns against a stub model…",
                        "$warning")
        self.canary_worker(ids)

    @work(thread=True, group="canary")
    def canary_worker(self, ids: list[str]) -> None:
        from curator.canary.run import run_canary

        def progress(message: str) -> None:
            self.app.call_from_thread(self.set_status, f"Boot check · {message}", "$warning")

        try:
            results = [r for rid in ids for r in run_canary(self.fleet_path, rid, progress=progress).residents]
        except Exception as err:  # CLI not found, bad manifest, a harness that would not start: say so
            self.app.call_from_thread(self.canary_failed, str(err))
            return
        self.app.call_from_thread(self.canary_done, results)

    def canary_failed(self, message: str) -> None:
        self.canary_ids = []
        self.app.notify(message, title="Boot check not run", severity="error", markup=False, timeout=10)
        self.boot_checks = last_boot_checks(self.fleet_path, self.plans)  # the cells show the last result again
        self.apply_filter()
        self.set_status(f"boot check not run: {message}", "$error")

    def canary_done(self, results: list) -> None:
        self.canary_ids = []
        summary = ", ".join(f"{r.resident}: {r.status}" for r in results)
        failed = any(r.status != "PASS" for r in results)
        self.app.notify(summary, title="Boot check", severity="error" if failed else "information", markup=False)
        self.refresh_plan()
        self.show_evidence(results)

    def action_evidence(self) -> None:
        """The last boot check's evidence for the selected residents (as saved by the canary)."""
        from curator.canary.last_result import load_result

        ids = self.query_one(FleetGrid).selected_ids()
        results = [r for r in (load_result(self.fleet_path, rid) for rid in ids) if r is not None]
        if not results:
            self.app.notify("No boot check has run for this resident yet: press c to run one.", severity="information")
            return
        self.show_evidence(results)

    def show_evidence(self, results: list) -> None:
        from curator.canary.last_result import describe
        from curator.screens.canary_evidence import CanaryEvidence

        self.app.push_screen(CanaryEvidence(results, {r.resident: describe(r) for r in results}))

    def action_open_seat(self) -> None:
        plan = self.query_one(FleetGrid).current_plan()
        if plan is None:
            return
        if not (plan.memory_dir / "MEMORY.md").is_file():
            self.app.notify(f"{plan.agent_id} has no MEMORY.md yet: press p to preview provisioning.",
                            severity="warning", markup=False)
            return
        self.app.open_seat(plan.memory_dir, resident_id=plan.agent_id, profile=plan.harness)

    def action_show_diff(self) -> None:
        from curator.screens.dialogs import DiffDialog

        artifacts = [a for a in self.query_one(FleetGrid).current_artifacts() if a.diff]
        if not artifacts:
            self.app.notify("No diff here: select a DIVERGENT cell.", severity="information")
            return
        self.app.push_screen(DiffDialog(str(artifacts[0].path), "\n".join(a.diff for a in artifacts)))

    def action_set_aside(self) -> None:
        grid = self.query_one(FleetGrid)
        plan = grid.current_plan()
        divergent = [a for a in grid.current_artifacts() if a.status == "DIVERGENT"]
        if plan is None or not divergent:
            self.app.notify("Select a DIVERGENT cell to set its file aside.", severity="warning")
            return
        ask_set_aside(self.app, self.fleet, plan, divergent[0], self.refresh_plan)

    def set_status(self, message: str, style: str = "") -> None:
        self.query_one("#status", Static).update(verbatim(message, style))


def ask_set_aside(app, fleet, plan, artifact, then) -> None:
    """Confirm, then rename the divergent file to <name>.divergent-<UTC stamp>; ``then()`` re-plans."""
    from generators.composer import set_aside

    body = Content("\n").join([
        artifact_detail(artifact, with_diff=False),
        verbatim(""),
        verbatim(f"Rename it to {artifact.path.name}.divergent-<UTC stamp> (nothing is deleted); "
                 "the next provision re-creates the fleet's version. If the edit was meant to stay, "
                 "cancel and keep it by hand: it is then the resident's file."),
    ])

    def decided(yes: bool | None) -> None:
        if not yes:
            app.notify("Kept as it is: nothing was renamed.", markup=False)
            return
        try:
            aside = set_aside(fleet, plan.resident, artifact.path)
        except CuratorError as err:
            app.notify(str(err), title="Not set aside", severity="error", markup=False, timeout=10)
            return
        app.notify(f"Set aside as {aside.name}", markup=False)
        then()

    app.push_screen(ConfirmDialog(f"Set aside {artifact.path.name}?", body, "Set aside", danger=True), decided)
