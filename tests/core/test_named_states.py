"""States are named types: a canary verdict is a Status, a seat file's owner an Owner; both are still
their plain strings wherever they are printed or saved."""

from __future__ import annotations

import json
from pathlib import Path

from curator.canary.result import CanaryResult, ResidentResult, Status, StepResult
from generators.composer import emit_resident
from generators.emission import Owner
from generators.manifest import parse_manifest
from tests.support.fleets import BASE_MANIFEST, KIMI, OPENCODE, RESIDENTS


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
