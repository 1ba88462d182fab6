"""The last canary result per resident, kept under the user's state dir so the app can show
never run / PASS / FAIL with its age. One JSON file per fleet manifest, replaced atomically."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from curator.canary.result import ResidentResult
from curator.errors import CuratorError
from curator.fsio import atomic_write, read_bytes


def state_dir() -> Path:
    """$SEAT_CURATOR_STATE_DIR, else $XDG_STATE_HOME/seat-curator, else ~/.local/state/seat-curator."""
    explicit = os.environ.get("SEAT_CURATOR_STATE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "seat-curator"


def results_path(fleet_path: str | Path, root: Path | None = None) -> Path:
    key = hashlib.sha256(str(Path(fleet_path).absolute()).encode("utf-8")).hexdigest()[:16]
    return (root or state_dir()) / "canary" / f"{key}.json"


def _read(path: Path) -> dict:
    try:
        data = json.loads(read_bytes(path).decode("utf-8"))
    except (CuratorError, UnicodeDecodeError, ValueError):
        return {}  # absent or damaged: the app shows "never run", the next save replaces it
    return data if isinstance(data, dict) else {}


def save_results(fleet_path: str | Path, results: list[ResidentResult], root: Path | None = None) -> Path:
    path = results_path(fleet_path, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _read(path)
    residents: dict[str, Any] = data["residents"] if isinstance(data.get("residents"), dict) else {}
    for result in results:
        residents[result.resident] = result.to_json()
    data = {"fleet": str(Path(fleet_path).absolute()), "residents": residents}
    atomic_write(path, json.dumps(data, indent=1, sort_keys=True).encode("utf-8"), mode=0o600)
    return path


def load_result(fleet_path: str | Path, resident: str, root: Path | None = None) -> ResidentResult | None:
    """The last saved result for ``resident`` in this fleet, or None when it never ran."""
    entry = (_read(results_path(fleet_path, root)).get("residents") or {}).get(resident)
    if not isinstance(entry, dict):
        return None
    try:
        return ResidentResult.from_json(entry)
    except (KeyError, TypeError, ValueError):
        return None


def describe_age(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"


def describe(result: ResidentResult | None, now: float | None = None) -> str:
    """"never run", or the status with its age: "PASS 3m ago"."""
    if result is None:
        return "never run"
    return f"{result.status} {describe_age((now or time.time()) - result.finished_at)}"
