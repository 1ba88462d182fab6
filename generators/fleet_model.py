"""The fleet a manifest describes: its residents, their MCP servers and hooks (pure data)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from generators.errors import PreparationError

# The curated entry every seat gets after the catalog's: the seat's own MCP server (`seat-curator mcp`,
# the memory tool's commands and the levers on the seat's memory dir). Its name is mcp_prefix + this;
# a resident turns it off with `mcp = { <name> = false }`, a catalog entry of that name replaces it.
CURATOR_SERVER = "seat-curator"


@dataclass(frozen=True)
class McpServer:
    """One catalog entry: a local command (``command``/``args``/``env``/``cwd``) or a remote ``url``."""

    name: str
    enabled: bool = True
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def is_remote(self) -> bool:
        return self.url is not None


def servers_key(servers: list[McpServer]) -> tuple:
    """Every field of ``servers`` as one hashable value: equal keys, equal servers. The emitters cache
    the files rendered from a server list on it (most seats of a fleet share one list)."""
    return tuple((s.name, s.enabled, s.command, s.args, tuple(s.env.items()), s.cwd, s.url, tuple(s.headers.items()))
                 for s in servers)


def servers_of(key: tuple) -> list[McpServer]:
    """The servers a ``servers_key`` was made from (equal values, new objects)."""
    return [McpServer(name, enabled, command, args, dict(env), cwd, url, dict(headers))
            for name, enabled, command, args, env, cwd, url, headers in key]


@dataclass(frozen=True)
class FleetHook:
    """An extra kimi-code ``[[hooks]]`` entry, appended after the identity-anchor pair."""

    event: str
    command: str
    matcher: str | None = None
    timeout: int | None = None


@dataclass(frozen=True)
class Resident:
    agent_id: str
    harness: str
    repo: Path
    mcp_overrides: dict[str, bool] = field(default_factory=dict)
    allowed_paths: tuple[Path, ...] = ()
    model: str | None = None
    auto_dream: bool | None = None  # claude-code: the seat's autoDreamEnabled; None = the fleet's choice
    # Fleet files this resident keeps by hand (names as `plan` shows them): reported KEPT, never written.
    keep: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fleet:
    path: Path
    instance_root: Path
    mcp_prefix: str
    catalog: dict[str, McpServer]
    default_model: str
    default_permission_mode: str
    hooks: tuple[FleetHook, ...]
    residents: tuple[Resident, ...]
    harness_cli: dict[str, str] = field(default_factory=dict)
    # Interpreter that runs the identity-anchor hook; None = the running interpreter, resolved.
    hook_python: str | None = None
    # Interpreter that runs the seat's curator MCP server (`-m curator mcp`); None = the running one.
    curator_python: str | None = None
    # Claude Code's background consolidation ("auto dream") on claude-code seats; off unless chosen.
    auto_dream: bool = False

    def runs_auto_dream(self, resident: Resident) -> bool:
        return self.auto_dream if resident.auto_dream is None else resident.auto_dream

    def resident(self, agent_id: str) -> Resident:
        for resident in self.residents:
            if resident.agent_id == agent_id:
                return resident
        known = ", ".join(r.agent_id for r in self.residents) or "none"
        raise PreparationError(f"no resident {agent_id!r} in the manifest (known: {known})", path=self.path)

    def enabled_servers(self, resident: Resident) -> list[McpServer]:
        """The curated MCP matrix: catalog default, flipped only by a literal ``true``/``false`` override;
        then the seat's own curator server, unless the resident turned it off."""
        chosen = []
        for name, server in self.catalog.items():
            enabled = server.enabled
            if name in resident.mcp_overrides:
                enabled = resident.mcp_overrides[name]
            if enabled:
                chosen.append(server)
        curator = self.curator_server_name
        if curator not in self.catalog and resident.mcp_overrides.get(curator, True):
            chosen.append(self.curator_server(resident))
        return chosen

    @property
    def curator_server_name(self) -> str:
        return self.mcp_prefix + CURATOR_SERVER

    def curator_server(self, resident: Resident) -> McpServer:
        """`<python> -m curator mcp <the seat's memory dir>`. The python is ``curator_python``, else the
        one running seat-curator as started (a venv's python, not the interpreter it links to: only the
        venv has seat-curator and the mcp SDK installed; measured: kimi-code reported "No module named
        curator" for the resolved one)."""
        from generators import layout

        memory = layout.memory_dir(self.instance_root, resident.agent_id, resident.harness)
        return McpServer(self.curator_server_name, True, self.curator_python or sys.executable,
                         ("-m", "curator", "mcp", str(memory)))
