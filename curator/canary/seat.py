"""The seat a canary run looks at: where its harness home, memory and repo are, and a fingerprint of
every file in them so a run can prove it changed nothing."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.constants import BOOT_FILES

HARNESSES = ("kimi-code", "opencode", "claude-code")


@dataclass(frozen=True)
class Seat:
    resident: str  # the agent id
    harness: str
    instance_home: Path
    memory_dir: Path
    repo: Path


def seats_from_fleet(fleet: Any, resident: str | None = None) -> list[Seat]:
    """Every seat of a loaded fleet manifest (``generators.manifest.Fleet``), or just ``resident``'s."""
    from generators.layout import instance_home  # the one place seat paths are defined

    residents = [fleet.resident(resident)] if resident is not None else list(fleet.residents)
    seats = []
    for entry in residents:
        home = instance_home(fleet.instance_root, entry.agent_id, entry.harness)
        seats.append(Seat(entry.agent_id, entry.harness, home, home / "memory", Path(entry.repo)))
    return seats


def fingerprint(*roots: Path) -> dict[str, str]:
    """sha256 of every file (and target of every symlink) under ``roots``, keyed by path.

    Taken before and after a run: any difference means the run touched the seat.
    """
    prints: dict[str, str] = {}
    for root in roots:
        if not root.exists():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                path = os.path.join(dirpath, name)
                if os.path.islink(path):
                    prints[path] = "symlink:" + os.readlink(path)
                    continue
                digest = hashlib.sha256()
                try:
                    with open(path, "rb") as handle:
                        for block in iter(lambda: handle.read(1 << 20), b""):
                            digest.update(block)
                    prints[path] = digest.hexdigest()
                except OSError as err:
                    prints[path] = f"unreadable:{err.errno}"
    return prints


def read_boot_files(seat: Seat) -> dict[str, str | None]:
    """The boot files as they are on disk now (None when absent); decoded leniently for comparison."""
    files: dict[str, str | None] = {}
    for name in BOOT_FILES:
        try:
            files[name] = (seat.memory_dir / name).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            files[name] = None
    return files
