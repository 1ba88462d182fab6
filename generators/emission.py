"""What an emitter hands the composer: one file's path, owner, convergence rule and exact bytes."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import Callable

from generators import layout, template
from generators.errors import UnsupportedError

BEARER = "bearer"
FLEET = "fleet"

# Convergence rules (spec §6): how an existing file is compared with what the fleet would write.
CREATE_ONLY = "create-only"          # bearer files: any content is MATCH
KIMI_CONFIG = "kimi-config"          # owned projection of config.toml
KIMI_MCP = "kimi-mcp"                # prefixed mcpServers of mcp.json
OPENCODE_CONFIG = "opencode-config"  # instructions + prefixed mcp of opencode.jsonc
WHOLE_FILE = "whole-file"            # scripts: byte for byte


@dataclass(frozen=True)
class EmittedFile:
    """One file the fleet would write. ``content`` is rendered on first use. ``owned`` (the expected
    owned projection, built from the same data as the bytes) is built on first use too: a plan of a
    settled fleet compares bytes first and needs it only for a file that differs from them."""

    path: Path
    owner: str
    convergence: str
    mode: int
    # The trusted directory this file must stay inside; no segment below it may be a symlink.
    root: Path
    render: Callable[[], bytes] = field(repr=False, compare=False)
    project: Callable[[], dict[str, object]] | None = field(default=None, repr=False, compare=False)
    # The keys of ``owned``, known without building it (what a plan reports for every file).
    owned_keys: tuple[str, ...] = field(default=(), compare=False)

    @cached_property
    def content(self) -> bytes:
        return self.render()

    @cached_property
    def owned(self) -> dict[str, object] | None:
        return None if self.project is None else self.project()


def fixed(data: bytes) -> Callable[[], bytes]:
    return lambda: data


def comment_safe(text: str) -> str:
    """An agent id inside a one-line comment: quoted and escaped, so it can never end the comment."""
    if text.isprintable():  # the usual id: nothing to escape (a plan renders one per seat)
        return text
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def bearer_emission(fleet, resident, harness: str) -> tuple[Path, list[EmittedFile]]:
    """Checks shared by both emitters, then the four create-only memory files. Returns (home, files).

    Their content renders only when a file is actually created: a plan never reads or needs it."""
    if resident.harness != harness:
        raise UnsupportedError(f"{resident.agent_id}: not a {harness} resident ({resident.harness})")
    if not fleet.enabled_servers(resident):
        raise UnsupportedError(f"{resident.agent_id}: no enabled MCP servers in the catalog for this resident",
                               path=fleet.path)
    root, agent_id = fleet.instance_root, resident.agent_id
    home = layout.instance_home(root, agent_id, harness)
    return home, list(_bearer_files(root, agent_id, harness))


# Pure and cached like layout's paths: a bearer file's description depends only on these three
# names, and re-planning a fleet would otherwise build the same four objects per seat each time.
@lru_cache(maxsize=16384)
def _bearer_files(root: Path, agent_id: str, harness: str) -> tuple[EmittedFile, ...]:
    return tuple(EmittedFile(layout.seat_path(root, agent_id, harness, "memory", name), BEARER, CREATE_ONLY, 0o600,
                             root, partial(template.bearer_file, name, agent_id, harness))
                 for name in template.BEARER_FILES)
