"""Isolated places to run a harness: private HOME and XDG dirs, and the stub model wired in beside
the seat's own configuration — without writing a byte into the seat.

kimi-code: a copy of the seat's harness home (``$KIMI_CODE_HOME``) whose config.toml gains a stub
provider and model; the copied ``[[hooks]]`` still run the seat's real hook script (which reads the
real memory dir), but the hook keeps its state under ``$KIMI_CODE_HOME`` — the copy.
opencode: an overlay config (``OPENCODE_CONFIG``) adding the stub provider; the harness runs in the
seat's repo, whose opencode.jsonc it merges as usual.
claude-code: ``$CLAUDE_CONFIG_DIR`` is a copy of the seat's config dir (its settings.json still names
the real memory dir and the seat's own hook script); ``ANTHROPIC_BASE_URL`` points at the stub; the
harness runs in the seat's repo, with ``PWD`` set to it (Claude Code reads ``$PWD``).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import json5
import tomlkit
from tomlkit.exceptions import TOMLKitError

from curator.canary.seat import Seat
from curator.errors import CuratorError, InputError
from curator.fsio import atomic_write, read_bytes

STUB_MODEL = "stub-model"
STUB_ALIAS = "stub"
KIMI_CONTEXT = 200_000
# Only what a run needs; session history, logs and caches of a used seat can be large and private.
# mcp.json stays behind too: the canary checks memory loading and must not start the seat's MCP servers
# (kimi-code already skips the repo's project-level servers: the sandbox has never trusted the folder).
KIMI_HOME_SKIP = {"memory", "identity-anchor", "sessions", "logs", "cache", "updates", "session_index.jsonl",
                  "mcp.json"}
# A used Claude Code config dir keeps transcripts, history and caches: none of it is needed for a run.
CLAUDE_HOME_SKIP = {"memory", "projects", "sessions", "todos", "shell-snapshots", "statsig", "logs", "cache",
                    "debug", "file-history", "paste-cache", "plans", "history.jsonl", "ide", "telemetry"}
CLAUDE_ENV = {
    "ANTHROPIC_API_KEY": "sk-stub", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
}
OFFLINE_ENV = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    # OpenCode installs plugin packages with npm in the background: point npm at a closed loopback port.
    "npm_config_offline": "true", "npm_config_registry": "http://127.0.0.1:9/",
}


@dataclass
class Sandbox:
    root: Path
    env: dict[str, str]
    cwd: Path
    wiring: dict[str, object] = field(default_factory=dict)  # what the seat's own config wires
    state_dir: Path | None = None  # kimi-code: where the hook keeps its per-session marks


def _base_env(root: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "xdg" / "config"),
        "XDG_DATA_HOME": str(root / "xdg" / "data"),
        "XDG_CACHE_HOME": str(root / "xdg" / "cache"),
        "XDG_STATE_HOME": str(root / "xdg" / "state"),
        "TMPDIR": str(root / "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "true",
        # Node >= 22 keeps compiled code here: kimi-code's later turns start faster than the first.
        "NODE_COMPILE_CACHE": str(root / "node-compile-cache"),
    }
    for key in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "TMPDIR"):
        Path(env[key]).mkdir(parents=True, exist_ok=True)
    return env


def _hook_events(doc: dict) -> list[str]:
    hooks = doc.get("hooks")
    if not isinstance(hooks, list):
        return []
    return [str(h.get("event")) for h in hooks if isinstance(h, dict) and h.get("event")]


def prepare_kimi(seat: Seat, root: Path, base_url: str) -> Sandbox:
    if not seat.repo.is_dir():  # kimi runs there: without this check the error blames the CLI
        raise InputError("seat repo does not exist", path=seat.repo)
    env = _base_env(root)
    home = root / "kimi-home"
    if seat.instance_home.is_dir():
        shutil.copytree(seat.instance_home, home, symlinks=True,
                        ignore=lambda d, names: [n for n in names if Path(d) == seat.instance_home and n in KIMI_HOME_SKIP])
    else:
        raise InputError("seat harness home does not exist", path=seat.instance_home)
    config_path = home / "config.toml"
    text = ""
    if config_path.exists():
        try:
            text = read_bytes(config_path).decode("utf-8")
            doc = tomlkit.parse(text)
        except CuratorError as err:  # e.g. a symlinked config.toml: name the seat's file, not the copy
            raise InputError(err.message, path=seat.instance_home / "config.toml") from None
        except UnicodeDecodeError:
            raise InputError("config.toml is not UTF-8", path=seat.instance_home / "config.toml") from None
        except TOMLKitError as err:
            raise InputError(f"config.toml is not valid TOML: {err}", path=seat.instance_home / "config.toml") from None
    else:
        doc = tomlkit.document()
    wiring: dict[str, object] = {"hook_events": _hook_events(doc.unwrap())}
    doc["default_model"] = STUB_ALIAS  # kimi resolves it at start-up even when -m is given
    doc["telemetry"] = False
    for table_name, entry in (
        ("providers", {"type": "openai", "base_url": base_url, "api_key": "sk-stub"}),
        ("models", {"provider": STUB_ALIAS, "model": STUB_MODEL, "max_context_size": KIMI_CONTEXT}),
    ):
        if table_name not in doc:
            doc[table_name] = tomlkit.table()
        table = tomlkit.table()
        table.update(entry)
        doc[table_name][STUB_ALIAS] = table
    atomic_write(config_path, tomlkit.dumps(doc).encode("utf-8"), mode=0o600)
    env["KIMI_CODE_HOME"] = str(home)
    return Sandbox(root, env, seat.repo, wiring, home / "identity-anchor")


def read_project_config(repo: Path) -> dict | None:
    """The seat's opencode.jsonc (or opencode.json) as a dict; None when absent or unreadable."""
    for name in ("opencode.jsonc", "opencode.json"):
        path = repo / name
        if path.exists():
            try:
                doc = json5.loads(read_bytes(path).decode("utf-8"))
            except (CuratorError, UnicodeDecodeError, ValueError):
                return None
            return doc if isinstance(doc, dict) else None
    return None


def read_instructions(repo: Path) -> list[str] | None:
    """The seat's opencode.jsonc ``instructions`` (None when there is no readable config)."""
    doc = read_project_config(repo)
    if doc is None:
        return None
    found = doc.get("instructions")
    return [str(x) for x in found] if isinstance(found, list) else []


def prepare_opencode(seat: Seat, root: Path, base_url: str) -> Sandbox:
    if not seat.repo.is_dir():
        raise InputError("seat repo does not exist", path=seat.repo)
    env = _base_env(root)
    overlay = {
        "$schema": "https://opencode.ai/config.json",
        "model": f"{STUB_ALIAS}/{STUB_MODEL}",
        "small_model": f"{STUB_ALIAS}/{STUB_MODEL}",
        "autoupdate": False,
        "share": "disabled",
        "provider": {STUB_ALIAS: {
            "npm": "@ai-sdk/openai-compatible",
            "options": {"baseURL": base_url, "apiKey": "sk-stub"},
            "models": {STUB_MODEL: {"limit": {"context": 128_000, "output": 4096}}},
        }},
    }
    overlay_path = root / "opencode-overlay.json"
    atomic_write(overlay_path, json.dumps(overlay, indent=2).encode("utf-8"), mode=0o600)
    env.update(OFFLINE_ENV)
    env["OPENCODE_CONFIG"] = str(overlay_path)
    servers = (read_project_config(seat.repo) or {}).get("mcp")
    if isinstance(servers, dict) and servers:
        # Merged last, over the project config: the seat's MCP servers stay off during the canary.
        env["OPENCODE_CONFIG_CONTENT"] = json.dumps({"mcp": {name: {"enabled": False} for name in servers}})
    return Sandbox(root, env, seat.repo, {"instructions": read_instructions(seat.repo)})


def read_claude_settings(seat: Seat) -> dict | None:
    """The seat's settings.json as a dict; None when it does not exist. A file that is not JSON, not
    UTF-8 or not a regular file is an InputError naming it (the run cannot say what it wires)."""
    path = seat.instance_home / "settings.json"
    if not os.path.lexists(path):
        return None
    try:
        doc = json.loads(read_bytes(path).decode("utf-8"))
    except CuratorError as err:
        raise InputError(err.message, path=path) from None
    except UnicodeDecodeError:
        raise InputError("settings.json is not UTF-8", path=path) from None
    except ValueError as err:
        raise InputError(f"settings.json is not valid JSON: {err}", path=path) from None
    if not isinstance(doc, dict):
        raise InputError("settings.json is not a JSON object", path=path)
    return doc


def claude_wiring(settings: dict | None) -> dict[str, object]:
    """What a seat's settings.json wires for the layer: its memory dir and its SessionStart commands."""
    if settings is None:
        return {"settings": False, "auto_memory_directory": None, "session_start": []}
    hooks = settings.get("hooks")
    entries = hooks.get("SessionStart") if isinstance(hooks, dict) else None
    commands = []
    for entry in entries if isinstance(entries, list) else []:
        for hook in entry.get("hooks", []) if isinstance(entry, dict) and isinstance(entry.get("hooks"), list) else []:
            if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                commands.append({"matcher": str(entry.get("matcher", "")), "command": hook["command"]})
    directory = settings.get("autoMemoryDirectory")
    return {"settings": True, "auto_memory_directory": directory if isinstance(directory, str) else None,
            "session_start": commands}


def prepare_claude(seat: Seat, root: Path, base_url: str) -> Sandbox:
    """``base_url``: what ``ANTHROPIC_BASE_URL`` takes (the stub's root; the client adds /v1/messages)."""
    if not seat.instance_home.is_dir():
        raise InputError("seat config dir does not exist", path=seat.instance_home)
    if not seat.repo.is_dir():
        raise InputError("seat repo does not exist", path=seat.repo)
    wiring = claude_wiring(read_claude_settings(seat))
    env = _base_env(root)
    config = root / "claude-config"
    shutil.copytree(seat.instance_home, config, symlinks=True,
                    ignore=lambda d, names: [n for n in names if Path(d) == seat.instance_home and n in CLAUDE_HOME_SKIP])
    env.update(CLAUDE_ENV)
    env.update({"CLAUDE_CONFIG_DIR": str(config), "ANTHROPIC_BASE_URL": base_url, "PWD": str(seat.repo)})
    return Sandbox(root, env, seat.repo, wiring)


CODEX_PROVIDER = ('model_providers.stub={{name="stub",base_url="{base_url}",wire_api="responses",'
                  'env_key="SEAT_CANARY_STUB_KEY"}}')


def codex_wiring(seat: Seat) -> dict[str, object]:
    """What the seat's CODEX_HOME wires: the SessionStart groups, and whether config.toml trusts the
    fleet's hook with the hash Codex will compute (Codex skips an untrusted hook silently)."""
    from generators import codex
    from generators.codex_trust import canonical, trust_key, trusted_hash
    from generators.projection import InvalidOwnedFile, json_object, parse_toml

    home = canonical(seat.instance_home)
    wiring: dict[str, object] = {"codex_home": home}
    try:
        hooks = json_object((seat.instance_home / codex.HOOKS_JSON).read_bytes(), json.loads)
        config = parse_toml((seat.instance_home / codex.CONFIG).read_bytes())
    except (OSError, InvalidOwnedFile) as err:
        wiring["problem"] = f"cannot read the seat's hooks.json / config.toml: {err}"
        return wiring
    groups = (hooks.get("hooks") or {}).get("SessionStart") or []
    try:
        group = groups[0]
        key = trust_key(f"{home}/{codex.HOOKS_JSON}", "SessionStart")
        digest = trusted_hash("SessionStart", group.get("matcher"), group["hooks"][0])
    except (IndexError, KeyError, TypeError, AttributeError):
        wiring["problem"] = "hooks.json has no SessionStart hook"
        return wiring
    state = ((config.get("hooks") or {}).get("state") or {}).get(key) or {}
    wiring["matcher"] = group.get("matcher")  # which SessionStart sources run the hook at all
    wiring["trust_key"] = key
    wiring["trusted"] = state.get("trusted_hash") == digest and state.get("enabled", True) is True
    if not wiring["trusted"]:
        wiring["problem"] = (f"config.toml does not trust the SessionStart hook: hooks.state.\"{key}\".trusted_hash is "
                             f"{state.get('trusted_hash', 'missing')!s}, Codex computes {digest}")
    return wiring


def prepare_codex(seat: Seat, root: Path, base_url: str) -> Sandbox:
    """The seat's real CODEX_HOME (a copy would hold another path than its trust keys name)."""
    if not seat.instance_home.is_dir():
        raise InputError("seat CODEX_HOME does not exist", path=seat.instance_home)
    if not seat.repo.is_dir():
        raise InputError("seat repo does not exist", path=seat.repo)
    env = _base_env(root)
    env.update({"CODEX_HOME": str(seat.instance_home), "SEAT_CANARY_STUB_KEY": "sk-stub", "PWD": str(seat.repo)})
    return Sandbox(root, env, seat.repo, codex_wiring(seat))


# A context window the stub's reported usage overflows, so Codex compacts automatically (mid-turn, or
# at the start of the next turn when the last turn ended over the limit).
CODEX_COMPACTION = ("-c", "model_context_window=200000", "-c", "model_auto_compact_token_limit=100000")


def codex_args(base_url: str, servers: list[str], prompt: str, session: str | None = None) -> list[str]:
    """``codex exec`` against the stub, no network, the seat's MCP servers off, and no trust-bypass flag;
    with ``session``, ``codex exec … resume <session> <prompt>`` (by id: ``--last`` could pick a session
    the seat's own CODEX_HOME recorded in real use)."""
    args = ["exec", "--skip-git-repo-check", *CODEX_COMPACTION, "-c", "model_provider=stub", "-c", "model=stub-model",
            "-c", CODEX_PROVIDER.format(base_url=base_url), "-c", "analytics.enabled=false",
            "-c", "check_for_update_on_startup=false"]
    for name in servers:
        args += ["-c", f"mcp_servers.{name}.enabled=false"]
    return args + ([prompt] if session is None else ["resume", session, prompt])


def codex_servers(seat: Seat) -> list[str]:
    from generators.projection import InvalidOwnedFile, parse_toml
    try:
        return list(parse_toml((seat.instance_home / "config.toml").read_bytes()).get("mcp_servers") or {})
    except (OSError, InvalidOwnedFile):
        return []


GEMINI_ENV = {"GEMINI_API_KEY": "sk-stub", "GEMINI_TELEMETRY_ENABLED": "false",
              # Gemini otherwise loads its bundle twice per turn: once to relaunch itself as a child with a
              # larger heap and this very variable set; the child's code path is the one run here.
              "GEMINI_CLI_NO_RELAUNCH": "true"}


def prepare_gemini(seat: Seat, root: Path, base_url: str) -> Sandbox:
    """A copy of the seat's GEMINI_CLI_HOME settings (Gemini writes history and project state there);
    the settings name the real memory dir and repo, so the copy loads what the seat loads."""
    if not seat.repo.is_dir():
        raise InputError("seat repo does not exist", path=seat.repo)
    source = seat.instance_home / ".gemini"
    if not source.is_dir():
        raise InputError("seat .gemini settings dir does not exist", path=source)
    home = root / "gemini-home"
    (home / ".gemini").mkdir(parents=True)
    wiring: dict[str, object] = {}
    for name in ("settings.json", "trustedFolders.json"):
        if (source / name).is_file():
            shutil.copyfile(source / name, home / ".gemini" / name)
    try:
        wiring["context"] = json.loads((source / "settings.json").read_text(encoding="utf-8")).get("context")
    except (OSError, ValueError, AttributeError):
        wiring["context"] = None
    env = _base_env(root)
    env.update(GEMINI_ENV)
    env.update({"GEMINI_CLI_HOME": str(home), "GOOGLE_GEMINI_BASE_URL": base_url, "PWD": str(seat.repo)})
    return Sandbox(root, env, seat.repo, wiring)
