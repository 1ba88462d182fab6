"""Codex's hook trust: the key and the hash that make a hook in ``hooks.json`` run without a flag.

Codex 0.171.0 runs an unmanaged hook only when ``config.toml`` holds, for that hook,
``[hooks.state."<file>:<event label>:<group>:<handler>"] trusted_hash = "sha256:<hex>"``, and it
skips an untrusted or changed hook *silently*. The recipe below was reproduced against the binary's
own ``currentHash`` (``codex app-server`` → ``hooks/list``): sha256 of the compact, key-sorted JSON
of the matcher group's identity. ``<file>`` is the canonical absolute path of the hooks file, so a
copied or symlinked ``CODEX_HOME`` loses its trust.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

# Codex's event labels in trust keys (snake_case of the hooks.json event names).
EVENT_LABELS = {
    "PreToolUse": "pre_tool_use", "PermissionRequest": "permission_request", "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact", "PostCompact": "post_compact", "SessionStart": "session_start",
    "SessionEnd": "session_end", "UserPromptSubmit": "user_prompt_submit", "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop", "Stop": "stop",
}
DEFAULT_TIMEOUT = 600  # what Codex counts when a handler names no timeout
NO_MATCHER = ("UserPromptSubmit", "Stop")  # events whose identity never carries a matcher


def trust_key(hooks_file: str | Path, event: str, group: int = 0, handler: int = 0) -> str:
    """The ``hooks.state`` key of one handler. ``hooks_file`` must already be canonical."""
    return f"{hooks_file}:{EVENT_LABELS[event]}:{group}:{handler}"


def canonical(path: str | Path) -> str:
    """The path Codex writes in a trust key: absolute, every symlink that exists resolved."""
    return os.path.realpath(path)


def hook_identity(event: str, matcher: str | None, handler: dict) -> dict:
    """What Codex hashes for one handler of a matcher group in ``hooks.json``."""
    timeout = handler.get("timeout", DEFAULT_TIMEOUT)
    if event == "SessionEnd":
        timeout = min(max(timeout, 1), 3)
    item = {"type": handler.get("type", "command"), "command": handler.get("command"), "timeout": timeout,
            "async": bool(handler.get("async", False))}
    if handler.get("statusMessage") is not None:
        item["statusMessage"] = handler["statusMessage"]
    identity: dict = {"event_name": EVENT_LABELS[event], "hooks": [item]}
    if matcher is not None and event not in NO_MATCHER:
        identity["matcher"] = matcher
    return identity


def trusted_hash(event: str, matcher: str | None, handler: dict) -> str:
    """``sha256:<hex>`` Codex compares with ``trusted_hash`` (its ``currentHash``)."""
    text = json.dumps(hook_identity(event, matcher, handler), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
