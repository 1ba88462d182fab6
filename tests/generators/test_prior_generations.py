"""The record of earlier script generations: it covers every version this repository has committed
(and the one in the tree), and its digests ignore the per-seat literal values only."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from generators import prior_generations
from generators.script_source import HOOK_SCRIPT, SCRIPTS_DIR, identity_hook, script_source

REGENERATE = "python -m generators.prior_generations"


def _repo():
    """The git checkout the scripts live in, or None (an installed copy has no history to check)."""
    if shutil.which("git") is None:
        return None
    top = subprocess.run(["git", "-C", str(SCRIPTS_DIR), "rev-parse", "--show-toplevel", "--is-shallow-repository"],
                         capture_output=True, text=True)
    if top.returncode != 0 or top.stdout.split()[-1:] != ["false"]:
        return None  # no checkout, or a shallow one: its history is not the record's to check
    return top.stdout.split("\n", 1)[0].strip()


def test_the_current_version_of_each_script_is_in_the_record():
    # Decided: the record holds the current version too, so a later change of a script leaves its
    # predecessor recorded; a change made without regenerating the record fails here.
    record = prior_generations.prior_digests()
    for name in prior_generations.SCRIPTS:
        assert prior_generations.digest(script_source(name)) in record[name], f"{name}: run `{REGENERATE}`"


def test_the_record_covers_every_committed_version():
    repo = _repo()
    if repo is None:
        pytest.skip("not a full git checkout")
    record = prior_generations.prior_digests()
    for name, digests in prior_generations.collect(Path(repo)).items():
        missing = set(digests) - record[name]
        assert not missing, f"{name}: {len(missing)} committed version(s) not recorded; run `{REGENERATE}`"
    assert len(record[HOOK_SCRIPT]) >= 12  # the hook's versions up to this record's making, every one kept


def test_committed_versions_reads_the_history_of_the_hook():
    repo = _repo()
    if repo is None:
        pytest.skip("not a full git checkout")
    versions = prior_generations.committed_versions(Path(repo), "generators/scripts/" + HOOK_SCRIPT)
    first = subprocess.run(["git", "-C", repo, "show", f"ecc5401:generators/scripts/{HOOK_SCRIPT}"],
                           capture_output=True).stdout
    assert first and first in versions and len(set(versions)) == len(versions)


def test_the_digest_ignores_literal_values_and_nothing_else():
    one = identity_hook("kimi-code", "/a/memory", "/a", ("MEMORY.md",))
    other = identity_hook("kimi-code", "/b/other memory", "/b", ("MEMORY.md", "identity.md"))
    assert one != other and prior_generations.digest(one) == prior_generations.digest(other)
    assert prior_generations.digest(one) == prior_generations.digest(script_source(HOOK_SCRIPT))
    edited = one.replace(b"def ", b"def  ", 1)
    assert prior_generations.digest(edited) != prior_generations.digest(one)


def test_an_earlier_generation_needs_this_seats_values():
    current = identity_hook("kimi-code", "/a/memory", "/a", ("MEMORY.md",))
    # The current code with another seat's values has the current digest, but values not this seat's.
    other_seat = identity_hook("kimi-code", "/b/memory", "/b", ("MEMORY.md",))
    assert not prior_generations.is_earlier_generation(HOOK_SCRIPT, other_seat, current)
    assert not prior_generations.is_earlier_generation(HOOK_SCRIPT, current, current)  # MATCH, not earlier
    assert not prior_generations.is_earlier_generation("not_a_script.py", other_seat, current)
