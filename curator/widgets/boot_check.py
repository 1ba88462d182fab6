"""The fleet grid's boot-check column: the canary's last saved result per resident, as a wide and a narrow cell."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.content import Content

from curator.widgets.verbatim import verbatim

if TYPE_CHECKING:
    from curator.canary.result import ResidentResult as BootResult
    from generators.composer.plan import ResidentPlan

BOOT_CHECK = "Boot check"
BOOT_STYLES = {"PASS": "$success", "FAIL": "bold $error", "ERROR": "bold $error"}
RUNNING = (verbatim("running…", "bold $warning"), verbatim("running…", "bold $warning"))


def last_boot_results(fleet_path: Path, plans: Sequence[ResidentPlan]) -> dict[str, BootResult | None]:
    """The canary's last saved result per resident (None: never run)."""
    from curator.canary.last_result import load_result

    return {plan.agent_id: load_result(fleet_path, plan.agent_id) for plan in plans}


def boot_cell(result: BootResult | None, now: float | None = None) -> tuple[Content, Content]:
    """A boot-check grid cell, wide and narrow: "PASS 3m ago" / "PASS 3m", "never run" / "never"."""
    from curator.canary.last_result import describe

    if result is None:
        return verbatim("never run", "dim"), verbatim("never", "dim")
    text = describe(result, now)
    style = BOOT_STYLES.get(result.status, "")
    return verbatim(text, style), verbatim(text.removesuffix(" ago"), style)
