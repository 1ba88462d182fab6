"""Codex CLI emitter: the seat's ``CODEX_HOME`` (config.toml, hooks.json) and the identity-anchor hook.

The seat home is the seat's ``CODEX_HOME``. Codex has no native memory file, so the identity-anchor
hook, wired in ``hooks.json`` as a SessionStart group (matcher ``startup|resume|clear|compact``),
prints MEMORY.md and identity.md as ``hookSpecificOutput.additionalContext``: Codex hands that to the
model as a developer message at every start and resume and after every compaction (measured on
0.171.0). Codex runs such a hook only when ``config.toml`` trusts it by hash, and skips it
*silently* otherwise, so the fleet writes that trust itself (``codex_trust``) instead of relying on
``--dangerously-bypass-hook-trust``; a trust whose hash no longer matches the hook is DIVERGENT.

Owned in config.toml: the trust entry of the fleet's hook (and any other trust entry for a
``…/hooks.json:session_start:0:0`` hook: a stale key left by a copied home is reported, not
ignored), and the ``mcp_servers`` entries named with the fleet's ``mcp_prefix``. Owned in hooks.json:
the SessionStart groups (the trust key names group 0, handler 0, so another group before ours would
move it). Everything else in either file is the resident's: other hooks, their own trust entries,
providers, models, profiles. The fleet does not trust the repo as a Codex project: ``codex exec``
runs in a git checkout without it, and a trusted project would load the repo's own ``.codex/``
layers into the seat.
"""

from __future__ import annotations

import json
from pathlib import Path

import tomlkit

from curator import caches
from generators import layout, template
from generators.codex_trust import canonical, trust_key, trusted_hash
from generators.emission import (CODEX_CONFIG, CODEX_HOOKS, FLEET, EmittedFile, bearer_emission, comment_safe,
                                 identity_hook_file)
from generators.kimi import hook_command, resolve_interpreter
from generators.manifest import Fleet, McpServer, Resident, servers_key, servers_of
from generators.projection import ABSENT, _prefixed, json_object, key_part, parse_toml, register_projector
from generators.script_source import HOOK_SCRIPT

HARNESS = "codex"
CONFIG = "config.toml"
HOOKS_JSON = "hooks.json"
HOOK_RELPATH = Path("hooks") / HOOK_SCRIPT
HOOK_TIMEOUT = 30
SESSION_START = "SessionStart"
SESSION_START_MATCHER = "startup|resume|clear|compact"
TRUST_SUFFIX = f"/{HOOKS_JSON}:session_start:0:0"  # the fleet hook's trust key, after the home's path
HOOKS_KEY = "hooks.SessionStart"


def hook_group(command: str) -> dict:
    """The one SessionStart matcher group the fleet writes (group 0, handler 0)."""
    return {"matcher": SESSION_START_MATCHER, "hooks": [{"type": "command", "command": command,
                                                          "timeout": HOOK_TIMEOUT}]}


def hooks_data(command: str) -> dict:
    return {"hooks": {SESSION_START: [hook_group(command)]}}


def hook_trust(canonical_home: str, command: str) -> tuple[str, str]:
    """(trust key, trusted hash) of the fleet's hook in a home whose canonical path is given."""
    group = hook_group(command)
    return (trust_key(canonical_home + "/" + HOOKS_JSON, SESSION_START),
            trusted_hash(SESSION_START, group["matcher"], group["hooks"][0]))


def mcp_entry(server: McpServer) -> dict:
    if server.is_remote:
        return {"url": server.url, "http_headers": dict(server.headers)}
    entry = {"command": server.command, "args": list(server.args), "env": dict(server.env)}
    if server.cwd is not None:
        entry["cwd"] = server.cwd
    return entry


def config_data(canonical_home: str, command: str, servers: list[McpServer]) -> dict:
    """The fleet-owned content of config.toml as plain values."""
    key, digest = hook_trust(canonical_home, command)
    return {"hooks": {"state": {key: {"trusted_hash": digest}}},
            "mcp_servers": {server.name: mcp_entry(server) for server in servers}}


# ------------------------------------------------------------------------------------ projections


def trust_entry_key(key: str) -> str:
    return f"hooks.state.{key_part(key)}.trusted_hash"


def config_projection(doc: dict, prefix: str) -> dict[str, object]:
    """The fleet-owned part of a parsed config.toml (see the module docstring)."""
    hooks = doc.get("hooks", {})
    state = hooks.get("state", {}) if isinstance(hooks, dict) else hooks
    owned: dict[str, object] = {}
    if not isinstance(state, dict):
        owned["hooks.state"] = state  # not a table where the trust lives: reported as that key
    else:
        for key, entry in state.items():
            if not key.endswith(TRUST_SUFFIX):
                continue
            owned[trust_entry_key(key)] = entry.get("trusted_hash", ABSENT) if isinstance(entry, dict) else entry
            if isinstance(entry, dict) and entry.get("enabled", True) is not True:  # a switched-off trust
                owned[f"hooks.state.{key_part(key)}.enabled"] = entry["enabled"]
    owned.update(_prefixed(doc, "mcp_servers", prefix))
    return owned


def hooks_projection(doc: dict, prefix: str) -> dict[str, object]:
    del prefix  # hooks.json holds no MCP servers
    hooks = doc.get("hooks", {})
    return {HOOKS_KEY: hooks.get(SESSION_START, ABSENT) if isinstance(hooks, dict) else hooks}


register_projector(CODEX_CONFIG, lambda data, prefix: config_projection(parse_toml(data), prefix))
register_projector(CODEX_HOOKS, lambda data, prefix: hooks_projection(json_object(data, json.loads), prefix))


# ------------------------------------------------------------------------------------------ render


def config_toml(agent_id: str, data: dict) -> bytes:
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"GENERATED by seat-curator for {comment_safe(agent_id)} (codex): this seat's CODEX_HOME."))
    doc.add(tomlkit.comment("Owned by the fleet (changing them is DIVERGENT): the trust of the SessionStart hook in"))
    doc.add(tomlkit.comment("hooks.json (Codex skips an untrusted hook without a word) and every mcp_servers entry"))
    doc.add(tomlkit.comment("named with the fleet's prefix. Anything else you add (model, providers, profiles) is yours."))
    hooks = tomlkit.table(is_super_table=True)
    state = tomlkit.table(is_super_table=True)
    for key, entry in data["hooks"]["state"].items():
        table = tomlkit.table()
        table.add("trusted_hash", entry["trusted_hash"])
        state.add(key, table)
    hooks.add("state", state)
    doc.add("hooks", hooks)
    servers = tomlkit.table(is_super_table=True)
    for name, entry in data["mcp_servers"].items():
        table = tomlkit.table()
        for key, value in entry.items():
            table.add(key, tomlkit.inline_table() if value == {} else value)
        servers.add(name, table)
    doc.add("mcp_servers", servers)
    return tomlkit.dumps(doc).encode("utf-8")


def hooks_json(data: dict) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# -------------------------------------------------------------------------------------------- emit


def _command(root: Path, agent_id: str, interpreter: str) -> str:
    return hook_command(interpreter, layout.seat_path(root, agent_id, HARNESS, *HOOK_RELPATH.parts))


def _config_bytes(root: Path, agent_id: str, canonical_home: str, servers: tuple, prefix: str, interpreter: str) -> bytes:
    del prefix
    return config_toml(agent_id, config_data(canonical_home, _command(root, agent_id, interpreter), servers_of(servers)))


def _config_owned(root: Path, agent_id: str, canonical_home: str, servers: tuple, prefix: str,
                  interpreter: str) -> dict[str, object]:
    data = config_data(canonical_home, _command(root, agent_id, interpreter), servers_of(servers))
    return config_projection(data, prefix)


def _hooks_bytes(root: Path, agent_id: str, interpreter: str) -> bytes:
    return hooks_json(hooks_data(_command(root, agent_id, interpreter)))


def _hooks_owned(root: Path, agent_id: str, interpreter: str) -> dict[str, object]:
    return hooks_projection(hooks_data(_command(root, agent_id, interpreter)), "")


@caches.kept(maxsize=16384)
def _config_file(root: Path, agent_id: str, canonical_home: str, servers: tuple, prefix: str,
                 interpreter: str) -> EmittedFile:
    key, _ = hook_trust(canonical_home, "")
    keys = (trust_entry_key(key),) + tuple(f"mcp_servers.{server[0]}" for server in servers)
    return EmittedFile(layout.seat_path(root, agent_id, HARNESS, CONFIG), FLEET, CODEX_CONFIG, 0o600, root,
                       _config_bytes, _config_owned, keys, (root, agent_id, canonical_home, servers, prefix, interpreter))


@caches.kept(maxsize=16384)
def _hooks_file(root: Path, agent_id: str, interpreter: str) -> EmittedFile:
    return EmittedFile(layout.seat_path(root, agent_id, HARNESS, HOOKS_JSON), FLEET, CODEX_HOOKS, 0o600, root,
                       _hooks_bytes, _hooks_owned, (HOOKS_KEY,), (root, agent_id, interpreter))


def emit(fleet: Fleet, resident: Resident, *, interpreter: str | None = None) -> list[EmittedFile]:
    """Every file a codex seat is born with, in birth order. Pure but for one look at the disk: the
    trust key holds the home's canonical path, as Codex resolves it (symlinks above it resolved)."""
    home, servers, files = bearer_emission(fleet, resident, HARNESS)
    interpreter = interpreter or fleet.hook_python or resolve_interpreter()
    root, agent_id, key = fleet.instance_root, resident.agent_id, servers_key(servers)
    files.append(_config_file(root, agent_id, canonical(home), key, fleet.mcp_prefix, interpreter))
    files.append(_hooks_file(root, agent_id, interpreter))
    files.append(identity_hook_file(root, agent_id, HARNESS, template.BOOT_FILES))
    return files
