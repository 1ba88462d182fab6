"""Apply a plan: write only when nothing anywhere is DIVERGENT, create what is pending, write this
version over an earlier seat-curator's scripts (OUTDATED), adopt what ``--adopt`` allows, and undo
this run's writes when the seat is not clean after writing."""

from __future__ import annotations

import os
from pathlib import Path

from curator import safe_replace
from curator.errors import CuratorError, from_os_error
from curator.fsio import exclusive_create, fsync_dir, remove_dead_temps
from generators.composer.plan import (ADOPTED, CREATED, DIVERGENT, MATCH, PENDING, REPAIRED, UPDATED, Artifact,
                                      ResidentPlan, keep_by_hand, plan_fleet, plan_resident, read_regular,
                                      refuse_shared)
from generators.repair import Repair
from generators.composer.trusted_paths import exists, path_problem
from generators.emission import FLEET
from generators.errors import DivergentError, PreparationError
from generators.manifest import Fleet



def divergent_error(plans: list[ResidentPlan], *, only: list[Artifact] | None = None) -> DivergentError:
    """One line naming every DIVERGENT file (or just ``only``) with its owned keys and reason."""
    chosen = only if only is not None else [a for p in plans for a in p.divergent()]
    lines = []
    for art in chosen:
        keys = ", ".join(art.owned_keys) or "(path)"
        lines.append(f"{art.path} [owned: {keys}] — {art.reason}")
    first = chosen[0]
    more = f" (+{len(lines) - 1} more: " + "; ".join(lines[1:]) + ")" if len(lines) > 1 else ""
    return DivergentError(f"{lines[0]}{more}; nothing was written", path=first.path)


def apply_plan(plan: ResidentPlan) -> ResidentPlan:
    """Re-plan (the disk may have moved since ``plan``), refuse on any DIVERGENT, create what is pending,
    and return the fresh plan after writing: files this run created show as CREATED, the rest MATCH."""
    if plan.fleet is None or plan.resident is None:
        raise PreparationError("this plan carries no fleet/resident; build it with plan_resident()")
    return apply_fleet(plan.fleet, plans=[plan])[0]


def apply_fleet(fleet: Fleet, resident_id: str | None = None, *, interpreter: str | None = None,
                plans: list[ResidentPlan] | None = None, adopt: bool = False,
                repair: bool = False) -> list[ResidentPlan]:
    """Provision: the whole plan first; if anything anywhere is DIVERGENT, nothing is written.

    With ``adopt``, a DIVERGENT file that is adoptable (its owned keys only absent) does not block:
    the owned keys are added to it (``Artifact.adoption``), atomically and re-checked against the
    bytes it was planned from. With ``repair``, a DIVERGENT file whose owned values can be rewritten
    in place (``Artifact.repair``) is written the same way. An OUTDATED script (an earlier
    seat-curator's) is written that way too, with no flag: no byte of it was the resident's. Any
    other DIVERGENT file still refuses the whole run."""
    if plans is not None:
        fresh = keep_by_hand(fleet, refuse_shared(fleet, [plan_resident(fleet, p.planned_resident,
                                                                        interpreter=p.interpreter) for p in plans]))
    else:
        fresh = plan_fleet(fleet, resident_id, interpreter=interpreter)
    for fixable in (a for p in fresh for a in p.divergent() if repair and a.repair is not None):
        fixable.adoption = fixable.repair  # written like an adoption: planned bytes re-checked, exchanged, verified
    blocking = [a for p in fresh for a in p.divergent() if not ((adopt or repair) and a.adoption is not None)]
    if blocking:
        raise divergent_error(fresh, only=blocking)
    pending = [art for plan in fresh for art in plan.artifacts if art.status == PENDING]
    outdated = [art for plan in fresh for art in plan.outdated() if art.update is not None]
    for script in outdated:
        script.adoption = script.update  # this version over the earlier one: planned bytes re-checked, exchanged, verified
    adopting = [art for plan in fresh for art in plan.artifacts if art.status == DIVERGENT] + outdated
    for to_create in pending:
        to_create.planned.content  # render (and schema-check) everything before the first write
    remove_dead_temps_of(fresh)
    written: list[Artifact] = []
    art: Artifact | None = None
    try:
        for art in adopting:
            _adopt(art)
            written.append(art)
        for art in pending:
            if _create(art):
                written.append(art)
    except BaseException as err:
        _undo_written(written)
        if isinstance(err, CuratorError):
            raise
        if isinstance(err, OSError):  # ENOSPC and EIO come from write(2), with no file name: name ours
            where = err.filename or (art.path if art is not None else None)
            raise from_os_error(err, "cannot write", path=where, cls=PreparationError) from None
        raise
    after = keep_by_hand(fleet, refuse_shared(fleet, [plan_resident(fleet, p.planned_resident, interpreter=p.interpreter)
                                                      for p in fresh]))
    if any(p.divergent() for p in after):
        # Something moved while this run wrote (another writer, a racing provision): never report
        # success over a seat that is not clean, and leave no half-born seat behind.
        kept = _undo_written(written)
        error = divergent_error(after)
        note = "" if not kept else f"; kept {len(kept)} file(s) written to since: {', '.join(map(str, kept))}"
        raise DivergentError(error.message.replace("; nothing was written", "") +
                             f"; found after writing, what this run wrote was undone{note}",
                             path=error.path)
    born = {art.path: art for art in written}
    updated = {art.path for art in outdated}
    for plan in after:  # report what this run wrote as CREATED / UPDATED / ADOPTED, as the reference composer does
        for art in plan.artifacts:
            if art.path in born and art.status == MATCH:
                wrote = born[art.path].adoption
                if art.path in updated:
                    art.update = born[art.path].update  # what was written, for the report
                    art.status, art.reason = UPDATED, "updated now: this version written over an earlier seat-curator's"
                elif isinstance(wrote, Repair):
                    art.repair = wrote  # what was written, for the report
                    keys = ", ".join(wrote.added_keys)
                    art.status, art.reason = REPAIRED, f"repaired now: rewrote {keys}, kept the rest of the file"
                elif wrote is not None:
                    art.adoption = wrote  # what was written, for the report
                    keys = ", ".join(wrote.added_keys)
                    art.status, art.reason = ADOPTED, f"adopted now: added {keys}, kept the rest of the file"
                else:
                    art.status, art.reason = CREATED, f"created now (mode {art.planned.mode:04o})"
    return after


def repair_file(fleet: Fleet, plan: ResidentPlan, path: Path) -> Artifact:
    """Repair one file of ``plan``'s seat in place (its owned values only), re-planned first and
    written like ``provision --repair`` writes it: planned bytes re-checked, exchanged, verified."""
    fresh = keep_by_hand(fleet, refuse_shared(fleet, [plan_resident(fleet, plan.planned_resident,
                                                                    interpreter=plan.interpreter)]))
    art = next((a for a in fresh[0].artifacts if a.path == path and a.status == DIVERGENT and a.repair), None)
    if art is None:
        raise PreparationError("is not repairable now: re-plan to see why", path=path)
    art.adoption = art.repair
    _adopt(art)
    return art


def remove_dead_temps_of(plans: list[ResidentPlan]) -> list[Path]:
    """Remove the temp files a killed provision (or write of a fleet file) left beside the planned
    files (fsio.remove_dead_temps: only its own, only dead ones). A fleet file's can go whatever
    they hold: the file is rebuilt from the manifest and its own bytes. A bearer file's only if it
    is still to be created and the temp file holds exactly its birth text: a save of the bearer's
    own text is reported by `check`, never removed."""
    targets: dict[Path, dict[str, bytes | None]] = {}
    for plan in plans:
        for art in plan.artifacts:
            if art.unsafe_at is not None or art.shared_with or art.emitted is None:
                continue  # a path the plan would not write through is not cleaned through either
            if art.owner == FLEET:
                targets.setdefault(art.path.parent, {})[art.path.name] = None
            elif art.status == PENDING:
                targets.setdefault(art.path.parent, {})[art.path.name] = art.emitted.content
    removed = []
    for directory, names in targets.items():
        if exists(directory):
            removed += [directory / name for name in remove_dead_temps(directory, names)]
    return removed


def _undo_written(written: list[Artifact]) -> list[Path]:
    """Undo this run's writes, newest first: a created file is removed, an adopted one gets its old
    bytes back. A file whose bytes are no longer what this run wrote has been written by someone
    since: it is kept (never lose text). Returns the kept paths."""
    kept = []
    for art in reversed(written):
        ours = art.adoption.after if art.adoption is not None else art.planned.content
        before = art.adoption.before if art.adoption is not None else None
        try:
            safe_replace.replace(art.path, ours, before, keep_tag="divergent")
        except (OSError, CuratorError):  # ChangedMeanwhile among them: theirs now, kept as it is
            kept.append(art.path)
    return kept


def _adopt(art: Artifact) -> None:
    """Write one adoption through the guarded replace: the file must still hold the bytes it was
    planned from, right before the rename too, and must hold the adopted bytes after it."""
    item, plan = art.planned, art.adoption
    if plan is None:
        raise PreparationError("has no adoption planned: re-plan to see why", path=art.path)
    problem, _ = path_problem(item.root, art.path)
    if problem:
        raise DivergentError(f"{art.path}: {problem}; nothing more was written", path=art.path)
    try:
        safe_replace.replace(art.path, plan.before, plan.after, keep_tag="divergent")
    except safe_replace.ChangedMeanwhile as changed:
        if changed.kept is not None:
            raise DivergentError(f"changed on disk while it was being adopted, twice; the file the adoption "
                                 f"replaced is back in place, and the one that was in place a moment later is kept "
                                 f"as {changed.kept}: compare the two", path=art.path) from None
        left = "; it is left as the other writer saved it" if changed.replaced else ""
        raise DivergentError(f"changed on disk while it was being adopted{left}; nothing more was written",
                             path=art.path) from None
    if read_regular(art.path) != plan.after:
        raise DivergentError("changed on disk right after it was adopted", path=art.path)


def _create(art: Artifact) -> bool:
    """Create one pending file with exclusive create; False if someone else created it first."""
    item = art.planned
    content = item.content
    _make_parents(item.root, art.path.parent)
    problem, _ = path_problem(item.root, art.path)  # re-check: a symlink may have appeared meanwhile
    if problem:
        raise DivergentError(f"{art.path}: {problem}; nothing more was written", path=art.path)
    return exclusive_create(art.path, content, mode=item.mode)


def _make_parents(root: Path | None, directory: Path) -> None:
    """mkdir -p, private (0700) below the trusted root; the root and above as an ordinary 0755."""
    missing = []
    current = directory
    while not exists(current) and current != current.parent:
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        private = root is not None and Path(root) in path.parents
        try:
            os.mkdir(path, 0o700 if private else 0o755)
        except FileExistsError:
            pass
        fsync_dir(path.parent)


