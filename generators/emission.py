"""What an emitter hands the composer: one file's path, owner, convergence rule and exact bytes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from collections.abc import Callable

from curator import caches
from generators import layout, template
from generators.script_source import HOOK_SCRIPT, identity_hook
from generators.errors import UnsupportedError
from generators.fleet_model import Fleet, McpServer, Resident


class Owner(StrEnum):
    """Who a seat file belongs to: the bearer writes it after its birth, the fleet keeps it converged."""

    BEARER = "bearer"
    FLEET = "fleet"


BEARER, FLEET = Owner.BEARER, Owner.FLEET

# Convergence rules (spec §6): how an existing file is compared with what the fleet would write.
CREATE_ONLY = "create-only"          # bearer files: any content is MATCH
KIMI_CONFIG = "kimi-config"          # owned projection of config.toml
KIMI_MCP = "kimi-mcp"                # prefixed mcpServers of mcp.json
OPENCODE_CONFIG = "opencode-config"  # instructions + prefixed mcp of opencode.jsonc
CLAUDE_SETTINGS = "claude-settings"  # memory dir, identity hook entry, fleet MCP rules of settings.json
CLAUDE_MCP = "claude-mcp"            # prefixed mcpServers of the repo's .mcp.json
CODEX_CONFIG = "codex-config"        # hook trust + prefixed mcp_servers of CODEX_HOME/config.toml
CODEX_HOOKS = "codex-hooks"          # the SessionStart groups of CODEX_HOME/hooks.json
GEMINI_SETTINGS = "gemini-settings"  # auth type, context wiring, prefixed mcpServers of settings.json
GEMINI_TRUST = "gemini-trust"        # the seat's trustedFolders.json
WHOLE_FILE = "whole-file"            # scripts: byte for byte
WHOLE_FILE_KEY = "(whole file)"      # what a script reports as its owned keys
WHOLE_FILE_KEYS = (WHOLE_FILE_KEY,)

# What a file is for in a seat, whatever its harness calls it: the fleet panel has one column per
# role, so a new harness's files land in the existing columns. A rule missing here still shows, in
# a column named after its file. One file may serve two roles (opencode.jsonc: config and MCP).
ROLE_CONFIG = "config"
ROLE_MCP = "mcp"
ROLE_BOOT = "boot"  # the hook or script that puts the layer in front of the model at a boundary
ROLE_BEARER = "bearer"
CONVERGENCE_ROLES: dict[str, tuple[str, ...]] = {
    CREATE_ONLY: (ROLE_BEARER,),
    KIMI_CONFIG: (ROLE_CONFIG,),
    KIMI_MCP: (ROLE_MCP,),
    OPENCODE_CONFIG: (ROLE_CONFIG, ROLE_MCP),
    CLAUDE_SETTINGS: (ROLE_CONFIG,),
    CLAUDE_MCP: (ROLE_MCP,),
    CODEX_CONFIG: (ROLE_CONFIG, ROLE_MCP),
    CODEX_HOOKS: (ROLE_BOOT,),
    GEMINI_SETTINGS: (ROLE_CONFIG, ROLE_MCP),
    GEMINI_TRUST: (ROLE_CONFIG,),
    WHOLE_FILE: (ROLE_BOOT,),
}


# Owned keys that configure MCP servers (the rest of a file's owned keys configure the seat): in a
# file that plays both roles (opencode.jsonc), a drift marks only the role of the keys that differ.
MCP_KEY_ROOTS = ("mcp", "mcpServers", "enabledMcpjsonServers")


def key_roles(convergence: str, key: str) -> tuple[str, ...]:
    """The roles an owned key of a file with this convergence rule serves."""
    roles = CONVERGENCE_ROLES.get(convergence, ())
    if len(roles) < 2:
        return roles
    mcp = key.split(".", 1)[0].split("[", 1)[0] in MCP_KEY_ROOTS or "[mcp__" in key
    return tuple(role for role in roles if (role == ROLE_MCP) == mcp) or roles


@dataclass(frozen=True)
class EmittedFile:
    """One file the fleet would write. ``content`` is rendered on first use. ``owned`` (the expected
    owned projection, built from the same data as the bytes) is built on first use too: a plan of a
    settled fleet compares bytes first and needs it only for a file that differs from them."""

    path: Path
    owner: Owner
    convergence: str
    mode: int
    # The trusted directory this file must stay inside; no segment below it may be a symlink.
    root: Path
    render: Callable[..., bytes] = field(repr=False, compare=False)
    project: Callable[..., dict[str, object]] | None = field(default=None, repr=False, compare=False)
    # The keys of ``owned``, known without building it (what a plan reports for every file).
    owned_keys: tuple[str, ...] = field(default=(), compare=False)
    # What render and project are called with: one tuple for both, not a closure each (a plan of a
    # fleet keeps thousands of these alive, and every object is work for the garbage collector).
    args: tuple = field(default=(), repr=False, compare=False)
    # Plain fields filled on first use, not cached_property: that would give each file a __dict__.
    _content: bytes | None = field(default=None, init=False, repr=False, compare=False)
    _owned: dict[str, object] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def content(self) -> bytes:
        data = self._content
        if data is None:
            data = self.render(*self.args)
            object.__setattr__(self, "_content", data)
        return data

    @property
    def roles(self) -> tuple[str, ...]:
        return CONVERGENCE_ROLES.get(self.convergence) or (self.path.name,)

    @property
    def owned(self) -> dict[str, object] | None:
        owned = self._owned
        if owned is None and self.project is not None:
            owned = self.project(*self.args)
            object.__setattr__(self, "_owned", owned)
        return owned


def comment_safe(text: str) -> str:
    """An agent id inside a one-line comment: quoted and escaped, so it can never end the comment."""
    if text.isprintable():  # the usual id: nothing to escape (a plan renders one per seat)
        return text
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def bearer_emission(fleet: Fleet, resident: Resident, harness: str) -> tuple[Path, list[McpServer], list[EmittedFile]]:
    """Checks shared by both emitters, then the four create-only memory files. Returns (home, the
    resident's enabled MCP servers, files).

    Their content renders only when a file is actually created: a plan never reads or needs it."""
    if resident.harness != harness:
        raise UnsupportedError(f"{resident.agent_id}: not a {harness} resident ({resident.harness})")
    servers = fleet.enabled_servers(resident)
    if not servers:
        raise UnsupportedError(f"{resident.agent_id}: no enabled MCP servers in the catalog for this resident",
                               path=fleet.path)
    root, agent_id = fleet.instance_root, resident.agent_id
    home = layout.instance_home(root, agent_id, harness)
    return home, servers, list(_bearer_files(root, agent_id, harness))


# Pure and cached like layout's paths: a bearer file's description depends only on these three
# names, and re-planning a fleet would otherwise build the same four objects per seat each time.
@caches.kept(maxsize=16384)
def _bearer_files(root: Path, agent_id: str, harness: str) -> tuple[EmittedFile, ...]:
    return tuple(EmittedFile(layout.seat_path(root, agent_id, harness, "memory", name), BEARER, CREATE_ONLY, 0o600,
                             root, template.bearer_file, args=(name, agent_id, harness))
                 for name in template.BEARER_FILES)


# The identity-anchor hook of one seat, whose wiring names ``harness`` and whose output holds
# ``boot_files``: the same description for every harness that runs the shared script.
@caches.kept(maxsize=16384)
def identity_hook_file(root: Path, agent_id: str, harness: str, boot_files: tuple[str, ...]) -> EmittedFile:
    memory, home = layout.memory_dir(root, agent_id, harness), layout.instance_home(root, agent_id, harness)
    return EmittedFile(layout.seat_path(root, agent_id, harness, "hooks", HOOK_SCRIPT), FLEET, WHOLE_FILE, 0o700,
                       root, identity_hook, owned_keys=WHOLE_FILE_KEYS, args=(harness, memory, home, boot_files))
