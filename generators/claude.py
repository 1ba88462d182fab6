"""claude-code emitter: the seat's settings.json, the repo's .mcp.json, the identity-anchor hook.

The seat home is the seat's ``CLAUDE_CONFIG_DIR``. Claude Code loads MEMORY.md natively from
``autoMemoryDirectory``, so the fleet points that at the seat's memory dir and wires the
identity-anchor hook as a SessionStart entry for identity.md only (injecting MEMORY.md as well would
pay for it twice). The curated MCP servers go in the repo's ``.mcp.json``; settings.json allows their
tools and enables them by name (``enabledMcpjsonServers``), so the seat is never prompted for them.
One of them is the seat's own curator server; while it is enabled, a PreToolUse entry runs the cap
guard on Write|Edit|MultiEdit (a write that takes MEMORY.md past the read limit is blocked).

Owned in settings.json: ``autoMemoryDirectory``, ``autoDreamEnabled`` (the manifest's ``auto_dream``,
off by default), the SessionStart entry that runs the identity-anchor
hook, the PreToolUse entry that runs the cap guard, the ``permissions.allow`` rules and ``enabledMcpjsonServers`` names of the fleet's servers
(``mcp_prefix``). Everything else in the file (other hooks, rules, servers, model, env) is the
resident's. Settings are plain JSON, so the file carries no header comment — and a settings.json
with comments is DIVERGENT (measured on 2.1.328: with a ``//`` line in it, the harness ignored its
``autoMemoryDirectory``).
"""

from __future__ import annotations

import json
from pathlib import Path

from curator import caches
from curator.constants import IDENTITY_NAME
from generators import layout
from generators.emission import (CLAUDE_MCP, CLAUDE_SETTINGS, FLEET, WHOLE_FILE, WHOLE_FILE_KEYS, EmittedFile,
                                 bearer_emission)
from generators.kimi import GUARD_RELPATH, guard_file, guarded, hook_command, resolve_interpreter
from generators.kimi import mcp_json as render_json  # indented JSON, one final newline: both harnesses read it
from generators.manifest import CURATOR_SERVER, Fleet, McpServer, Resident, servers_key, servers_of
from generators.projection import ABSENT, json_object, kimi_mcp_keys, kimi_mcp_projection, register_projector
from generators.script_source import CAP_GUARD_SCRIPT, HOOK_SCRIPT, identity_hook

HARNESS = "claude-code"
SETTINGS = "settings.json"
MCP_JSON = ".mcp.json"
HOOK_RELPATH = Path("hooks") / HOOK_SCRIPT
HOOK_TIMEOUT = 5
SESSION_START_MATCHER = "startup|resume|clear|compact"
HOOK_FILES = (IDENTITY_NAME,)  # MEMORY.md loads natively
SCHEMA_URL = "https://json.schemastore.org/claude-code-settings.json"

IDENTITY_KEY = "hooks.SessionStart[identity-anchor]"
GUARD_KEY = "hooks.PreToolUse[cap-guard]"
GUARD_MATCHER = "Write|Edit|MultiEdit"  # Claude Code's write tools (2.1.328)


def allow_key(prefix: str) -> str:
    return f"permissions.allow[mcp__{prefix}*]"


def enabled_key(prefix: str) -> str:
    return f"enabledMcpjsonServers[{prefix}*]"


def permission_rule(server_name: str) -> str:
    return f"mcp__{server_name}"  # every tool of that server


def identity_entry(command: str) -> dict:
    return {"matcher": SESSION_START_MATCHER, "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]}


def guard_entry(command: str) -> dict:
    return {"matcher": GUARD_MATCHER, "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]}


def settings_data(memory_dir: Path | str, command: str, server_names: list[str], guard: str | None = None,
                  auto_dream: bool = False) -> dict:
    """settings.json as the fleet writes it at birth (the owned keys, and ``$schema``)."""
    hooks = {"SessionStart": [identity_entry(command)]}
    if guard is not None:
        hooks["PreToolUse"] = [guard_entry(guard)]
    return {
        "$schema": SCHEMA_URL,
        "autoMemoryDirectory": str(memory_dir),
        "autoDreamEnabled": auto_dream,
        "hooks": hooks,
        "permissions": {"allow": [permission_rule(name) for name in server_names]},
        "enabledMcpjsonServers": list(server_names),
    }


# ------------------------------------------------------------------------------------ projections


def _runs_script(entry: object, script: str = HOOK_SCRIPT) -> bool:
    """A hook entry that runs the fleet's ``script`` (found by its file name, so a seat whose entry
    points elsewhere or was edited shows as different, never as absent and ignored)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
        return False
    return any(isinstance(hook, dict) and script in str(hook.get("command", "")) for hook in entry["hooks"])


def settings_projection(doc: dict, prefix: str) -> dict[str, object]:
    """The fleet-owned part of a parsed settings.json (see the module docstring)."""
    hooks = doc.get("hooks", {})
    starts = hooks.get("SessionStart", []) if isinstance(hooks, dict) else hooks
    identity = [e for e in starts if _runs_script(e)] if isinstance(starts, list) else starts
    pre = hooks.get("PreToolUse", []) if isinstance(hooks, dict) else hooks
    guard = [e for e in pre if _runs_script(e, CAP_GUARD_SCRIPT)] if isinstance(pre, list) else pre
    permissions = doc.get("permissions", {})
    allow = permissions.get("allow", []) if isinstance(permissions, dict) else permissions
    fleet_rules = [r for r in allow if isinstance(r, str) and r.startswith(f"mcp__{prefix}")] \
        if isinstance(allow, list) else allow
    enabled = doc.get("enabledMcpjsonServers", [])
    fleet_servers = [n for n in enabled if isinstance(n, str) and n.startswith(prefix)] \
        if isinstance(enabled, list) else enabled
    return {
        "autoMemoryDirectory": doc.get("autoMemoryDirectory", ABSENT),
        "autoDreamEnabled": doc.get("autoDreamEnabled", ABSENT),
        IDENTITY_KEY: identity,
        GUARD_KEY: guard,
        allow_key(prefix): fleet_rules,
        enabled_key(prefix): fleet_servers,
    }


def settings_keys(prefix: str) -> tuple[str, ...]:
    return ("autoMemoryDirectory", "autoDreamEnabled", IDENTITY_KEY, GUARD_KEY, allow_key(prefix), enabled_key(prefix))


def mcp_projection(doc: dict, prefix: str) -> dict[str, object]:
    return kimi_mcp_projection(doc, prefix)  # the same shape: prefixed entries of mcpServers


# How plan reads these files from disk: Claude Code reads both as plain JSON (no comments).
register_projector(CLAUDE_SETTINGS, lambda data, prefix: settings_projection(json_object(data, json.loads), prefix))
register_projector(CLAUDE_MCP, lambda data, prefix: mcp_projection(json_object(data, json.loads), prefix))


# ---------------------------------------------------------------------------------------- .mcp.json


def mcp_data(servers: list[McpServer]) -> dict:
    entries: dict[str, dict[str, object]] = {}
    for server in servers:
        if server.is_remote:
            entries[server.name] = {"type": "http", "url": server.url, "headers": dict(server.headers)}
        else:
            entries[server.name] = {"type": "stdio", "command": server.command, "args": list(server.args),
                                    "env": dict(server.env)}
    return {"mcpServers": entries}


def _mcp_json_of(servers: tuple) -> bytes:
    return render_json(mcp_data(servers_of(servers)))


def _mcp_file_bytes(servers: tuple, prefix: str) -> bytes:
    del prefix  # the same arguments as _mcp_file_projection (one tuple serves both)
    return _mcp_json_of(servers)


def _mcp_file_projection(servers: tuple, prefix: str) -> dict[str, object]:
    return mcp_projection(mcp_data(servers_of(servers)), prefix)


# ------------------------------------------------------------------------------------------- emit


def _settings_values(root: Path, agent_id: str, servers: tuple, prefix: str, interpreter: str,
                     auto_dream: bool) -> tuple:
    memory = layout.memory_dir(root, agent_id, HARNESS)
    hook = layout.seat_path(root, agent_id, HARNESS, *HOOK_RELPATH.parts)
    guard = layout.seat_path(root, agent_id, HARNESS, *GUARD_RELPATH.parts)
    return (memory, hook_command(interpreter, hook), [server[0] for server in servers],
            hook_command(interpreter, guard) if guarded(servers, prefix) else None, auto_dream)


def _settings_bytes(root: Path, agent_id: str, servers: tuple, prefix: str, interpreter: str, auto_dream: bool) -> bytes:
    return render_json(settings_data(*_settings_values(root, agent_id, servers, prefix, interpreter, auto_dream)))


def _settings_projection(root: Path, agent_id: str, servers: tuple, prefix: str, interpreter: str,
                         auto_dream: bool) -> dict[str, object]:
    values = _settings_values(root, agent_id, servers, prefix, interpreter, auto_dream)
    return settings_projection(settings_data(*values), prefix)


# Every input of a file's bytes and projection is among the arguments, so the description is cached
# on them like the other emitters' files (re-planning a settled fleet finds them already rendered).
@caches.kept(maxsize=16384)
def _settings_file(root: Path, agent_id: str, servers: tuple, prefix: str, interpreter: str,
                   auto_dream: bool) -> EmittedFile:
    return EmittedFile(layout.seat_path(root, agent_id, HARNESS, SETTINGS), FLEET, CLAUDE_SETTINGS, 0o600, root,
                       _settings_bytes, _settings_projection, settings_keys(prefix),
                       (root, agent_id, servers, prefix, interpreter, auto_dream))


@caches.kept(maxsize=16384)
def _mcp_file(repo: Path, servers: tuple, prefix: str) -> EmittedFile:
    return EmittedFile(layout.repo_path(repo, MCP_JSON), FLEET, CLAUDE_MCP, 0o600, repo, _mcp_file_bytes,
                       _mcp_file_projection, kimi_mcp_keys([server[0] for server in servers], prefix),
                       (servers, prefix))


def hook_script(memory_dir: Path, seat_home: Path) -> bytes:
    return identity_hook(HARNESS, memory_dir, seat_home, HOOK_FILES)


@caches.kept(maxsize=16384)
def _hook_file(root: Path, agent_id: str) -> EmittedFile:
    return EmittedFile(layout.seat_path(root, agent_id, HARNESS, *HOOK_RELPATH.parts), FLEET, WHOLE_FILE, 0o700,
                       root, hook_script, owned_keys=WHOLE_FILE_KEYS,
                       args=(layout.memory_dir(root, agent_id, HARNESS), layout.instance_home(root, agent_id, HARNESS)))


def emit(fleet: Fleet, resident: Resident, *, interpreter: str | None = None) -> list[EmittedFile]:
    """Every file a claude-code seat is born with, in birth order. Pure: same inputs, same bytes."""
    interpreter = interpreter or fleet.hook_python or resolve_interpreter()
    _, servers, files = bearer_emission(fleet, resident, HARNESS)
    root, agent_id, key = fleet.instance_root, resident.agent_id, servers_key(servers)
    files.append(_settings_file(root, agent_id, key, fleet.mcp_prefix, interpreter, fleet.runs_auto_dream(resident)))
    files.append(_mcp_file(resident.repo, key, fleet.mcp_prefix))
    files.append(_hook_file(root, agent_id))
    if guarded(servers, fleet.mcp_prefix):
        files.append(guard_file(root, agent_id, HARNESS, fleet.mcp_prefix + CURATOR_SERVER))
    return files

