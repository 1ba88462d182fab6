"""The workspace composer: plan every file a seat should have, then apply only if nothing diverged.

Plan first (chezmoi/terraform style): each artifact is ``PENDING`` (absent: to create), ``MATCH`` or
``DIVERGENT``; after provisioning, the files that run wrote are ``CREATED``. Apply writes only when
the whole plan — for one resident or the whole fleet — has no ``DIVERGENT`` artifact, so a seat is
never half-born and a drifted file is never silently repaired. Two residents whose fleet-owned files
are one file on disk (the same repo, or one repo a symlink to another) are DIVERGENT at plan time.
A DIVERGENT file whose owned keys are only absent carries an ``adoption`` (generators.adoption):
``apply_fleet(..., adopt=True)`` writes it; the report then says ``ADOPTED``.
Bearer files are create-only and never read; fleet files compare on their owned projection (or
whole bytes for scripts). Unsafe paths (a symlinked segment, an escape from the trusted root, a file
where a directory should be) are DIVERGENT too.
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from curator.errors import CuratorError, from_os_error
from curator.fsio import (MAX_READ_BYTES, atomic_write, exclusive_create, fsync_dir, hold, link_new, remove_dead_temps,
                          stop_point, swap, write_temp)
from generators import adoption, claude, emission, keep, kimi, layout, opencode, shared_files
from generators.repair import REPAIR_HINT, Repair, offer as offer_repair
from generators.emission import (CREATE_ONLY, FLEET, WHOLE_FILE, WHOLE_FILE_KEY,  # noqa: F401 (re-exported)
                                 EmittedFile)
from generators.errors import DivergentError, PreparationError, UnsupportedError
from generators.manifest import Fleet, Resident
from generators.projection import InvalidOwnedFile, differing_keys, project, render

PENDING = "PENDING"  # absent; provision will create it
CREATED = "CREATED"  # written by the provision run that reports it
ADOPTED = "ADOPTED"  # an existing file this provision --adopt run added the owned keys to
REPAIRED = "REPAIRED"  # an existing file this provision --repair run rewrote the owned values of
KEPT = keep.KEPT  # a file the manifest says the resident keeps by hand: never written, blocks nothing
MATCH = "MATCH"
DIVERGENT = "DIVERGENT"
STATUSES = (DIVERGENT, PENDING, CREATED, ADOPTED, REPAIRED, KEPT, MATCH)  # every artifact status, worst first
OWNED_MATCH = "owned keys match; the rest of the file is the resident's"
OWNED_DIFFER = "owned keys differ: "

EMITTERS = {kimi.HARNESS: kimi.emit, opencode.HARNESS: opencode.emit, claude.HARNESS: claude.emit}


@dataclass
class Artifact:
    path: Path
    owner: str  # "bearer" | "fleet"
    status: str  # PENDING | CREATED / ADOPTED (this run wrote it) | MATCH | DIVERGENT
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
    found_id: tuple | None = field(default=None, repr=False, compare=False)
    # A DIVERGENT file whose owned keys are only absent: what `provision --adopt` would write
    # (on an ADOPTED file: what it wrote).
    adoption: adoption.Adoption | None = field(default=None, repr=False, compare=False)
    # A DIVERGENT file whose owned values can be rewritten in place: what `provision --repair` would write.
    repair: Repair | None = field(default=None, repr=False, compare=False)
    # The owned keys whose values differ (a DIVERGENT file that parsed): what the fleet panel marks.
    differing: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def roles(self) -> tuple[str, ...]:
        """What the file is for (``emission.CONVERGENCE_ROLES``): the fleet panel's columns."""
        if self.emitted is not None:
            return self.emitted.roles
        return (emission.ROLE_BEARER,) if self.owner == emission.BEARER else (self.path.name,)

    def to_json(self) -> dict:
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
    def status(self) -> str:
        """The worst artifact status (the order of STATUSES)."""
        statuses = {a.status for a in self.artifacts}
        return next((s for s in STATUSES if s in statuses), MATCH)

    def divergent(self) -> list[Artifact]:
        return [a for a in self.artifacts if a.status == DIVERGENT]

    def to_json(self) -> dict:
        return {"agent_id": self.agent_id, "harness": self.harness, "instance_home": str(self.instance_home),
                "memory_dir": str(self.memory_dir), "repo": str(self.repo),
                "artifacts": [a.to_json() for a in self.artifacts]}


# ------------------------------------------------------------------------------------------- plan


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
    walk = _Walk()  # directory checks shared by this seat's artifacts, for this call only
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
    return _keep(fleet, _refuse_shared(fleet, [plan_resident(fleet, r, interpreter=interpreter) for r in residents]))


def _keep(fleet: Fleet, plans: list[ResidentPlan]) -> list[ResidentPlan]:
    for plan in plans:  # after the shared-file check: keeping never hides a manifest problem
        keep.mark_kept(plan.resident, plan.artifacts, fleet.path)
    return plans


def _refuse_shared(fleet: Fleet, plans: list[ResidentPlan]) -> list[ResidentPlan]:
    """Mark DIVERGENT every planned fleet file that is also another resident's (the same file on
    disk). Checked against the whole fleet, so planning one resident still sees its clashes.
    Only files outside the instance root can clash: seat homes are distinct by construction."""
    root = fleet.instance_root
    # `is not`: the emitters hand the fleet's own instance_root object to every seat-home file (and
    # comparing Paths by value costs more than this whole check); a file that slips through is only
    # looked at needlessly.
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
    """0 everything MATCH, 2 creations pending, 3 something DIVERGENT (the CLI's contract)."""
    statuses = {p.status for p in plans}
    return 3 if DIVERGENT in statuses else 2 if PENDING in statuses else 0


def _plan_file(item: EmittedFile, prefix: str, walk: _Walk | None = None) -> Artifact:
    owned = item.owned_keys  # () for a bearer file, WHOLE_FILE_KEYS for a script
    problem, at, found_stat = _inspect_stat(item.root, item.path, walk)
    if problem:
        return Artifact(item.path, item.owner, DIVERGENT, owned, problem, emitted=item, unsafe_at=at)
    if found_stat is None:
        return Artifact(item.path, item.owner, PENDING, owned, f"absent: will be created (mode {item.mode:04o})",
                        emitted=item)
    if item.convergence == CREATE_ONLY:
        return Artifact(item.path, item.owner, MATCH, owned, "bearer file: present; the bearer's own, never compared",
                        emitted=item)
    try:
        found = _read_regular(item.path, found_stat.st_size)
    except OSError as err:
        return Artifact(item.path, item.owner, DIVERGENT, owned, f"unreadable: {err.strerror or err}", emitted=item)
    status, reason, diff, keys = _compare(item, found, prefix, owned)
    artifact = Artifact(item.path, item.owner, status, keys, reason, diff, emitted=item,
                        found_id=("file", found_stat.st_dev, found_stat.st_ino))
    if status == DIVERGENT and item.owned is not None and reason.startswith(OWNED_DIFFER):
        artifact.differing = tuple(reason[len(OWNED_DIFFER):].split(", "))
        try:
            artifact.adoption = adoption.adopt(item.path, item.convergence, found, item.owned, prefix)
        except adoption.NotAdoptable as why:
            if not why.held:  # drift of held values needs no note; an absent key that cannot be added does
                artifact.reason += f" (not adoptable: {why})"
        else:
            artifact.reason = (f"owned keys absent: {', '.join(artifact.adoption.added_keys)}; "
                               "`provision --adopt` adds them and keeps the rest of the file")
    if status == DIVERGENT and artifact.adoption is None:
        artifact.repair = offer_repair(item, found, prefix)
        artifact.reason += f"; {REPAIR_HINT}" if artifact.repair is not None else ""
    return artifact


def _compare(item: EmittedFile, found: bytes, prefix: str,
             owned: tuple[str, ...]) -> tuple[str, str, str, tuple[str, ...]]:
    """(status, reason, diff, owned keys) of a fleet file read from disk."""
    if item.convergence == WHOLE_FILE:
        if found == item.content:
            return MATCH, "identical to the generated script", "", owned
        diff = _text_diff(item.path, item.content.decode("utf-8", "replace").splitlines(True),
                          found.decode("utf-8", "replace").splitlines(True))
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
    changed = differing_keys(expected, actual)
    if not changed:
        return MATCH, OWNED_MATCH, "", owned
    keys = tuple(dict.fromkeys(owned + tuple(k for k in actual if k not in owned)))
    return (DIVERGENT, OWNED_DIFFER + ", ".join(changed),  # _plan_file reads the keys back from here
            _text_diff(item.path, render(expected), render(actual)), keys)


def _read_regular(path: Path | str, size: int | None = None) -> bytes:
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


def _text_diff(path: Path, expected: list[str], found: list[str]) -> str:
    return "".join(difflib.unified_diff(expected, found, fromfile=f"{path} (fleet expects)",
                                        tofile=f"{path} (on disk)"))


def _exists(path: Path) -> bool:
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    return True


def path_problem(root: Path | None, path: Path) -> tuple[str | None, Path | None]:
    """Why writing ``path`` under ``root`` would be unsafe, and the segment at fault; (None, None) if safe.

    Checks lexically that ``path`` stays inside ``root``, then every existing segment below ``root``:
    none may be a symlink, every parent must be a directory, and the target must not be a directory.
    ``root`` itself may be a symlink (the operator chose it).
    """
    problem, at, _ = _inspect(root, path)
    return problem, at


def _normalized(path: Path | str) -> str:
    text = os.fspath(path)
    return os.path.normpath(text) if "/." in text or "//" in text or text.endswith("/") else text


@lru_cache(maxsize=4096)  # a name, not a check: every artifact of a fleet shares a few roots
def _root_prefix(root: Path | str) -> tuple[str, str]:
    """(the root normalised, the prefix every path inside it starts with)."""
    root_s = _normalized(root)
    return root_s, root_s.rstrip(os.sep) + os.sep


# Names only, never anything read from disk (like layout's paths): a fleet plan checks the same few
# thousand paths each time, and working out their segments cost more than the lstat calls on them.
@lru_cache(maxsize=65536)
def _lexical(root: Path | str | None, path: Path | str) -> tuple[str, tuple[str, ...] | None, tuple[str, Path] | None]:
    """(the path as text, the directories below ``root`` down to its parent, outermost first, or
    None without a root, and the (problem, path) the names alone show, or None)."""
    path_s = _normalized(path)
    if root is None:
        return path_s, None, None
    root_s, inside = _root_prefix(root)
    if not root_s.startswith(os.sep) or not path_s.startswith(os.sep):
        return path_s, (), (f"not an absolute path: {path}", Path(path))
    if not path_s.startswith(inside):
        return path_s, (), (f"escapes its trusted root {root_s}", Path(path))
    parent = path_s.rpartition(os.sep)[0]
    chain, current = [], inside[:-1]
    for part in parent[len(inside):].split(os.sep) if len(parent) >= len(inside) else ():
        current = current + os.sep + part
        chain.append(current)
    return path_s, tuple(chain), None


class _Walk:
    """Directory checks made while planning one seat, so its artifacts do not lstat their shared
    parents again. Lives for one plan call only: the disk may change between plans."""

    __slots__ = ("modes", "verified")

    def __init__(self) -> None:
        self.modes: dict[str, int] = {}  # directory → lstat mode
        self.verified: set[str] = set()  # directories whose every segment below the root is a real directory


def _inspect(root: Path | None, path: Path, walk: _Walk | None = None) -> tuple[str | None, Path | None, bool]:
    """``path_problem`` plus whether the file exists. ``walk`` shares directory checks across calls."""
    problem, at, found = _inspect_stat(root, path, walk)
    return problem, at, found is not None


def _inspect_stat(root: Path | None, path: Path, walk: _Walk | None = None):
    """(problem, segment at fault, the file's lstat result or None when it is absent).
    On a problem the third item is a truthy marker when the faulty segment exists."""
    path_s, chain, problem = _lexical(root, path)
    if problem:
        return problem[0], problem[1], None  # nothing was looked at on disk
    if chain and (walk is None or chain[-1] not in walk.verified):
        problem, at, complete = _walk_parents(chain, walk)
        if problem:
            return problem, at, _EXISTS if complete else None
        if not complete:
            return None, None, None
    try:
        found = os.lstat(path_s)
    except FileNotFoundError:
        return None, None, None
    except OSError as err:
        if chain is None:
            raise
        return f"cannot inspect {path_s}: {err.strerror}", Path(path_s), None
    if chain is None or stat.S_ISREG(found.st_mode):
        return None, None, found
    problem, at, _ = _wrong_kind(path_s, found.st_mode, directory=False)
    return problem, at, _EXISTS


_EXISTS = True  # stands in for a stat result where only existence matters


def _walk_parents(chain: tuple[str, ...], walk: _Walk | None) -> tuple[str | None, Path | None, bool]:
    """Check every segment from below the root down to the parent: each must be a directory, none a
    symlink. Returns (problem, segment at fault, whether the whole chain exists)."""
    modes = walk.modes if walk is not None else None
    verified = walk.verified if walk is not None else ()
    for current in chain:
        if current in verified:  # a real directory, and so is everything above it (this call)
            continue
        mode = modes.get(current) if modes is not None else None
        if mode is None:
            try:
                mode = os.lstat(current).st_mode
            except FileNotFoundError:
                return None, None, False
            except OSError as err:
                return f"cannot inspect {current}: {err.strerror}", Path(current), False
            if modes is not None:
                modes[current] = mode
        if not stat.S_ISDIR(mode):  # the common case (a real directory) needs no further look
            problem = _wrong_kind(current, mode, directory=True)
            if problem:
                return problem
    if walk is not None:
        verified.update(chain)  # each of them has a verified chain of its own
    return None, None, True


def _wrong_kind(segment: str, mode: int, *, directory: bool) -> tuple[str, Path, bool] | None:
    if stat.S_ISLNK(mode):
        return f"symlinked path segment: {segment}", Path(segment), True
    if directory and not stat.S_ISDIR(mode):
        return f"a file where a directory is expected: {segment}", Path(segment), True
    if not directory and not stat.S_ISREG(mode):
        return f"not a regular file: {segment}", Path(segment), True
    return None


# ------------------------------------------------------------------------------------------ apply


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
    bytes it was planned from. Any other DIVERGENT file still refuses the whole run."""
    if plans is not None:
        fresh = _keep(fleet, _refuse_shared(fleet, [plan_resident(fleet, p.resident, interpreter=p.interpreter)
                                                    for p in plans]))
    else:
        fresh = plan_fleet(fleet, resident_id, interpreter=interpreter)
    for art in (a for p in fresh for a in p.divergent() if repair and a.repair is not None):
        art.adoption = art.repair  # written like an adoption: planned bytes re-checked, exchanged, verified
    blocking = [a for p in fresh for a in p.divergent() if not ((adopt or repair) and a.adoption is not None)]
    if blocking:
        raise divergent_error(fresh, only=blocking)
    pending = [art for plan in fresh for art in plan.artifacts if art.status == PENDING]
    adopting = [art for plan in fresh for art in plan.artifacts if art.status == DIVERGENT]
    for art in pending:
        art.emitted.content  # render (and schema-check) everything before the first write
    remove_dead_temps_of(fresh)
    written: list[Artifact] = []
    art = None
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
    after = _keep(fleet, _refuse_shared(fleet, [plan_resident(fleet, p.resident, interpreter=p.interpreter) for p in fresh]))
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
    for plan in after:  # report what this run wrote as CREATED / ADOPTED, as the reference composer does
        for art in plan.artifacts:
            if art.path in born and art.status == MATCH:
                if isinstance(born[art.path].adoption, Repair):
                    art.repair = born[art.path].adoption
                    keys = ", ".join(art.repair.added_keys)
                    art.status, art.reason = REPAIRED, f"repaired now: rewrote {keys}, kept the rest of the file"
                elif born[art.path].adoption is not None:
                    art.adoption = born[art.path].adoption  # what was written, for the report
                    keys = ", ".join(art.adoption.added_keys)
                    art.status, art.reason = ADOPTED, f"adopted now: added {keys}, kept the rest of the file"
                else:
                    art.status, art.reason = CREATED, f"created now (mode {art.emitted.mode:04o})"
    return after


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
        if _exists(directory):
            removed += [directory / name for name in remove_dead_temps(directory, names)]
    return removed


def _undo_written(written: list[Artifact]) -> list[Path]:
    """Undo this run's writes, newest first: a created file is removed, an adopted one gets its old
    bytes back. A file whose bytes are no longer what this run wrote has been written by someone
    since: it is kept (never lose text). Returns the kept paths."""
    kept = []
    for art in reversed(written):
        ours = art.adoption.after if art.adoption is not None else art.emitted.content
        try:
            if _read_regular(art.path) != ours:
                kept.append(art.path)
                continue
            if art.adoption is not None:
                atomic_write(art.path, art.adoption.before)
            else:
                os.unlink(art.path)
        except (OSError, CuratorError):
            kept.append(art.path)
    return kept


def _adopt(art: Artifact) -> None:
    """Write one adoption: the file must still hold the bytes it was planned from, right before the
    rename too, and must hold the adopted bytes after it."""
    item, plan = art.emitted, art.adoption
    problem, _ = path_problem(item.root, art.path)
    if problem:
        raise DivergentError(f"{art.path}: {problem}; nothing more was written", path=art.path)
    if _read_regular(art.path) != plan.before:
        raise DivergentError("changed on disk since it was planned; nothing more was written", path=art.path)
    mode = stat.S_IMODE(os.lstat(art.path).st_mode)
    with write_temp(art.path, plan.after, mode) as temp:
        _exchange_in(art, temp)
    if _read_regular(art.path) != plan.after:
        raise DivergentError("changed on disk right after it was adopted", path=art.path)


def _exchange_in(art: Artifact, temp: str) -> None:
    """Put the written ``temp`` in place of ``art.path`` unless the file changed since it was planned."""
    plan, held = art.adoption, None
    try:
        held = os.open(art.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)  # what is replaced
        if _read_regular(art.path) != plan.before:  # the last look before the rename
            raise DivergentError("changed on disk while it was being adopted; nothing more was written",
                                 path=art.path)
        hold(held)  # an exchange gives it the temp name: marked live until this run is done with it
        stop_point("adopt-before-swap")
        exchanged = swap(temp, art.path)
    except BaseException:
        if held is not None:
            os.close(held)
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    try:
        fsync_dir(art.path.parent)
        stop_point("adopt-swapped")
        # A save after the last look went into the file the rename replaced: the temp name now holds
        # it (an exchange), or the descriptor kept open does. It must still be what was planned from.
        replaced = _read_quietly(temp) if exchanged else _read_fd(held)
        if replaced != plan.before:
            _put_back(art.path, temp if exchanged else None, replaced, plan.after)
            raise DivergentError("changed on disk while it was being adopted; it is left as the other writer "
                                 "saved it; nothing more was written", path=art.path)
        if exchanged:
            try:
                os.unlink(temp)
            except OSError:
                pass
    finally:
        os.close(held)


def _put_back(path: Path, swapped_out: str | None, theirs: bytes | None, ours: bytes) -> None:
    """Someone saved ``path`` while it was being adopted: their file goes back in place."""
    if swapped_out is None:  # no exchange on this file system: write their bytes back
        if theirs is not None:
            atomic_write(path, theirs)
        return
    swap(swapped_out, path)  # the very file that was replaced, with every byte saved into it
    fsync_dir(path.parent)
    if _read_quietly(swapped_out) == ours:
        os.unlink(swapped_out)
        return
    # Saved again in that instant: keep what was in place then for the operator to compare, under a
    # name of its own (a temp file's name would have it removed as a killed write's leftover).
    kept = _keep_under_a_new_name(swapped_out, path.with_name(f"{path.name}.divergent-{utc_stamp()}"))
    raise DivergentError(f"changed on disk while it was being adopted, twice; the file the adoption replaced "
                         f"is back in place, and the one that was in place a moment later is kept as "
                         f"{kept}: compare the two", path=path)


def _keep_under_a_new_name(name: str, wanted: Path) -> Path:
    """Give the file ``name`` the name ``wanted`` (or ``wanted.N``, the first one free, never over
    anything); returns the name it now has."""
    candidate, number = wanted, 1
    while not link_new(name, candidate):
        candidate, number = wanted.with_name(f"{wanted.name}.{number}"), number + 1
    _unlink_if_there(name)
    fsync_dir(wanted.parent)
    return candidate


def _unlink_if_there(name: str | Path) -> None:
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass


def _read_quietly(path: Path | str) -> bytes | None:
    try:
        return _read_regular(path)
    except OSError:
        return None


def _read_fd(fd: int) -> bytes | None:
    try:
        return os.pread(fd, min(os.fstat(fd).st_size + 1, MAX_READ_BYTES + 1), 0)  # +1: growth shows
    except OSError:
        return None


def _create(art: Artifact) -> bool:
    """Create one pending file with exclusive create; False if someone else created it first."""
    item = art.emitted
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
    while not _exists(current) and current != current.parent:
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        private = root is not None and Path(root) in path.parents
        try:
            os.mkdir(path, 0o700 if private else 0o755)
        except FileExistsError:
            pass
        fsync_dir(path.parent)


# ------------------------------------------------------------------------------------- set aside


def utc_stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def set_aside(fleet: Fleet, resident: Resident, path: str | Path, *, now: datetime | None = None) -> Path:
    """Rename one DIVERGENT artifact to ``<name>.divergent-<UTC stamp>`` so the next provision
    re-creates it. Explicit only; nothing is deleted. Returns the new path."""
    target = Path(os.path.normpath(Path(path).expanduser().absolute()))
    plan = _refuse_shared(fleet, [plan_resident(fleet, resident)])[0]
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
    if _exists(aside):
        raise PreparationError(f"{aside} already exists; try again in a second", path=target)
    os.rename(target, aside)
    fsync_dir(target.parent)
    return aside
