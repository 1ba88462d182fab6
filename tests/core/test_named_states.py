"""States are named types: a canary verdict is a Status, a seat file's owner an Owner, a planned
file's status an ArtifactStatus, what the disk watch saw a DiskState; each is still its plain string
wherever it is printed or saved."""

from __future__ import annotations

import json
from pathlib import Path

from curator.canary.result import CanaryResult, ResidentResult, Status, StepResult
from curator.widgets.messages import DiskState, FileChangedOnDisk
from generators import composer, keep
from generators.artifact_status import STATUSES, ArtifactStatus
from generators.composer import apply_fleet, emit_resident, plan_exit_code, plan_fleet
from generators.emission import Owner
from generators.manifest import parse_manifest
from tests.support.fleets import BASE_MANIFEST, KIMI, OPENCODE, RESIDENTS, make_fleet


def test_a_verdict_is_a_status_and_saves_as_its_name() -> None:
    resident = ResidentResult("@a", "kimi-code", [StepResult("boot", Status.PASS, "ok"),
                                                  StepResult("compact", Status.INFO, "note")])
    result = CanaryResult("/f/fleet.toml", [resident])
    assert isinstance(resident.status, Status) and isinstance(result.status, Status)
    saved = json.loads(json.dumps(result.to_json()))
    assert saved["status"] == "PASS" and saved["residents"][0]["steps"][1]["status"] == "INFO"
    loaded = ResidentResult.from_json(saved["residents"][0])
    assert loaded.status is Status.PASS and result.exit_code == 0


def test_a_failed_or_errored_resident_is_named_so() -> None:
    failed = ResidentResult("@a", "opencode", [StepResult("boot", Status.FAIL, "missing")])
    errored = ResidentResult("@b", "opencode", error="CLI missing")
    assert failed.status is Status.FAIL and errored.status is Status.ERROR
    assert CanaryResult("/f", [failed, errored]).status is Status.ERROR


def test_every_emitted_file_has_an_owner_of_the_two() -> None:
    fleet = parse_manifest(BASE_MANIFEST + RESIDENTS, Path("/srv/fleet/fleet.toml"))
    owners = {f.path.name: f.owner for agent in (KIMI, OPENCODE)
              for f in emit_resident(fleet, fleet.resident(agent), interpreter="/usr/bin/python3")}
    assert all(isinstance(owner, Owner) for owner in owners.values())
    assert owners["MEMORY.md"] is Owner.BEARER and owners["opencode.jsonc"] is Owner.FLEET
    assert json.dumps(owners["MEMORY.md"]) == '"bearer"'


def test_every_planned_file_has_a_status_printed_as_its_name(tmp_path: Path) -> None:
    fleet = make_fleet(tmp_path)
    plans = plan_fleet(fleet, interpreter="/usr/bin/python3")
    arts = [a for p in plans for a in p.artifacts]
    assert arts and all(a.status is ArtifactStatus.PENDING and isinstance(a.owner, Owner) for a in arts)
    assert all(p.status is ArtifactStatus.PENDING for p in plans) and plan_exit_code(plans) == 2
    saved = json.loads(json.dumps([a.to_json() for a in arts]))
    assert {a["status"] for a in saved} == {"PENDING"} and {a["owner"] for a in saved} == {"bearer", "fleet"}
    after = apply_fleet(fleet, interpreter="/usr/bin/python3")
    assert {a.status for p in after for a in p.artifacts} == {ArtifactStatus.CREATED}
    assert f"{after[0].artifacts[0].status:<9}|" == "CREATED  |"  # the CLI's column, as before


def test_the_statuses_are_the_composers_names_worst_first() -> None:
    assert STATUSES == ("DIVERGENT", "PENDING", "OUTDATED", "CREATED", "UPDATED", "ADOPTED", "REPAIRED", "KEPT",
                        "MATCH")
    assert composer.OUTDATED is ArtifactStatus.OUTDATED and composer.UPDATED is ArtifactStatus.UPDATED
    assert composer.DIVERGENT is ArtifactStatus.DIVERGENT and composer.MATCH is ArtifactStatus.MATCH
    assert keep.KEPT is composer.KEPT is ArtifactStatus.KEPT


def test_what_the_disk_watch_saw_is_a_disk_state() -> None:
    assert [str(s) for s in DiskState] == ["changed", "gone", "unreadable"]
    assert FileChangedOnDisk(DiskState.GONE).state == "gone"
