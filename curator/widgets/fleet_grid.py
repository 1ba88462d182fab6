"""The fleet grid: residents × file roles, each cell a status in colour and in words (or symbols).

Columns are the roles files play in a seat (config, MCP servers, boot hook, bearer files), taken
from the artifacts themselves (``Artifact.roles``), so a new harness's files land in the same
columns and the file is named in the detail. The grid picks the richest layout that fits its width
(words and a meter bar at 120 columns, symbols at 80), so it never has to scroll sideways.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.content import Content
from textual.widgets import DataTable

from curator.widgets.byte_meter import mini_meter
from curator.widgets.verbatim import verbatim
from curator.meter import Meter
from generators.composer import (ADOPTED, CREATED, DIVERGENT, KEPT, MATCH, OUTDATED, PENDING, REPAIRED, STATUSES,
                                 UPDATED, Artifact, ArtifactStatus, ResidentPlan)
from generators.emission import FLEET, ROLE_BEARER, ROLE_BOOT, ROLE_CONFIG, ROLE_MCP, key_roles
from generators.script_source import CAP_GUARD_SCRIPT

# Status values come from the core; only their look lives here.
# PENDING / OUTDATED: a plan's file to create / an earlier seat-curator's script to write this version of;
# CREATED / UPDATED / ADOPTED: what a provision run just wrote.
STATUS_STYLES = {MATCH: "$success", PENDING: "$warning", OUTDATED: "$warning", CREATED: "$success",
                 UPDATED: "$success", ADOPTED: "$success", REPAIRED: "$success", KEPT: "$accent",
                 DIVERGENT: "bold $error"}
STATUS_SYMBOLS = {MATCH: "✓", PENDING: "+", OUTDATED: "~", CREATED: "✓", UPDATED: "✓", ADOPTED: "✓", REPAIRED: "✓",
                  KEPT: "=", DIVERGENT: "✗"}
WORST = STATUSES  # the core's order, worst first
Cell = Content | tuple[Content, Content]  # one look, or (wide, narrow)
ExtraCells = dict[tuple[str, str], Cell]  # (agent id, column title) -> its cell
Column = tuple[str, str, list[Content]]  # (title, key, cells in plan order)
# The cap guard blocks a write past the read limit; it puts nothing in front of the model, so it is
# not counted as a boot hook (where the core files it, being a script) but has a column of its own.
ROLE_GUARD = "guard"
# (wide title, narrow title) per role; a role missing here is a file name and titles itself.
ROLE_TITLES = {ROLE_CONFIG: ("config", "cfg"), ROLE_MCP: ("MCP servers", "MCP"),
               ROLE_BOOT: ("boot hook", "hook"), ROLE_GUARD: ("guard", "guard"),
               ROLE_BEARER: ("bearer files", "bearer")}
ROLE_ORDER = (ROLE_CONFIG, ROLE_MCP, ROLE_BOOT, ROLE_GUARD)  # then any other role; bearer files always last


def grid_roles(artifact: Artifact) -> tuple[str, ...]:
    """The columns an artifact shows in: the roles the core gives it, the cap guard in its own."""
    if artifact.path.name == CAP_GUARD_SCRIPT and artifact.owner == FLEET:
        return (ROLE_GUARD,)
    return artifact.roles
BEARER_COLUMN = ROLE_BEARER  # kept for callers that name the bearer column


def status_word(status: ArtifactStatus) -> str:
    return f"{STATUS_SYMBOLS.get(status, '?')} {status}"


def status_text(status: ArtifactStatus) -> Content:
    return verbatim(status_word(status), STATUS_STYLES.get(status, ""))


STATUS_WORDS = {status: status_word(status) for status in WORST}


def role_title(role: str, narrow: bool = False) -> str:
    titles = ROLE_TITLES.get(role)
    return titles[narrow] if titles else role


def role_status(artifact: Artifact, role: str | None) -> ArtifactStatus:
    """The artifact's status as the column of ``role`` shows it: a DIVERGENT file that plays two
    roles is DIVERGENT only in the role(s) of the owned keys that differ (opencode.jsonc whose
    ``instructions`` changed is a config drift; its MCP servers match)."""
    differing = artifact.differing
    if role is None or artifact.status != DIVERGENT or not differing or artifact.emitted is None \
            or len(grid_roles(artifact)) < 2:
        return artifact.status
    roles = {r for key in differing for r in key_roles(artifact.emitted.convergence, key)}
    return DIVERGENT if role in roles else MATCH


def status_cell(artifacts: list[Artifact], *, symbols: bool = False, role: str | None = None) -> Content:
    """The worst status of a cell's artifacts ("✗ DIVERGENT ×2"), or its symbol alone."""
    if not artifacts:
        return verbatim("·", "dim")
    statuses = [role_status(a, role) for a in artifacts]
    worst = next((s for s in WORST if s in statuses), statuses[0])
    if symbols:
        return verbatim(STATUS_SYMBOLS.get(worst, "?"), STATUS_STYLES.get(worst, ""))
    count = statuses.count(worst)
    suffix = f" ×{count}" if len(artifacts) > 1 and count > 1 else ""
    return verbatim(status_word(worst) + suffix, STATUS_STYLES.get(worst, ""))


def roles_of(plans: list[ResidentPlan]) -> list[str]:
    """Every role the plans' artifacts play, in display order."""
    seen = list(dict.fromkeys(role for plan in plans for artifact in plan.artifacts for role in grid_roles(artifact)))
    known = [role for role in ROLE_ORDER if role in seen]
    others = [role for role in seen if role not in ROLE_ORDER and role != ROLE_BEARER]
    return known + others + ([ROLE_BEARER] if ROLE_BEARER in seen else [])


@dataclass(frozen=True)
class Layout:
    """How much one row says: from words and a meter bar down to symbols with one-space gaps."""

    meter_bar: int  # width of the hot-index bar (0: bytes and zone word only)
    symbols: bool  # status cells as ✓ + ✗ instead of words
    narrow_titles: bool
    padding: int  # DataTable cell padding per side (0: one leading space per cell instead)


LAYOUTS = (Layout(8, False, False, 1), Layout(0, False, False, 1), Layout(0, False, True, 1),
           Layout(0, True, True, 0))
FIXED = 2  # the mark and the resident stay in view if the grid must still scroll sideways


class FleetGrid(DataTable[Content]):
    """Its one key of its own (space marks a resident) is the fleet screen's ``fleet.mark``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="cell", zebra_stripes=True, **kwargs)
        self.plans: list[ResidentPlan] = []
        self.roles: list[str] = []
        self.marked: set[str] = set()
        # Extra columns before the roles (e.g. the boot check): title -> {agent_id: (wide, narrow) cell}
        self.extra_columns: list[str] = []
        self.narrow_titles: dict[str, str] = {"Hot index": "Index"}  # column title -> its narrow form
        self.extra_cells: ExtraCells = {}
        self.meters: dict[str, Meter | None] = {}
        self.layout_used: Layout | None = None

    # -- filling ---------------------------------------------------------------------------------
    def show(self, plans: list[ResidentPlan], meters: dict[str, Meter | None],
             extra_cells: ExtraCells | None = None) -> None:
        """``plans``: ResidentPlans (already filtered); ``meters``: agent_id -> Meter | None;
        ``extra_cells``: (agent_id, column) -> Content, or a (wide, narrow) pair of Contents."""
        was_plan = self.current_plan()
        was_id = was_plan.agent_id if was_plan else None
        was_role = self.current_role()
        self.plans, self.meters, self.extra_cells = plans, meters, dict(extra_cells or {})
        self.roles = roles_of(plans)
        self.render_layout(self.pick_layout())
        ids = [p.agent_id for p in plans]
        if was_id in ids and was_role in self.roles:
            self.move_cursor(row=ids.index(was_id), column=self.first_role_column + self.roles.index(was_role))
        elif was_id in ids:
            self.move_cursor(row=ids.index(was_id))
        else:
            self.move_to_first(DIVERGENT)

    def columns_for(self, layout: Layout) -> list[Column]:
        """(title, key, cells) per column, cells in plan order."""
        def extra(plan: ResidentPlan, name: str) -> Content:
            cell = self.extra_cells.get((plan.agent_id, name), verbatim("—", "dim"))
            return cell[1 if layout.symbols else 0] if isinstance(cell, tuple) else cell

        columns = [
            ("✓", "mark", [self.mark_cell(p) for p in self.plans]),
            ("Resident", "resident", [verbatim(p.agent_id, "bold") for p in self.plans]),
            ("Harness", "harness", [verbatim(p.harness) for p in self.plans]),
            ("Hot index", "index", [self.meter_cell(self.meters.get(p.agent_id), layout) for p in self.plans]),
        ]
        columns += [(name, name, [extra(p, name) for p in self.plans]) for name in self.extra_columns]
        if layout.narrow_titles:
            columns = [(self.narrow_titles.get(title, title), key, cells) for title, key, cells in columns]
        for role in self.roles:
            cells = [status_cell([a for a in p.artifacts if role in grid_roles(a)], symbols=layout.symbols, role=role)
                     for p in self.plans]
            columns.append((role_title(role, layout.narrow_titles), role, cells))
        return columns

    @staticmethod
    def meter_cell(reading: Meter | None, layout: Layout) -> Content:
        if reading is None and layout.symbols:
            return verbatim("none", "dim")  # no MEMORY.md yet, in the narrow layout's few cells
        cell = mini_meter(reading, layout.meter_bar)
        if not layout.meter_bar:  # no bar: no gap before the bytes
            cell = cell[len(cell.plain) - len(cell.plain.lstrip()):]
        return cell

    @staticmethod
    def widths(layout: Layout, columns: list[Column]) -> list[int]:
        lead = 1 if layout.padding == 0 else 0  # the gap a cell carries itself when padding is off
        # Without padding a title as wide as its column would touch the next one ("MCPhook"): one more.
        last = len(columns) - 1
        return [max([len(title) + (lead if i < last else 0)] + [c.cell_length for c in cells]) + lead
                for i, (title, _, cells) in enumerate(columns)]

    def room(self) -> int:
        return (self.size.width or self.app.size.width) - 2  # room kept for a vertical scrollbar

    def needed(self, layout: Layout, widths: list[int]) -> int:
        return sum(widths) + 2 * layout.padding * len(widths)

    def pick_layout(self) -> Layout:
        """The first layout whose columns fit the grid's width."""
        for layout in LAYOUTS:
            if self.needed(layout, self.widths(layout, self.columns_for(layout))) <= self.room():
                return layout
        return LAYOUTS[-1]

    def fitted_widths(self, layout: Layout, columns: list[Column]) -> list[int]:
        """Column widths; when even the last layout is too wide, long resident ids and harness names
        are cut (with …; the detail names them in full) rather than the grid scrolling sideways."""
        widths = self.widths(layout, columns)
        keys = [key for _, key, _ in columns]
        for key, floor in (("resident", 12), ("harness", 8)):
            over = self.needed(layout, widths) - self.room()
            if over > 0:
                i = keys.index(key)
                widths[i] = max(min(widths[i], floor), widths[i] - over)
        return widths

    def render_layout(self, layout: Layout) -> None:
        self.layout_used = layout
        columns = self.columns_for(layout)
        lead = " " if layout.padding == 0 else ""
        self.cell_padding = layout.padding
        self.fixed_columns = FIXED
        cursor_row = self.cursor_row
        self.clear(columns=True)
        widths = self.fitted_widths(layout, columns)
        for (title, key, _), width in zip(columns, widths):
            self.add_column(lead + title, key=key, width=width)
        for row, plan in enumerate(self.plans):
            self.add_row(*((Content(lead) + cells[row]).truncate(width, ellipsis=True)
                           for (_, _, cells), width in zip(columns, widths)), key=plan.agent_id)
        if self.plans:
            self.move_cursor(row=min(cursor_row, len(self.plans) - 1))

    def on_resize(self) -> None:
        if self.plans and self.pick_layout() != self.layout_used:
            self.show(self.plans, self.meters, self.extra_cells)

    # -- where the cursor is ---------------------------------------------------------------------
    @property
    def first_role_column(self) -> int:
        return 4 + len(self.extra_columns)

    first_artifact_column = first_role_column

    def current_plan(self) -> ResidentPlan | None:
        if not self.plans or self.cursor_row >= len(self.plans):
            return None
        return self.plans[self.cursor_row]

    def current_role(self) -> str | None:
        column = self.cursor_column - self.first_role_column
        return self.roles[column] if 0 <= column < len(self.roles) else None

    def current_artifacts(self) -> list[Artifact]:
        """The artifacts in the cell under the cursor; all of the resident's on a non-role column."""
        plan = self.current_plan()
        if plan is None:
            return []
        role = self.current_role()
        if role is not None:
            return [a for a in plan.artifacts if role in grid_roles(a)]
        return list(plan.artifacts)

    def move_to_first(self, status: str) -> None:
        """Put the cursor on the first cell holding an artifact with ``status`` (if any)."""
        for row, plan in enumerate(self.plans):
            for column, role in enumerate(self.roles):
                if any(role_status(a, role) == status and role in grid_roles(a) for a in plan.artifacts):
                    self.move_cursor(row=row, column=self.first_role_column + column)
                    return

    def selected_ids(self) -> list[str]:
        if self.marked:
            return [p.agent_id for p in self.plans if p.agent_id in self.marked]
        plan = self.current_plan()
        return [plan.agent_id] if plan else []

    def mark_cell(self, plan: ResidentPlan) -> Content:
        return verbatim("✓" if plan.agent_id in self.marked else " ", "bold $accent")

    def action_toggle_mark(self) -> None:
        plan = self.current_plan()
        if plan is None:
            return
        self.marked ^= {plan.agent_id}
        lead = " " if self.layout_used and self.layout_used.padding == 0 else ""
        self.update_cell(plan.agent_id, "mark", Content(lead) + self.mark_cell(plan))


def where(plan: ResidentPlan, artifact: Artifact) -> str:
    """The artifact's path as the operator reads it: relative to the seat's home or the repo."""
    for base, label in ((plan.instance_home, "seat home"), (plan.repo, "repo")):
        if artifact.path.is_relative_to(base):
            return f"{artifact.path.relative_to(base)} (in the {label})"
    return str(artifact.path)


def worst_first(artifacts: list[Artifact]) -> list[Artifact]:
    """The artifacts, the worst status first (the core's order), otherwise in plan order."""
    return sorted(artifacts, key=lambda a: WORST.index(a.status) if a.status in WORST else len(WORST))


def plan_head(plan: ResidentPlan) -> Content:
    worst = [a for a in plan.artifacts if a.status == plan.status]
    named = f" ({', '.join(where(plan, a) for a in worst[:3])}{', …' if len(worst) > 3 else ''})" \
        if plan.status != MATCH and worst else ""
    return Content("\n").join([
        verbatim(f"{plan.agent_id} ({plan.harness}) · worst: {plan.status}{named}", "bold"),
        verbatim(f"seat home: {plan.instance_home}", "dim"),
        verbatim(f"repo: {plan.repo}", "dim"),
    ])


def artifact_detail(artifact: Artifact, *, plan: ResidentPlan | None = None, with_diff: bool = True, diff: str | None = None) -> Content:
    """Path (relative to ``plan``'s home or repo when given), roles, owner, status (in words), owned
    keys, reason, and a diff: ``diff`` when given (the file's own lines), else the plan's."""
    status = artifact.status
    roles = ", ".join(role_title(role) for role in grid_roles(artifact))
    parts = [
        Content.assemble((status_word(status), STATUS_STYLES.get(status, "")), "  ",
                         verbatim(where(plan, artifact) if plan is not None else str(artifact.path), "bold")),
        verbatim(f"{roles} · owner: {artifact.owner}"
                 + (f" · owned: {', '.join(artifact.owned_keys)}" if artifact.owned_keys else "")),
        verbatim(f"why: {artifact.reason}"),
    ]
    adoption = getattr(artifact, "adoption", None)
    shown = artifact.diff if diff is None else diff
    if adoption is not None:  # what matters is what adopting would write: only added lines
        parts.append(verbatim(f"adoptable: a (in the re-provision preview) adds {', '.join(adoption.added_keys)} "
                              "and keeps every other byte:", "bold $accent"))
        shown = adoption.diff
    if with_diff and shown:
        from curator.widgets.verbatim import diff_content

        parts.append(diff_content(shown))
    if with_diff and status == PENDING and artifact.emitted is not None:  # what it will be born with, whole
        parts.append(verbatim(f"will be created (mode {artifact.emitted.mode:04o}) with:", "bold"))
        parts.append(verbatim(artifact.emitted.content.decode("utf-8", "replace")))
    return Content("\n").join(parts)
