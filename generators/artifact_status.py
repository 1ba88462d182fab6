"""The plan's verdict on one seat file (spec §6): what ``plan`` and ``provision`` print for it.

A module of its own so that the composer and ``generators.keep`` (which the composer calls) share
it without importing each other."""

from __future__ import annotations

from enum import StrEnum


class ArtifactStatus(StrEnum):
    """One planned file's status; printed and saved (``--json``) as its value. Worst first."""

    DIVERGENT = "DIVERGENT"  # a fleet-owned file drifted, or its path is unsafe: provision refuses
    PENDING = "PENDING"  # absent; provision will create it
    # a script an earlier seat-curator wrote (generators.prior_generations): provision writes this version
    OUTDATED = "OUTDATED"
    CREATED = "CREATED"  # written by the provision run that reports it
    UPDATED = "UPDATED"  # an OUTDATED script the provision run that reports it wrote this version of
    ADOPTED = "ADOPTED"  # an existing file this provision --adopt run added the owned keys to
    REPAIRED = "REPAIRED"  # an existing file this provision --repair run rewrote the owned values of
    KEPT = "KEPT"  # a file the manifest says the resident keeps by hand: never written, blocks nothing
    MATCH = "MATCH"


STATUSES = tuple(ArtifactStatus)  # every artifact status, worst first
