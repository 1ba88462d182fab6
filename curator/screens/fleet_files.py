"""What the fleet panel asks before it changes one fleet file: setting a DIVERGENT file aside, or
rewriting its owned values in place; each shows what will change and re-plans after."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.content import Content

from curator.errors import CuratorError
from curator.screens.dialogs import ConfirmDialog
from curator.widgets.fleet_grid import artifact_detail
from curator.widgets.verbatim import verbatim
from generators.composer import Artifact, ResidentPlan
from generators.manifest import Fleet


def ask_repair(app: App[object], fleet: Fleet, plan: ResidentPlan, artifact: Artifact,
               then: Callable[[], None]) -> None:
    """Show the whole-file diff of rewriting only the owned values, then write it; ``then()`` re-plans."""
    from curator.widgets.verbatim import diff_content
    from generators.composer import repair_file

    repair = artifact.repair
    assert repair is not None  # the panel offers r only on a repairable file
    body = Content("\n").join([
        verbatim(f"Only the owned values ({', '.join(repair.added_keys)}) change; every other byte "
                 "stays. Written atomically, and refused if the file changed since this plan."),
        diff_content(repair.diff),
    ])

    def decided(yes: bool | None) -> None:
        if not yes:
            app.notify("Not repaired: the file is as it was.", markup=False)
            return
        try:
            repair_file(fleet, plan, artifact.path)
        except CuratorError as err:
            app.notify(str(err), title="Not repaired", severity="error", markup=False, timeout=10)
        else:
            app.notify(f"Repaired {artifact.path.name}", markup=False)
        then()

    app.push_screen(ConfirmDialog(f"Repair {artifact.path.name}?", body, "Repair"), decided)


def ask_set_aside(app: App[object], fleet: Fleet, plan: ResidentPlan, artifact: Artifact,
                  then: Callable[[], None]) -> None:
    """Confirm, then rename the divergent file to <name>.divergent-<UTC stamp>; ``then()`` re-plans."""
    from generators.composer import set_aside
    from generators.set_aside_loss import describe

    try:
        found = artifact.path.read_bytes()
    except OSError:
        found = None
    body = Content("\n").join([
        artifact_detail(artifact, with_diff=False),
        verbatim(""),
        verbatim(f"Rename it to {artifact.path.name}.divergent-<UTC stamp>; the next provision re-creates "
                 f"the fleet's version. {describe(artifact, found)} If the edit was meant to stay, cancel "
                 "and keep it by hand (keep = [...] on the resident in the manifest)."),
    ])

    def decided(yes: bool | None) -> None:
        if not yes:
            app.notify("Kept as it is: nothing was renamed.", markup=False)
            return
        try:
            assert plan.resident is not None  # a plan of the fleet's manifest names its resident
            aside = set_aside(fleet, plan.resident, artifact.path)
        except CuratorError as err:
            app.notify(str(err), title="Not set aside", severity="error", markup=False, timeout=10)
            return
        app.notify(f"Set aside as {aside.name}", markup=False)
        then()

    app.push_screen(ConfirmDialog(f"Set aside {artifact.path.name}?", body, "Set aside", danger=True), decided)
