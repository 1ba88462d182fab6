"""kimi-code emitter: config.toml (tomlkit), the seat's own mcp.json, the identity-anchor hook, the cap guard.

The MCP servers go in ``$KIMI_CODE_HOME/mcp.json`` (the seat home): kimi-code 2.1.0 skips a
project-level ``.kimi-code/mcp.json`` in a folder it does not trust ("this folder is not trusted;
skipped 1 project-level MCP server"), so a server wired in the repo would never load there. The cap
guard is a PreToolUse hook on Write|Edit, wired while the seat's curator MCP server is enabled (its
refusal names that server's levers)."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypedDict

import tomlkit

from curator import caches
from curator.constants import READ_LIMIT_BYTES
from generators import layout, template
from generators.emission import (FLEET, KIMI_CONFIG, KIMI_MCP, WHOLE_FILE, WHOLE_FILE_KEYS, EmittedFile,
                                 bearer_emission, comment_safe)
from generators.errors import UnsupportedError
from generators.manifest import (CURATOR_SERVER, KIMI_EVENTS, Fleet, FleetHook, McpServer, Resident, servers_key,
                                 servers_of)
from generators.projection import (KIMI_CONFIG_KEYS, InvalidOwnedFile, kimi_config_projection, kimi_mcp_keys,
                                   kimi_mcp_projection, parse_toml)
from generators.script_source import CAP_GUARD_SCRIPT, HOOK_SCRIPT, cap_guard, identity_hook

HARNESS = "kimi-code"
HOOK_RELPATH = Path("hooks") / HOOK_SCRIPT
GUARD_RELPATH = Path("hooks") / CAP_GUARD_SCRIPT
GUARD_MATCHER = "Write|Edit"  # kimi-code 2.1.0's write tools: Write {path, content, mode}, Edit {path, old_string, ...}
HOOK_TIMEOUT = 5
HOOK_KEYS = ("event", "matcher", "command", "timeout")


class KimiHook(TypedDict, total=False):
    """One [[hooks]] table of config.toml, its keys in the order they are written (event and command
    always; matcher and timeout when set)."""

    event: str
    matcher: str
    command: str
    timeout: int


class KimiRule(TypedDict):
    decision: str
    pattern: str
    scope: str


class KimiPermission(TypedDict):
    rules: list[KimiRule]


class KimiConfig(TypedDict):
    """The fleet-owned content of config.toml as plain values (``config_data``)."""

    default_model: str
    default_permission_mode: str
    permission: KimiPermission
    hooks: list[KimiHook]


# What ``_config_dict`` is built from: model, mode, permission patterns, hook command, the fleet's
# own hooks and the cap guard's command (None: not wired).
ConfigValues = tuple[str, str, list[str], str, tuple[FleetHook, ...], str | None]


def resolve_interpreter(executable: str | None = None) -> str:
    """The real interpreter behind ``sys.executable`` (venv links and pyenv versions resolved).

    A shim or wrapper costs tens of milliseconds on every prompt; the real binary with ``-I -S`` is
    the cheapest start Python has, and the hook needs nothing but the standard library.
    """
    return os.path.realpath(executable or sys.executable)


def shell_quote(value: str) -> str:
    """Always single-quoted, so spaces and shell metacharacters in paths are inert."""
    return "'" + value.replace("'", "'\"'\"'") + "'"


def hook_command(interpreter: str, hook_path: str | Path) -> str:
    return f"{shell_quote(interpreter)} -I -S {shell_quote(str(hook_path))}"


def permission_pattern(server_name: str) -> str:
    return f"mcp__{server_name}__*"  # the name verbatim, hyphens and all


def config_data(fleet: Fleet, resident: Resident, hook_path: Path, interpreter: str) -> KimiConfig:
    """The fleet-owned content of config.toml as plain values (what the projection compares)."""
    servers = fleet.enabled_servers(resident)
    guard_path = hook_path.parent / CAP_GUARD_SCRIPT
    guard = hook_command(interpreter, guard_path) if guarded(servers, fleet.mcp_prefix) else None
    return _config_dict(resident.model or fleet.default_model, fleet.default_permission_mode,
                        [permission_pattern(s.name) for s in servers], hook_command(interpreter, hook_path),
                        fleet.hooks, guard)


def guarded(servers: Iterable[McpServer | tuple], prefix: str) -> bool:
    """The cap guard is wired while the seat's own curator server is (servers or their keys)."""
    name = prefix + CURATOR_SERVER
    return any((s.name if isinstance(s, McpServer) else s[0]) == name for s in servers)


def _config_dict(model: str, mode: str, patterns: Iterable[str], command: str, fleet_hooks: tuple[FleetHook, ...],
                 guard: str | None = None) -> KimiConfig:
    hooks = [_hook(event, command, None, HOOK_TIMEOUT) for event in ("UserPromptSubmit", "PostCompact")]
    if guard is not None:
        hooks.append(_hook("PreToolUse", guard, GUARD_MATCHER, HOOK_TIMEOUT))
    hooks += [_hook(h.event, h.command, h.matcher, h.timeout) for h in fleet_hooks]
    return {
        "default_model": model,
        "default_permission_mode": mode,
        "permission": {"rules": [{"decision": "allow", "pattern": p, "scope": "user"} for p in patterns]},
        "hooks": hooks,
    }


def _hook(event: str, command: str, matcher: str | None, timeout: int | None) -> KimiHook:
    hook: KimiHook = {"event": event}
    if matcher is not None:
        hook["matcher"] = matcher
    hook["command"] = command
    if timeout is not None:
        hook["timeout"] = timeout
    return hook


def config_toml(agent_id: str, data: KimiConfig) -> bytes:
    """Render ``config_data`` with tomlkit, then check it against kimi-code's schema before anyone
    can write it (an unknown key or event makes kimi-code reject the whole file)."""
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"GENERATED by seat-curator for {comment_safe(agent_id)} (kimi-code)."))
    doc.add(tomlkit.comment("Owned by the fleet (changing them is DIVERGENT): default_permission_mode,"))
    doc.add(tomlkit.comment("default_model, every [[permission.rules]] and every [[hooks]] table, in order."))
    doc.add(tomlkit.comment("Anything else you add (providers, comments, other tables) is yours."))
    doc.add("default_model", data["default_model"])
    doc.add("default_permission_mode", data["default_permission_mode"])
    permission = tomlkit.table(is_super_table=True)
    permission.add("rules", _aot(data["permission"]["rules"]))
    doc.add("permission", permission)
    doc.add("hooks", _aot(data["hooks"]))
    text = tomlkit.dumps(doc)
    validate_config(text)
    return text.encode("utf-8")


# A fleet's kimi seats differ in config.toml only by the agent id (in a comment) and the agent's
# path segment (inside the two identity-anchor hook commands), so tomlkit renders once per distinct
# rest, with marks in those two places, and each seat joins its own text between the marks. The
# segment is [A-Za-z0-9._-] by construction (seg), which tomlkit writes verbatim inside a basic
# string, and tomlkit never escapes comments: the bytes equal a direct render (tests hold the two
# side by side). Re-planning 1,000 seats stays cheap: the key is made of the values config_data is
# built from (a few strings and the fleet's frozen hooks), not of the dicts it builds.
_SEG_MARK = "SEATCURATORSEGMENTMARK"
_ID_MARK = "SEATCURATORAGENTIDMARK"
_MARKS = re.compile(f"{_SEG_MARK}|{_ID_MARK}")


@caches.kept(maxsize=1024)
def _config_template(key: tuple) -> tuple[str, ...] | None:
    """(before the id, id to segment, segment to segment…, after), or None when a mark also shows up
    in the fleet's own text (then the marks cannot be told apart and the seat renders directly)."""
    text = config_toml(_ID_MARK, _config_dict(*key)).decode("utf-8")
    parts = _MARKS.split(text)
    segments = 3 if key[5] is not None else 2  # the identity-anchor pair, and the cap guard when wired
    if [m.group() for m in _MARKS.finditer(text)] != [_ID_MARK] + [_SEG_MARK] * segments:
        return None
    return tuple(parts)


def seat_config_toml(root: Path, agent_id: str, model: str, mode: str, servers: tuple, fleet_hooks: tuple[FleetHook, ...],
                     interpreter: str, prefix: str) -> bytes:
    """``config_toml`` of one seat's config data (the arguments of ``_config_file``), through the
    per-fleet template when that is provably the same."""
    segment = layout.seg(agent_id)
    values = _config_values(root, agent_id, model, mode, servers, fleet_hooks, interpreter, prefix)
    command, guard = values[3], values[5]
    # The identity-anchor commands (and the cap guard's) spell a hook path once each; only there may
    # the segment be replaced, so it must occur exactly once in each (the path component after the root).
    template = None
    if all(c is None or c.count(segment) == 1 for c in (command, guard)) and not _MARKS.search(agent_id):
        marked = [c if c is None else c.replace(segment, _SEG_MARK) for c in (command, guard)]
        template = _config_template(values[:2] + (tuple(values[2]), marked[0], values[4], marked[1]))
    if template is None:  # a mark collides with real text: render directly
        return config_toml(agent_id, _config_dict(*values))
    out = [template[0], comment_safe(agent_id), template[1]]
    for part in template[2:]:
        out += [segment, part]
    return "".join(out).encode("utf-8")


def _config_values(root: Path, agent_id: str, model: str, mode: str, servers: tuple, fleet_hooks: tuple[FleetHook, ...],
                   interpreter: str, prefix: str) -> ConfigValues:
    """What ``_config_dict`` builds one seat's config data from (``config_data``, from the values)."""
    hook_path = layout.seat_path(root, agent_id, HARNESS, *HOOK_RELPATH.parts)
    guard_path = layout.seat_path(root, agent_id, HARNESS, *GUARD_RELPATH.parts)
    guard = hook_command(interpreter, guard_path) if guarded(servers, prefix) else None
    return (model, mode, [permission_pattern(server[0]) for server in servers], hook_command(interpreter, hook_path),
            fleet_hooks, guard)


def _config_projection(root: Path, agent_id: str, model: str, mode: str, servers: tuple, fleet_hooks: tuple[FleetHook, ...],
                       interpreter: str, prefix: str) -> dict[str, object]:
    values = _config_values(root, agent_id, model, mode, servers, fleet_hooks, interpreter, prefix)
    return kimi_config_projection(_config_dict(*values))


# Every input of a fleet file's bytes and projection is among the arguments of these, so the file's
# description (and, once compared, its rendering) is cached on them like the bearer files: re-planning
# a settled fleet finds each seat's files already rendered. Only values are cached, never the disk.
@caches.kept(maxsize=16384)
def _config_file(root: Path, agent_id: str, model: str, mode: str, servers: tuple, fleet_hooks: tuple[FleetHook, ...],
                 interpreter: str, prefix: str) -> EmittedFile:
    return EmittedFile(layout.seat_path(root, agent_id, HARNESS, "config.toml"), FLEET, KIMI_CONFIG, 0o600, root,
                       seat_config_toml, _config_projection, KIMI_CONFIG_KEYS,
                       (root, agent_id, model, mode, servers, fleet_hooks, interpreter, prefix))


@caches.kept(maxsize=16384)
def _mcp_json_file(root: Path, agent_id: str, servers: tuple, prefix: str) -> EmittedFile:
    return EmittedFile(layout.seat_path(root, agent_id, HARNESS, "mcp.json"), FLEET, KIMI_MCP, 0o600, root,
                       _mcp_file, _mcp_projection, kimi_mcp_keys([server[0] for server in servers], prefix),
                       (servers, prefix))


def _aot(rows: Sequence[Mapping[str, object]]) -> tomlkit.items.AoT:
    aot = tomlkit.aot()
    for row in rows:
        table = tomlkit.table()
        for key, value in row.items():
            table.add(key, value)
        aot.append(table)
    return aot


def config_problems(text: str) -> list[str]:
    """What kimi-code's strict schema would reject in a config.toml (it rejects the whole file)."""
    try:
        data = parse_toml(text.encode("utf-8"))
    except InvalidOwnedFile as err:
        return [err.reason]
    problems = []
    mode = data.get("default_permission_mode")
    if mode is not None and mode not in ("manual", "yolo", "auto"):
        problems.append(f"default_permission_mode {mode!r} is not manual, yolo or auto")
    hooks = data.get("hooks", [])
    if not isinstance(hooks, list):
        return problems + ["hooks must be an array of tables"]
    for index, hook in enumerate(hooks):
        where = f"hooks[{index}]"
        if not isinstance(hook, dict):
            problems.append(f"{where} is not a table")
            continue
        for key in hook:
            if key not in HOOK_KEYS:
                problems.append(f"{where}.{key}: unknown key (allowed: {', '.join(HOOK_KEYS)})")
        if hook.get("event") not in KIMI_EVENTS:
            problems.append(f"{where}.event: {hook.get('event')!r} is not a kimi-code event")
        if not isinstance(hook.get("command"), str) or not hook.get("command"):
            problems.append(f"{where}.command: must be a non-empty string")
        if "matcher" in hook and not isinstance(hook["matcher"], str):
            problems.append(f"{where}.matcher: must be a string")
        if "timeout" in hook:
            timeout = hook["timeout"]
            if isinstance(timeout, bool) or not isinstance(timeout, int) or not 1 <= timeout <= 600:
                problems.append(f"{where}.timeout: {timeout!r} is not an integer 1-600")
    rules = data.get("permission", {}).get("rules", []) if isinstance(data.get("permission"), dict) else []
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        if not isinstance(rule, dict) or rule.get("decision") not in ("allow", "ask", "deny"):
            problems.append(f"permission.rules[{index}].decision must be allow, ask or deny")
    return problems


def validate_config(text: str) -> None:
    problems = config_problems(text)
    if problems:
        raise UnsupportedError("generated config.toml would not load in kimi-code: " + "; ".join(problems))


def mcp_data(fleet: Fleet, resident: Resident) -> dict:
    return _mcp_data(fleet.enabled_servers(resident))


def _mcp_data(servers: list[McpServer]) -> dict:
    entries: dict[str, dict[str, object]] = {}
    for server in servers:
        entry: dict[str, object]
        if server.is_remote:
            entry = {"url": server.url, "headers": dict(server.headers), "enabled": True}
        else:
            entry = {"command": server.command, "args": list(server.args), "env": dict(server.env)}
            if server.cwd is not None:
                entry["cwd"] = server.cwd
            entry["enabled"] = True
        entries[server.name] = entry
    return {"mcpServers": entries}


def mcp_json(data: dict) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# Every kimi seat with the same enabled servers has the same mcp.json: rendered once per distinct
# server list (the indented JSON render is pure Python and slow), keyed on servers_key.
def _mcp_json_of(servers: tuple) -> bytes:
    return mcp_json(_mcp_data(servers_of(servers)))


def _mcp_file(servers: tuple, prefix: str) -> bytes:
    del prefix  # the same arguments as _mcp_projection (one tuple serves both)
    return _mcp_json_of(servers)


def _mcp_projection(servers: tuple, prefix: str) -> dict[str, object]:
    return kimi_mcp_projection(_mcp_data(servers_of(servers)), prefix)


def hook_script(memory_dir: Path, seat_home: Path) -> bytes:
    return identity_hook(HARNESS, memory_dir, seat_home, template.BOOT_FILES)


def emit(fleet: Fleet, resident: Resident, *, interpreter: str | None = None) -> list[EmittedFile]:
    """Every file a kimi-code seat is born with, in birth order. Pure: same inputs, same bytes."""
    interpreter = interpreter or fleet.hook_python or resolve_interpreter()
    _, servers, files = bearer_emission(fleet, resident, HARNESS)
    root, agent_id, key = fleet.instance_root, resident.agent_id, servers_key(servers)
    # Bytes and projections are built on first use, from the same values: a plan of a settled seat
    # renders the bytes (cheap, through the templates) and never needs the projections.
    files.append(_config_file(root, agent_id, resident.model or fleet.default_model, fleet.default_permission_mode,
                              key, fleet.hooks, interpreter, fleet.mcp_prefix))
    files.append(_mcp_json_file(root, agent_id, key, fleet.mcp_prefix))
    files.append(_hook_file(root, agent_id))
    if guarded(servers, fleet.mcp_prefix):
        files.append(guard_file(root, agent_id, HARNESS, fleet.mcp_prefix + CURATOR_SERVER))
    return files


# Pure and cached like the bearer files: the hook script depends only on the seat's names (its
# memory dir), so re-planning a fleet reuses one description, and one rendering, per seat.
@caches.kept(maxsize=16384)
def _hook_file(root: Path, agent_id: str) -> EmittedFile:
    return EmittedFile(layout.seat_path(root, agent_id, HARNESS, *HOOK_RELPATH.parts), FLEET, WHOLE_FILE, 0o700,
                       root, hook_script, owned_keys=WHOLE_FILE_KEYS,
                       args=(layout.memory_dir(root, agent_id, HARNESS), layout.instance_home(root, agent_id, HARNESS)))


@caches.kept(maxsize=16384)
def guard_file(root: Path, agent_id: str, harness: str, server_name: str) -> EmittedFile:
    """The seat's cap guard script (kimi-code and claude-code seats), owned byte for byte."""
    return EmittedFile(layout.seat_path(root, agent_id, harness, *GUARD_RELPATH.parts), FLEET, WHOLE_FILE, 0o700,
                       root, cap_guard, owned_keys=WHOLE_FILE_KEYS,
                       args=(harness, layout.memory_dir(root, agent_id, harness), server_name, READ_LIMIT_BYTES))
