"""Files a resident keeps by hand: the manifest's ``keep = ["config.toml"]`` on a resident.

A kept fleet file that exists is never compared into a verdict nor written: `plan` reports it
``KEPT`` (with the owned-key diff it would otherwise show, for the operator to read), it blocks
nothing, and the rest of the seat provisions. An absent kept file is still ``PENDING``: the seat is
born with the fleet's version, which is then the resident's. Path problems (a symlinked segment, a
file two residents share) stay DIVERGENT: keeping does not make a path safe. The canary reads the
seat's files as they are, so it still reports what a kept file does to loading.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from generators.adoption import Adoption
from generators.artifact_status import ArtifactStatus
from generators.emission import FLEET, Owner
from generators.errors import PreparationError
from generators.fleet_model import Resident
from generators.repair import Repair

KEPT = ArtifactStatus.KEPT


class Keepable(Protocol):
    """What keeping reads and turns KEPT of a planned artifact (the composer's ``Artifact``, which
    imports this module)."""

    path: Path
    owner: Owner
    status: ArtifactStatus
    reason: str
    unsafe_at: Path | None
    shared_with: tuple[str, ...]
    adoption: Adoption | None
    repair: Repair | None


def matches(path: Path, name: str) -> bool:
    """``name`` (from the manifest) names ``path``: its file name, or a tail of its path
    (``.kimi-code/mcp.json``)."""
    parts = tuple(part for part in name.split("/") if part)
    return bool(parts) and tuple(path.parts[-len(parts):]) == parts


def mark_kept(resident: Resident, artifacts: Iterable[Keepable], manifest_path: Path | None = None) -> None:
    """Turn the resident's kept fleet files that exist into KEPT artifacts (in place)."""
    if not resident.keep:
        return
    fleet_files = [art for art in artifacts if art.owner == FLEET]
    for name in resident.keep:
        chosen = [art for art in fleet_files if matches(art.path, name)]
        if not chosen:
            names = ", ".join(art.path.name for art in fleet_files)
            raise PreparationError(f"{resident.agent_id}: keep names {name!r}, none of this seat's fleet files "
                                   f"({names})", path=manifest_path)
        for art in chosen:
            if art.status == ArtifactStatus.PENDING or art.unsafe_at is not None or art.shared_with:
                continue
            verdict = "its owned keys match the fleet's" if art.status == ArtifactStatus.MATCH else art.reason
            art.status, art.adoption, art.repair = KEPT, None, None
            art.reason = f"kept by hand (keep in the manifest): never written; {verdict}"
