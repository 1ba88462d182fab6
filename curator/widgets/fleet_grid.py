"""The fleet grid: residents × artifacts, each cell a status in colour and in words.

Bearer files (create-only, the bearer's own) share one column; each fleet-owned file has its own.
Columns come from the plans themselves, so a new artifact kind needs no change here.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable

from curator.widgets.byte_meter import mini_meter
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

STATUS_STYLES = {"MATCH": "$success", "CREATED": "$warning", "DIVERGENT": "bold $error"}
STATUS_WORDS = {"MATCH": "✓ MATCH", "CREATED": "+ CREATED", "DIVERGENT": "✗ DIVERGENT"}
BEARER_COLUMN = "bearer files"
WORST = ("DIVERGENT", "CREATED", "MATCH")


def column_of(artifact) -> str:
    return BEARER_COLUMN if artifact.owner == "bearer" else artifact.path.name


def status_cell(artifacts: list) -> Content:
    if not artifacts:
        return verbatim("·", "dim")
    statuses = [a.status for a in artifacts]
    worst = next(s for s in WORST if s in statuses)
    count = statuses.count(worst)
    suffix = f" ×{count}" if len(artifacts) > 1 and count > 1 else ""
    return verbatim(STATUS_WORDS.get(worst, worst) + suffix, STATUS_STYLES.get(worst, ""))


class FleetGrid(DataTable):
    BINDINGS = [Binding("space", "toggle_mark", "Mark resident")]

    def __init__(self, **kwargs):
        # The mark and the resident stay in view when the artifact columns scroll sideways.
        super().__init__(cursor_type="cell", zebra_stripes=True, fixed_columns=2, **kwargs)
        self.plans: list = []
        self.columns_order: list[str] = []
        self.marked: set[str] = set()
        self.extra_columns: list[str] = []  # e.g. a boot-check column, filled by ``extra_cells``

    def show(self, plans: list, meters: dict, extra_cells: dict | None = None) -> None:
        """``plans``: ResidentPlans (already filtered); ``meters``: agent_id -> Meter | None."""
        was_plan = self.current_plan()
        was_id = was_plan.agent_id if was_plan else None
        was_column = self.current_column_name()
        self.plans = plans
        columns: list[str] = []
        for plan in plans:
            for artifact in plan.artifacts:
                if column_of(artifact) not in columns:
                    columns.append(column_of(artifact))
        if BEARER_COLUMN in columns:  # bearer files last: fleet-owned drift is what operators look for
            columns.remove(BEARER_COLUMN)
            columns.append(BEARER_COLUMN)
        self.columns_order = columns
        table_columns = [("✓", "mark"), ("Resident", "resident"), ("Harness", "harness"), ("Hot index", "index")]
        table_columns += [(name, name) for name in self.extra_columns] + [(name, name) for name in columns]
        rows = []
        for plan in plans:
            by_column: dict[str, list] = {}
            for artifact in plan.artifacts:
                by_column.setdefault(column_of(artifact), []).append(artifact)
            extras = [(extra_cells or {}).get((plan.agent_id, name), verbatim("—", "dim"))
                      for name in self.extra_columns]
            cells = (
                verbatim("✓" if plan.agent_id in self.marked else " ", "bold $accent"),
                verbatim(plan.agent_id, "bold"),
                verbatim(plan.harness),
                mini_meter(meters.get(plan.agent_id)),
                *extras,
                *(status_cell(by_column.get(name, [])) for name in columns),
            )
            rows.append((cells, plan.agent_id))
        fill(self, table_columns, rows, widths={"mark": 1})
        # Keep the cursor on the same resident and artifact column; else go to the first divergence.
        ids = [p.agent_id for p in plans]
        if was_id in ids and was_column in columns:
            self.move_cursor(row=ids.index(was_id), column=self.first_artifact_column + columns.index(was_column))
        else:
            self.move_to_first("DIVERGENT")

    @property
    def first_artifact_column(self) -> int:
        return 4 + len(self.extra_columns)

    def current_plan(self):
        if not self.plans or self.cursor_row >= len(self.plans):
            return None
        return self.plans[self.cursor_row]

    def current_column_name(self) -> str | None:
        column = self.cursor_column - self.first_artifact_column
        return self.columns_order[column] if 0 <= column < len(self.columns_order) else None

    def current_artifacts(self) -> list:
        """The artifacts in the cell under the cursor; all of the resident's on a non-artifact column."""
        plan = self.current_plan()
        if plan is None:
            return []
        name = self.current_column_name()
        if name is not None:
            return [a for a in plan.artifacts if column_of(a) == name]
        return list(plan.artifacts)

    def move_to_first(self, status: str) -> None:
        """Put the cursor on the first cell holding an artifact with ``status`` (if any)."""
        for row, plan in enumerate(self.plans):
            for column, name in enumerate(self.columns_order):
                if any(a.status == status and column_of(a) == name for a in plan.artifacts):
                    self.move_cursor(row=row, column=self.first_artifact_column + column)
                    return

    def selected_ids(self) -> list[str]:
        if self.marked:
            return [p.agent_id for p in self.plans if p.agent_id in self.marked]
        plan = self.current_plan()
        return [plan.agent_id] if plan else []

    def action_toggle_mark(self) -> None:
        plan = self.current_plan()
        if plan is None:
            return
        self.marked ^= {plan.agent_id}
        self.update_cell(plan.agent_id, "mark", verbatim("✓" if plan.agent_id in self.marked else " ", "bold $accent"))


def artifact_detail(artifact, *, with_diff: bool = True) -> Content:
    """Path, owner, status (in words), owned keys, reason, and the diff of the owned projection."""
    status = artifact.status
    parts = [
        Content.assemble((STATUS_WORDS.get(status, status), STATUS_STYLES.get(status, "")), "  ",
                         verbatim(str(artifact.path), "bold")),
        verbatim(f"owner: {artifact.owner}" + (f" · owned: {', '.join(artifact.owned_keys)}" if artifact.owned_keys else "")),
        verbatim(f"why: {artifact.reason}"),
    ]
    if with_diff and artifact.diff:
        from curator.widgets.verbatim import diff_content

        parts.append(diff_content(artifact.diff))
    return Content("\n").join(parts)
