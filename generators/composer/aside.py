"""Set aside one DIVERGENT file (renamed, never deleted) so the next provision re-creates it."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from curator.fsio import fsync_dir
from generators.composer.plan import DIVERGENT, plan_resident, refuse_shared
from generators.composer.trusted_paths import exists
from generators.errors import PreparationError
from generators.manifest import Fleet, Resident



def utc_stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def set_aside(fleet: Fleet, resident: Resident, path: str | Path, *, now: datetime | None = None) -> Path:
    """Rename one DIVERGENT artifact to ``<name>.divergent-<UTC stamp>`` so the next provision
    re-creates it. Explicit only; nothing is deleted. Returns the new path."""
    target = Path(os.path.normpath(Path(path).expanduser().absolute()))
    plan = refuse_shared(fleet, [plan_resident(fleet, resident)])[0]
    art = next((a for a in plan.artifacts if a.path == target), None)
    if art is None:
        known = "\n  ".join(str(a.path) for a in plan.artifacts)
        raise PreparationError(f"not one of {resident.agent_id}'s provisioned files; they are:\n  {known}",
                               path=target)
    if art.status != DIVERGENT:
        raise PreparationError(f"is {art.status}, not DIVERGENT: nothing to set aside", path=target)
    if art.shared_with:
        raise PreparationError(f"is shared with {', '.join(art.shared_with)} ({art.reason}); fix the manifest — "
                               "setting it aside would not help", path=target)
    if art.unsafe_at is not None and art.unsafe_at != target:
        raise PreparationError(f"the problem is the path segment {art.unsafe_at} ({art.reason}); "
                               "fix that by hand — setting this file aside would not help", path=target)
    aside = target.with_name(f"{target.name}.divergent-{utc_stamp(now)}")
    if exists(aside):
        raise PreparationError(f"{aside} already exists; try again in a second", path=target)
    os.rename(target, aside)
    fsync_dir(target.parent)
    return aside
