"""Plan every file a seat should have: PENDING, OUTDATED, MATCH or DIVERGENT, read-only (see the package doc)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.errors import CuratorError
from curator.fsio import MAX_READ_BYTES
from generators import adoption, claude, codex, emission, gemini, keep, kimi, layout, opencode, prior_generations, \
    shared_files
from generators.composer.trusted_paths import Walk, inspect_stat
from generators.artifact_status import STATUSES, ArtifactStatus
from generators.emission import CREATE_ONLY, FLEET, WHOLE_FILE, EmittedFile, Owner
from generators.errors import PreparationError, UnsupportedError
from generators.manifest import Fleet, Resident
from generators.projection import InvalidOwnedFile, differing_keys, project, render
from generators.repair import REPAIR_HINT, Repair, offer as offer_repair

# The statuses by name, as the composer's users import them (generators.artifact_status says each).
DIVERGENT, PENDING, MATCH = ArtifactStatus.DIVERGENT, ArtifactStatus.PENDING, ArtifactStatus.MATCH
CREATED, ADOPTED, REPAIRED, KEPT = (ArtifactStatus.CREATED, ArtifactStatus.ADOPTED, ArtifactStatus.REPAIRED,
                                    ArtifactStatus.KEPT)
OUTDATED, UPDATED = ArtifactStatus.OUTDATED, ArtifactStatus.UPDATED
EARLIER_GENERATION = "written by an earlier seat-curator (its code, this seat's values); provision writes this version"
OWNED_MATCH = "owned keys match; the rest of the file is the resident's"
OWNED_DIFFER = "owned keys differ: "

EMITTERS = {kimi.HARNESS: kimi.emit, opencode.HARNESS: opencode.emit, claude.HARNESS: claude.emit,
            codex.HARNESS: codex.emit, gemini.HARNESS: gemini.emit}


@dataclass
class Artifact:
    path: Path
    owner: Owner
    status: ArtifactStatus
    # A tuple, shared with the emitted file when the file is settled: a plan of a big fleet keeps one
    # report per file, and a list of its own per artifact would be one more object for the collector.
    owned_keys: tuple[str, ...]
    reason: str
    diff: str = ""
    # What apply needs (the file to write); not part of the report.
    emitted: EmittedFile | None = field(default=None, repr=False, compare=False)
    # The path segment a safety problem sits on (None when the path is safe).
    unsafe_at: Path | None = field(default=None, repr=False, compare=False)
    # Other residents whose fleet-owned file this same file on disk is (a manifest problem).
    shared_with: tuple[str, ...] = field(default=(), repr=False, compare=False)
    # ("file", st_dev, st_ino) of a fleet file the plan found (from the lstat it made anyway).
    found_id: tuple[str, int, int] | None = field(default=None, repr=False, compare=False)
    # A DIVERGENT file whose owned keys are only absent: what `provision --adopt` would write
    # (on an ADOPTED file: what it wrote).
    adoption: adoption.Adoption | None = field(default=None, repr=False, compare=False)
    # A DIVERGENT file whose owned values can be rewritten in place: what `provision --repair` would write.
    repair: Repair | None = field(default=None, repr=False, compare=False)
    # An OUTDATED script: this version over the earlier one, what plain `provision` writes (as a repair is
    # written); on an UPDATED one: what it wrote.
    update: Repair | None = field(default=None, repr=False, compare=False)
    # The owned keys whose values differ (a DIVERGENT file that parsed): what the fleet panel marks.
    differing: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def planned(self) -> EmittedFile:
        """The file the fleet would write here; every artifact a plan makes carries it."""
        if self.emitted is None:
            raise PreparationError("carries no emitted file; plan it with plan_resident()", path=self.path)
        return self.emitted

    @property
    def roles(self) -> tuple[str, ...]:
        """What the file is for (``emission.CONVERGENCE_ROLES``): the fleet panel's columns."""
        if self.emitted is not None:
            return self.emitted.roles
        return (emission.ROLE_BEARER,) if self.owner == emission.BEARER else (self.path.name,)

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "owner": self.owner, "status": self.status,
                "owned_keys": list(self.owned_keys), "reason": self.reason, "diff": self.diff,
                "adoptable": self.adoption is not None and self.status == DIVERGENT,
                "adopt_diff": self.adoption.diff if self.adoption is not None else "",
                "repairable": self.repair is not None and self.status == DIVERGENT,
                "repair_diff": self.repair.diff if self.repair is not None else ""}


@dataclass
class ResidentPlan:
    agent_id: str
    harness: str
    instance_home: Path
    memory_dir: Path
    repo: Path
    artifacts: list[Artifact]
    fleet: Fleet | None = field(default=None, repr=False, compare=False)
    resident: Resident | None = field(default=None, repr=False, compare=False)
    interpreter: str | None = field(default=None, repr=False, compare=False)

    @property
    def planned_resident(self) -> Resident:
        """The resident this plan was made for; a plan built by ``plan_resident`` always knows it."""
        if self.resident is None:
            raise PreparationError("this plan carries no fleet/resident; build it with plan_resident()")
        return self.resident

    @property
    def status(self) -> ArtifactStatus:
        """The worst artifact status (the order of STATUSES)."""
        statuses = {a.status for a in self.artifacts}
        return next((s for s in STATUSES if s in statuses), MATCH)

    def divergent(self) -> list[Artifact]:
        return [a for a in self.artifacts if a.status == DIVERGENT]

    def outdated(self) -> list[Artifact]:
        return [a for a in self.artifacts if a.status == OUTDATED]

    def to_json(self) -> dict[str, Any]:
        return {"agent_id": self.agent_id, "harness": self.harness, "instance_home": str(self.instance_home),
                "memory_dir": str(self.memory_dir), "repo": str(self.repo),
                "artifacts": [a.to_json() for a in self.artifacts]}



def emit_resident(fleet: Fleet, resident: Resident, *, interpreter: str | None = None) -> list[EmittedFile]:
    """The files the fleet would write for ``resident``, as bytes (pure: nothing is read or written)."""
    if not fleet.instance_root.is_absolute():
        raise PreparationError(f"instance_root must be absolute, got {fleet.instance_root}", path=fleet.path)
    if not resident.repo.is_absolute():
        raise PreparationError(f"{resident.agent_id}: repo must be absolute, got {resident.repo}", path=fleet.path)
    emitter = EMITTERS.get(resident.harness)
    if emitter is None:
        raise UnsupportedError(f"{resident.agent_id}: unknown harness {resident.harness!r} "
                               f"(supported: {', '.join(EMITTERS)})", path=fleet.path)
    return emitter(fleet, resident, interpreter=interpreter)


def plan_resident(fleet: Fleet, resident: Resident, *, interpreter: str | None = None) -> ResidentPlan:
    """Compare what the fleet would write with what is on disk. Reads only; writes nothing."""
    emitted = emit_resident(fleet, resident, interpreter=interpreter)
    walk = Walk()  # directory checks shared by this seat's artifacts, for this call only
    root, agent_id, harness = fleet.instance_root, resident.agent_id, resident.harness
    return ResidentPlan(
        agent_id=agent_id,
        harness=harness,
        instance_home=layout.instance_home(root, agent_id, harness),
        memory_dir=layout.memory_dir(root, agent_id, harness),
        repo=resident.repo,
        artifacts=[_plan_file(item, fleet.mcp_prefix, walk) for item in emitted],
        fleet=fleet,
        resident=resident,
        interpreter=interpreter,
    )


def plan_fleet(fleet: Fleet, resident_id: str | None = None, *, interpreter: str | None = None) -> list[ResidentPlan]:
    residents = [fleet.resident(resident_id)] if resident_id is not None else list(fleet.residents)
    interpreter = interpreter or fleet.hook_python or kimi.resolve_interpreter()  # once, not per seat
    return keep_by_hand(fleet, refuse_shared(fleet, [plan_resident(fleet, r, interpreter=interpreter)
                                                     for r in residents]))


def keep_by_hand(fleet: Fleet, plans: list[ResidentPlan]) -> list[ResidentPlan]:
    """The residents' kept files as KEPT (generators.keep); after the shared-file check, so keeping
    never hides a manifest problem."""
    for plan in plans:
        keep.mark_kept(plan.planned_resident, plan.artifacts, fleet.path)
    return plans


def refuse_shared(fleet: Fleet, plans: list[ResidentPlan]) -> list[ResidentPlan]:
    """Mark DIVERGENT every planned fleet file that is also another resident's (the same file on
    disk). Checked against the whole fleet, so planning one resident still sees its clashes.
    Only files outside the instance root can clash: seat homes are distinct by construction."""
    root = fleet.instance_root
    # `is not`: the emitters hand the fleet's own instance_root object to every seat-home file (and
    # comparing Paths by value costs more than this whole check); a file that slips through is only
    # looked at needlessly.
    entries: list[tuple[str, Path, Artifact | None, Hashable | None]]
    entries = [(plan.agent_id, art.path, art, art.found_id) for plan in plans for art in plan.artifacts
               if art.owner is FLEET and art.emitted is not None and art.emitted.root is not root]
    planned = {plan.agent_id for plan in plans}
    for resident in fleet.residents:
        if resident.agent_id in planned:
            continue
        try:
            emitted = emit_resident(fleet, resident, interpreter=plans[0].interpreter if plans else None)
        except CuratorError:  # that resident's own plan reports its problem
            continue
        entries += [(resident.agent_id, item.path, None, None) for item in emitted
                    if item.owner is FLEET and item.root is not root]
    for group in shared_files.shared(entries):
        owners = list(dict.fromkeys(owner for owner, _, _ in group))
        real = os.path.realpath(group[0][1])
        for owner, path, art in group:
            if art is None:
                continue
            others = tuple(o for o in owners if o != owner)
            art.status, art.diff, art.shared_with, art.adoption = DIVERGENT, "", others, None
            art.reason = (f"residents {owner} and {', '.join(others)} share this file ({real}): a fleet-owned "
                          f"file belongs to one seat; give each resident its own repo in {fleet.path}")
    return plans


def plan_exit_code(plans: list[ResidentPlan]) -> int:
    """0 everything MATCH, 2 files to write (PENDING, or OUTDATED scripts), 3 something DIVERGENT (the CLI's
    contract)."""
    statuses = {p.status for p in plans}  # a plan's worst: OUTDATED shows when nothing is worse
    return 3 if DIVERGENT in statuses else 2 if statuses & {PENDING, OUTDATED} else 0


def _plan_file(item: EmittedFile, prefix: str, walk: Walk | None = None) -> Artifact:
    owned = item.owned_keys  # () for a bearer file, WHOLE_FILE_KEYS for a script
    problem, at, found_stat = inspect_stat(item.root, item.path, walk)
    if problem:
        return Artifact(item.path, item.owner, DIVERGENT, owned, problem, emitted=item, unsafe_at=at)
    if not isinstance(found_stat, os.stat_result):  # absent (the marker comes only with a problem)
        return Artifact(item.path, item.owner, PENDING, owned, f"absent: will be created (mode {item.mode:04o})",
                        emitted=item)
    if item.convergence == CREATE_ONLY:
        return Artifact(item.path, item.owner, MATCH, owned, "bearer file: present; the bearer's own, never compared",
                        emitted=item)
    try:
        found = read_regular(item.path, found_stat.st_size)
    except OSError as err:
        return Artifact(item.path, item.owner, DIVERGENT, owned, f"unreadable: {err.strerror or err}", emitted=item)
    status, reason, diff, keys = _compare(item, found, prefix, owned)
    artifact = Artifact(item.path, item.owner, status, keys, reason, diff, emitted=item,
                        found_id=("file", found_stat.st_dev, found_stat.st_ino))
    if status == DIVERGENT and item.owned is not None and reason.startswith(OWNED_DIFFER):
        artifact.differing = tuple(reason[len(OWNED_DIFFER):].split(", "))  # as _compare joined them
        try:
            artifact.adoption = adoption.adopt(item.path, item.convergence, found, item.owned, prefix)
        except adoption.NotAdoptable as why:
            if not why.held:  # drift of held values needs no note; an absent key that cannot be added does
                artifact.reason += f" (not adoptable: {why})"
        else:
            artifact.reason = (f"owned keys absent: {', '.join(artifact.adoption.added_keys)}; "
                               "`provision --adopt` adds them and keeps the rest of the file")
    if status == OUTDATED:
        artifact.update = offer_repair(item, found, prefix)
    if status == DIVERGENT and artifact.adoption is None:
        artifact.repair = offer_repair(item, found, prefix)
        artifact.reason += f"; {REPAIR_HINT}" if artifact.repair is not None else ""
    return artifact


def _compare(item: EmittedFile, found: bytes, prefix: str,
             owned: tuple[str, ...]) -> tuple[ArtifactStatus, str, str, tuple[str, ...]]:
    """(status, reason, diff, owned keys) of a fleet file read from disk."""
    if item.convergence == WHOLE_FILE:
        if found == item.content:
            return MATCH, "identical to the generated script", "", owned
        diff = text_diff(item.path, item.content.decode("utf-8", "replace").splitlines(True),
                          found.decode("utf-8", "replace").splitlines(True))
        if prior_generations.is_earlier_generation(item.path.name, found, item.content):
            return OUTDATED, EARLIER_GENERATION, diff, owned
        return DIVERGENT, "differs from the generated script (a hand edit or a stale generation)", diff, owned
    if found == item.content:
        # Settled seats: the expected bytes render the expected projection (tests hold the two
        # together), so equal bytes are a MATCH with no parse. Any other bytes go to the projection.
        return MATCH, OWNED_MATCH, "", owned
    expected = item.owned
    try:
        actual = project(item.convergence, found, prefix)
    except InvalidOwnedFile as err:
        return DIVERGENT, err.reason, "", owned
    assert expected is not None  # a file compared by projection has an expected one (emission.EmittedFile)
    changed = differing_keys(expected, actual)
    if not changed:
        return MATCH, OWNED_MATCH, "", owned
    keys = tuple(dict.fromkeys(owned + tuple(k for k in actual if k not in owned)))
    return (DIVERGENT, OWNED_DIFFER + ", ".join(changed),
            text_diff(item.path, render(expected), render(actual)), keys)


def read_regular(path: Path | str, size: int | None = None) -> bytes:
    """Read a file already checked to be regular; O_NOFOLLOW closes the gap if it became a link.
    ``size`` is the size that check saw (it saves an fstat); the read goes to the end either way.
    Plain os calls, not a buffered file object: a plan reads thousands of small files."""
    if size is not None and size > MAX_READ_BYTES:
        raise OSError(0, f"{size:,} bytes, over the {MAX_READ_BYTES:,}-byte safety limit")
    # O_NONBLOCK: a FIFO swapped in since the check must not block the open (it then reads empty).
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if size is None:
            size = os.fstat(fd).st_size
            if size > MAX_READ_BYTES:
                raise OSError(0, f"{size:,} bytes, over the {MAX_READ_BYTES:,}-byte safety limit")
        data = os.read(fd, size + 1)
        if len(data) <= size:  # a short read of a regular file is its end
            return data
        chunks, total = [data], len(data)
        while chunks[-1]:  # it grew since it was checked: on to the end, within the limit
            if total > MAX_READ_BYTES:
                raise OSError(0, f"over the {MAX_READ_BYTES:,}-byte safety limit (it grew while being read)")
            chunks.append(os.read(fd, max(size, 65536)))
            total += len(chunks[-1])
        return b"".join(chunks)
    finally:
        os.close(fd)


def text_diff(path: Path, expected: list[str], found: list[str]) -> str:
    return "".join(difflib.unified_diff(expected, found, fromfile=f"{path} (fleet expects)",
                                        tofile=f"{path} (on disk)"))


