"""The operator's fleet panel: residents × file roles, a hot-index meter and the last boot check
per resident, a filter. The plan is re-read whenever the panel is shown; boot-check ages tick.

Selecting a cell shows its files, reasons and diffs (in the file's own lines). ``x`` sets a DIVERGENT file aside (with a
confirmation); ``p`` opens the re-provision preview for the selected residents; ``enter`` opens a
resident's index screen. Plans come from ``generators.composer``; this screen only shows them.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Input, Static

import styles
from curator.errors import CuratorError
from curator.canary.last_result import results_path
from curator.canary.result import ResidentResult
from curator.meter import Limits, Meter, measure
from curator.screens.fleet_files import ask_repair, ask_set_aside
from curator.widgets.boot_check import BOOT_CHECK, RUNNING, boot_cell, last_boot_results
from curator.widgets.fleet_grid import ExtraCells, FleetGrid, artifact_detail, plan_head, role_status, worst_first
from curator.widgets.footer import KeysFooter
from curator.widgets.keymap import bindings
from curator.widgets.status_line import STALE_AFTER, StatusLine
from curator.widgets.text_input import TextInput
from curator.widgets.verbatim import verbatim
from curator.screens.fleet_watching import WatchesFleetFiles, reads_of
from curator.screens.worker_errors import ReportsWorkerErrors
from curator.fleet_watch import watch_set
from generators.composer import DIVERGENT, KEPT, MATCH, OUTDATED, PENDING, ResidentPlan
from generators.manifest import Fleet


class FleetHost(Protocol):
    """What the panel asks of the app (curator.app.CuratorApp, which sits above the screens)."""

    @property
    def is_demo(self) -> bool: ...

    def open_preview(self, resident_ids: list[str]) -> None: ...

    def open_seat(self, memory_dir: Path, *, resident_id: str | None = None, profile: str | None = None) -> None: ...


def read_meter(memory_dir: Path, limits: Limits) -> Meter | None:
    """The resident's hot-index meter, or None when MEMORY.md is not there (yet) or unreadable."""
    from curator.fsio import read_bytes

    try:
        return measure(read_bytes(memory_dir / "MEMORY.md"), limits)
    except (CuratorError, OSError):
        return None


def matches(plan: ResidentPlan, query: str) -> bool:
    """Filter words (all must match): agent id, harness, or a status word present in the plan."""
    haystack = " ".join([plan.agent_id, plan.harness, plan.status] + [a.status for a in plan.artifacts]).lower()
    return all(word in haystack for word in query.lower().split())


class FleetScreen(ReportsWorkerErrors, WatchesFleetFiles):
    CSS_PATH = [styles.path("fleet.tcss")]
    HELP_TITLE = "the fleet panel"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    AGE_TICK_S = 1.0  # boot-check ages ("PASS 12s ago") are re-read this often

    BINDINGS = list[BindingType](bindings("fleet"))  # keys as data: curator/keys.py

    def __init__(self, fleet_path: Path) -> None:
        super().__init__()
        self.fleet_path = Path(fleet_path)
        self.fleet: Fleet | None = None
        self.plans: list[ResidentPlan] = []
        self.meters: dict[str, Meter | None] = {}
        self.file_diffs: dict[Path, str] = {}  # path -> the divergent file's diff in its own lines
        self.boot_results: dict[str, ResidentResult | None] = {}  # agent_id -> the canary's last saved ResidentResult, or None
        self.unrun: dict[str, ResidentResult] = {}  # agent_id -> a ResidentResult saying why the last boot check could not start
        self.ran: dict[str, ResidentResult] = {}  # agent_id -> this session's last boot-check result (e shows it even if unsaved)
        self.canary_ids: list[str] = []  # residents whose boot check is running now
        self.shown_boot_cells: ExtraCells = {}
        self.clock = time.time  # what boot-check ages are measured against (tests move it on)
        self.last_plan = (0.0, 0.0)  # (monotonic end, seconds taken) of the last plan
        self.init_watching()  # edits made outside the app (a config.toml by hand, a MEMORY.md grown) show

    def compose(self) -> ComposeResult:
        what = "Demo fleet (seat-curator demo)" if self.host.is_demo else "Fleet"
        yield Static(verbatim(f"{what} · {self.fleet_path}"), id="fleet-title")
        words = ", ".join(s.lower() for s in (DIVERGENT, PENDING, MATCH))
        yield TextInput(placeholder=f"/ filter: agent id, harness, or status ({words})…", id="fleet-filter", compact=True)
        yield FleetGrid(id="fleet-grid")
        with VerticalScroll(id="fleet-detail"):
            yield Static(id="fleet-detail-text")
        yield StatusLine(id="status")
        yield KeysFooter()

    @property
    def host(self) -> FleetHost:
        return cast(FleetHost, self.app)

    def on_mount(self) -> None:
        grid = self.query_one(FleetGrid)
        grid.extra_columns = [BOOT_CHECK]
        grid.narrow_titles[BOOT_CHECK] = "Boot"
        grid.focus()
        self.set_interval(self.AGE_TICK_S, self.tick_ages)

    def on_screen_resume(self) -> None:
        """Shown (first time, or back from a seat, the preview or a dialog): plan what is on disk now."""
        self.pending.clear()  # what changed meanwhile: this plan reads it
        self.refresh_plan()

    # -- planning (reads only) -----------------------------------------------------------------
    def refresh_plan(self) -> None:
        if not self.canary_ids:
            self.set_status("Planning…")
        self.plan_worker()

    @work(thread=True, exclusive=True, group="fleet-plan", exit_on_error=False)
    def plan_worker(self, quiet: bool = False, only: frozenset[str] | None = None) -> None:
        """``quiet`` (a re-plan nobody asked for): no error toast, and nothing re-shown when nothing
        changed. ``only``: the residents whose files changed (the manifest did not); the others'
        plans are kept as they are."""
        from generators.composer import plan_fleet
        from generators.manifest import load_manifest

        started = time.monotonic()
        try:
            fleet = self.fleet if only is not None and self.fleet is not None else load_manifest(self.fleet_path)
            if only is None:
                fresh, kept = plan_fleet(fleet), {}
                plans = fresh
            else:  # only these residents' files changed: plan them (against the whole fleet) and keep the rest
                fresh = [p for r in fleet.residents if r.agent_id in only for p in plan_fleet(fleet, r.agent_id)]
                kept = {p.agent_id: p for p in self.plans}
                redone = {p.agent_id: p for p in fresh}
                plans = [redone.get(rid, plan) for rid, plan in kept.items()]
            meters, diffs, boot_results = self.read_beside(fresh, kept)
        except CuratorError as err:
            if not quiet:  # a quiet re-plan says it on the status line only: a toast at each change buries the panel
                self.app.call_from_thread(self.app.notify, str(err), title="Cannot plan the fleet",
                                          severity="error", markup=False, timeout=10)
            self.app.call_from_thread(self.set_status, f"plan failed: {err}", "$error")
            self.app.call_from_thread(self.keep_watching, watch_set([self.fleet_path], []))  # see it mended
            return
        finally:
            self.last_plan = (time.monotonic(), time.monotonic() - started)
        if not quiet or (plans, meters, boot_results, diffs) != (self.plans, self.meters, self.boot_results,
                                                                 self.file_diffs):
            self.app.call_from_thread(self.show_plans, fleet, plans, meters, boot_results, diffs)
        # After the counts, so a watch that cannot start says so last.
        watched = watch_set([self.fleet_path, results_path(self.fleet_path)], reads_of(plans))
        self.app.call_from_thread(self.keep_watching, watched)

    def read_beside(self, fresh: list[ResidentPlan], kept: dict[str, ResidentPlan]) -> tuple[
            dict[str, Meter | None], dict[Path, str], dict[str, ResidentResult | None]]:
        """Meters, the divergent files' diffs and the saved boot checks of the ``fresh`` plans, with
        those the screen holds for the ``kept`` plans not re-planned."""
        from generators.file_diff import file_diff

        limits = self.app_limits()  # once for the fleet, not per seat
        redone = {p.agent_id for p in fresh}
        still = {a.path for rid, p in kept.items() if rid not in redone for a in p.artifacts if a.status == DIVERGENT}
        meters = {rid: m for rid, m in self.meters.items() if rid in kept and rid not in redone}
        meters |= {p.agent_id: read_meter(p.memory_dir, limits) for p in fresh}
        diffs = {path: d for path, d in self.file_diffs.items() if path in still}
        diffs |= {a.path: file_diff(a) for p in fresh for a in p.artifacts if a.status == DIVERGENT}
        boot = {rid: r for rid, r in self.boot_results.items() if rid in kept and rid not in redone}
        boot |= last_boot_results(self.fleet_path, fresh)
        return meters, diffs, boot

    def app_limits(self) -> Limits:
        return getattr(self.app, "limits", None) or Limits()

    def show_plans(self, fleet: Fleet, plans: list[ResidentPlan], meters: dict[str, Meter | None],
                   boot_results: dict[str, ResidentResult | None] | None = None,
                   diffs: dict[Path, str] | None = None) -> None:
        self.fleet, self.plans, self.meters = fleet, plans, meters
        self.boot_results = boot_results or {}
        self.file_diffs = diffs or {}
        self.apply_filter()
        if not self.canary_ids:  # a running boot check keeps its progress on the status line
            self.show_counts()

    def show_counts(self) -> None:
        statuses = [a.status for p in self.plans for a in p.artifacts]
        shown = (MATCH, PENDING, DIVERGENT) + tuple(s for s in (OUTDATED, KEPT) if s in statuses)  # those when present
        self.set_status(f"{len(self.plans)} residents · "
                        + " · ".join(f"{statuses.count(s)} {s}" for s in shown),
                        "$error" if DIVERGENT in statuses else "")

    def boot_cells(self) -> ExtraCells:
        now = self.clock()
        cells: ExtraCells = {(rid, BOOT_CHECK): boot_cell(self.newest_result(rid, result), now)
                 for rid, result in self.boot_results.items()}
        cells.update({(rid, BOOT_CHECK): RUNNING for rid in self.canary_ids})
        return cells

    def apply_filter(self) -> None:
        query = self.query_one("#fleet-filter", Input).value
        shown = [p for p in self.plans if matches(p, query)]
        self.shown_boot_cells = self.boot_cells()
        self.query_one(FleetGrid).show(shown, self.meters, self.shown_boot_cells)
        self.show_detail()

    def tick_ages(self) -> None:
        """Ages move on: re-show the grid when a boot-check cell would read differently."""
        if self.fleet is not None and self.boot_cells() != self.shown_boot_cells:
            self.apply_filter()

    @on(Input.Changed, "#fleet-filter")
    def filter_changed(self) -> None:
        if self.fleet is not None:
            self.apply_filter()

    @on(Input.Submitted, "#fleet-filter")
    def filter_submitted(self) -> None:
        self.set_focus(self.query_one(FleetGrid))

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
        artifacts = worst_first(grid.current_artifacts())  # the file that needs a look leads
        text.update(Content("\n\n").join(
            [plan_head(plan)] + [artifact_detail(a, plan=plan, diff=self.file_diffs.get(a.path)) for a in artifacts]))

    # -- actions -------------------------------------------------------------------------------
    # Focus moves at once (Widget.focus() defers it), and "/" and esc are priority keys: keys a
    # terminal delivers in the same read ("/kes") then go where the user meant.
    def action_filter(self) -> None:
        self.set_focus(self.query_one("#fleet-filter", Input))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """In the filter, / is text (it types, and the footer leaves it out)."""
        if action == "filter":
            return not self.query_one("#fleet-filter", Input).has_focus
        return True

    def action_mark(self) -> None:
        self.query_one(FleetGrid).action_toggle_mark()

    def action_leave_filter(self) -> None:
        self.set_focus(self.query_one(FleetGrid))

    def action_refresh(self) -> None:
        self.refresh_plan()

    def action_preview(self) -> None:
        ids = self.query_one(FleetGrid).selected_ids()
        if not ids:
            self.app.notify("No resident selected.", severity="warning")
            return
        self.host.open_preview(ids)

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
        self.apply_filter()
        self.set_status(f"Boot check running for {', '.join(ids)}…", "$warning")
        self.canary_worker(ids)

    @work(thread=True, group="canary", exit_on_error=False)
    def canary_worker(self, ids: list[str]) -> None:
        from curator.canary.last_result import save_results
        from curator.canary.run import run_canary

        def progress(message: str) -> None:
            self.app.call_from_thread(self.set_status, f"Boot check · {message}", "$warning")

        try:
            results = [r for rid in ids for r in run_canary(self.fleet_path, rid, progress=progress,
                                                            save=False).residents]
        except Exception as err:  # CLI not found, bad manifest, a harness that would not start: say so
            self.app.call_from_thread(self.canary_failed, ids, str(err))
            return
        # Saved apart from the run: a state dir that cannot be written loses the record, not the evidence.
        unsaved = ""
        try:
            save_results(self.fleet_path, results)
        except (CuratorError, OSError) as err:
            unsaved = str(err)
        self.app.call_from_thread(self.canary_done, results, unsaved)

    def canary_failed(self, ids: list[str], message: str) -> None:
        """Nothing ran: the cells show the last real result again; ``e`` shows why this one did not start."""
        from curator.canary.result import ResidentResult

        self.canary_ids = []
        harnesses = {p.agent_id: p.harness for p in self.plans}
        for rid in ids:
            self.unrun[rid] = ResidentResult(rid, harnesses.get(rid, "?"), error=message, finished_at=self.clock())
        self.app.notify(message, title="Boot check not run", severity="error", markup=False, timeout=10)
        self.apply_filter()
        # The status line gives the gist (the words before any parenthesis); e shows it all.
        self.set_status(f"boot check not run: {message.split(' (', 1)[0]} · e: why", "$error")

    def canary_done(self, results: list[ResidentResult], unsaved: str = "") -> None:
        from curator.canary.result import Status  # loaded already: the worker that ran the canary imported it

        self.canary_ids = []
        for result in results:
            self.unrun.pop(result.resident, None)
            self.ran[result.resident] = result
        summary = ", ".join(f"{r.resident}: {r.status}" for r in results)
        failed = any(r.status != Status.PASS for r in results)
        self.app.notify(summary, title="Boot check", severity="error" if failed else "information", markup=False)
        if unsaved:
            self.app.notify(f"The result was not saved ({unsaved}); e shows it until the app closes.",
                            title="Boot check not saved", severity="warning", markup=False, timeout=10)
        self.refresh_plan()  # re-reads the saved results: the cells show this run's verdict
        self.show_evidence(results)

    def newest_result(self, rid: str, saved: ResidentResult | None) -> ResidentResult | None:
        """The saved result, or this session's run of ``rid`` when it is newer (or was not saved)."""
        ran = self.ran.get(rid)
        return ran if ran is not None and (saved is None or ran.finished_at > saved.finished_at) else saved

    def action_evidence(self) -> None:
        """The last boot check's evidence for the selected residents: the saved result, or why the
        latest attempt could not start when that came after it."""
        from curator.canary.last_result import load_result

        results = []
        for rid in self.query_one(FleetGrid).selected_ids():
            kept = (load_result(self.fleet_path, rid), self.ran.get(rid), self.unrun.get(rid))
            newest = max((r for r in kept if r is not None), key=lambda r: r.finished_at, default=None)
            if newest is not None:
                results.append(newest)
        if not results:
            self.app.notify("No boot check has run for this resident yet: press c to run one.", severity="information")
            return
        self.show_evidence(results)

    def show_evidence(self, results: list[ResidentResult]) -> None:
        from curator.canary.last_result import describe
        from curator.screens.canary_evidence import CanaryEvidence

        ages = {r.resident: ("not run" if r.error and not r.steps and r is self.unrun.get(r.resident)
                             else describe(r)) for r in results}
        self.app.push_screen(CanaryEvidence(results, ages))

    def action_open_seat(self) -> None:
        plan = self.query_one(FleetGrid).current_plan()
        if plan is None:
            return
        if not (plan.memory_dir / "MEMORY.md").is_file():
            self.app.notify(f"{plan.agent_id} has no MEMORY.md yet: press p to preview provisioning.",
                            severity="warning", markup=False)
            return
        self.host.open_seat(plan.memory_dir, resident_id=plan.agent_id, profile=plan.harness)

    def action_show_diff(self) -> None:
        from curator.screens.dialogs import DiffDialog

        artifacts = [a for a in self.query_one(FleetGrid).current_artifacts() if self.file_diffs.get(a.path, a.diff)]
        if not artifacts:
            self.app.notify("No diff here: select a DIVERGENT cell.", severity="information")
            return
        self.app.push_screen(DiffDialog(str(artifacts[0].path),
                                        "\n".join(self.file_diffs.get(a.path, a.diff) for a in artifacts)))

    def action_set_aside(self) -> None:
        grid = self.query_one(FleetGrid)
        plan = grid.current_plan()
        divergent = [a for a in grid.current_artifacts() if a.status == DIVERGENT]
        if plan is None or not divergent or self.fleet is None:
            self.app.notify("Select a DIVERGENT cell to set its file aside.", severity="warning")
            return
        ask_set_aside(self.app, self.fleet, plan, divergent[0], self.refresh_plan)

    def action_repair(self) -> None:
        """Rewrite a DIVERGENT file's owned values in place (`provision --repair` for one file), after
        a confirmation that shows the whole-file diff."""
        grid = self.query_one(FleetGrid)
        plan = grid.current_plan()
        role = grid.current_role()  # a cell that shows MATCH has nothing to repair, even in a drifted file
        repairable = [a for a in grid.current_artifacts() if role_status(a, role) == DIVERGENT and a.repair is not None]
        if plan is None or not repairable or self.fleet is None:
            self.app.notify("Select a DIVERGENT cell whose file is repairable (its reason says `provision --repair`).",
                            severity="warning")
            return
        ask_repair(self.app, self.fleet, plan, repairable[0], self.refresh_plan)

    def set_status(self, message: str, style: str = "", *, passing: bool = False) -> None:
        """The plan's summary (or a boot check's progress) stays; ``passing`` news clears when stale."""
        self.query_one("#status", StatusLine).say(verbatim(message, style), STALE_AFTER if passing else None)

