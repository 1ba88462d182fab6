"""Gemini CLI emitter: the seat's own user settings (``$GEMINI_CLI_HOME/.gemini/settings.json``) and
the trust of its repo (``trustedFolders.json`` beside it). No hook, no script.

The seat home is the seat's ``GEMINI_CLI_HOME``. Gemini loads context files *by name*, from the
workspace (the repo, up to its git root) and from ``context.includeDirectories`` when
``context.loadMemoryFromIncludeDirectories`` is true, into the first user message of every session,
and rebuilds that message after a compression. So the settings name exactly MEMORY.md and
identity.md in ``context.fileName`` and the seat's memory dir in ``includeDirectories``: both files
load whole, and seat-pointers.md, about-this-layer.md and detail files beside them do not (measured
on 0.61.0). Why not a ``GEMINI.md`` holding ``@/…/MEMORY.md`` imports: Gemini resolves an import only
inside the importing file's project root, so an import of the seat's memory dir arrives as an
``<!-- Import failed: … Path traversal attempt -->`` comment, silently, in the prompt.

Workspace context loads only in a trusted folder (folder trust is on by default, and a headless run
in an untrusted folder exits 55), so the seat's ``trustedFolders.json`` trusts its repo. Headless runs
need ``security.auth.selectedType`` in the user settings (there is no flag, and a system settings
file is read only when root owns it and every parent), so the fleet writes it there.

Owned in settings.json: ``security.auth.selectedType``, the three ``context`` keys above and the
``mcpServers`` entries named with the fleet's ``mcp_prefix``; everything else is the resident's.
Owned in trustedFolders.json: every entry (the file is the seat's own, and each entry widens what
loads into the seat's context: a folder trusted by hand shows as DIVERGENT until the fleet adopts it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from curator import caches
from generators import layout, template
from generators.emission import FLEET, GEMINI_SETTINGS, GEMINI_TRUST, EmittedFile, bearer_emission
from generators.manifest import Fleet, McpServer, Resident, servers_key, servers_of
from generators.projection import ABSENT, json_object, key_part, kimi_mcp_projection, register_projector

HARNESS = "gemini-cli"
CONFIG_DIR = ".gemini"
SETTINGS = "settings.json"
TRUSTED_FOLDERS = "trustedFolders.json"
AUTH_TYPE = "gemini-api-key"
TRUST_FOLDER = "TRUST_FOLDER"
CONTEXT_KEYS = ("context.fileName", "context.includeDirectories", "context.loadMemoryFromIncludeDirectories")
OWNED_SETTINGS = ("security.auth.selectedType",) + CONTEXT_KEYS


def mcp_entry(server: McpServer) -> dict:
    if server.is_remote:
        return {"httpUrl": server.url, "headers": dict(server.headers)}
    entry = {"command": server.command, "args": list(server.args), "env": dict(server.env)}
    if server.cwd is not None:
        entry["cwd"] = server.cwd
    return entry


def settings_data(memory_dir: Path | str, servers: list[McpServer]) -> dict:
    """settings.json as the fleet writes it at birth: the owned keys, and three quiet defaults
    (no usage statistics, no auto-update) that are the resident's to change."""
    return {
        "security": {"auth": {"selectedType": AUTH_TYPE}},
        "context": {"fileName": list(template.BOOT_FILES), "includeDirectories": [str(memory_dir)],
                    "loadMemoryFromIncludeDirectories": True},
        "mcpServers": {server.name: mcp_entry(server) for server in servers},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }


def trust_data(repo: str) -> dict:
    return {repo: TRUST_FOLDER}


# ------------------------------------------------------------------------------------ projections


def _at(doc: object, dotted: str) -> object:
    for part in dotted.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return ABSENT
        doc = doc[part]
    return doc


def settings_projection(doc: dict, prefix: str) -> dict[str, object]:
    owned = {key: _at(doc, key) for key in OWNED_SETTINGS}
    owned.update(kimi_mcp_projection(doc, prefix))  # the same shape: prefixed entries of mcpServers
    return owned


def trust_projection(doc: dict, prefix: str) -> dict[str, object]:
    del prefix
    return {key_part(path): level for path, level in doc.items()}


register_projector(GEMINI_SETTINGS, lambda data, prefix: settings_projection(json_object(data, json.loads), prefix))
register_projector(GEMINI_TRUST, lambda data, prefix: trust_projection(json_object(data, json.loads), prefix))


def render_json(data: dict) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# -------------------------------------------------------------------------------------------- emit


def _settings_bytes(memory_dir: Path, servers: tuple, prefix: str) -> bytes:
    del prefix
    return render_json(settings_data(memory_dir, servers_of(servers)))


def _settings_owned(memory_dir: Path, servers: tuple, prefix: str) -> dict[str, object]:
    return settings_projection(settings_data(memory_dir, servers_of(servers)), prefix)


def _trust_bytes(repo: str) -> bytes:
    return render_json(trust_data(repo))


def _trust_owned(repo: str) -> dict[str, object]:
    return trust_projection(trust_data(repo), "")


@caches.kept(maxsize=16384)
def _settings_file(root: Path, agent_id: str, servers: tuple, prefix: str) -> EmittedFile:
    keys = OWNED_SETTINGS + tuple(f"mcpServers.{server[0]}" for server in servers)
    return EmittedFile(layout.seat_path(root, agent_id, HARNESS, CONFIG_DIR, SETTINGS), FLEET, GEMINI_SETTINGS, 0o600,
                       root, _settings_bytes, _settings_owned, keys,
                       (layout.memory_dir(root, agent_id, HARNESS), servers, prefix))


@caches.kept(maxsize=16384)
def _trust_file(root: Path, agent_id: str, repo: str) -> EmittedFile:
    return EmittedFile(layout.seat_path(root, agent_id, HARNESS, CONFIG_DIR, TRUSTED_FOLDERS), FLEET, GEMINI_TRUST,
                       0o600, root, _trust_bytes, _trust_owned, (key_part(repo),), (repo,))


def emit(fleet: Fleet, resident: Resident, *, interpreter: str | None = None) -> list[EmittedFile]:
    """Every file a gemini-cli seat is born with, in birth order. Pure but for one look at the disk:
    the trusted folder is the repo's canonical path, the one Gemini compares its working dir with."""
    del interpreter  # no hook: Gemini loads the files itself
    _, servers, files = bearer_emission(fleet, resident, HARNESS)
    root, agent_id = fleet.instance_root, resident.agent_id
    files.append(_settings_file(root, agent_id, servers_key(servers), fleet.mcp_prefix))
    files.append(_trust_file(root, agent_id, os.path.realpath(resident.repo)))
    return files
