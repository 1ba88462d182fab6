"""The example fleet manifest ``init-fleet`` writes: one resident per harness."""

from __future__ import annotations

import unicodedata
from pathlib import Path


def example_manifest(root_dir: str | Path) -> str:
    """A working manifest rooted in ``root_dir``: one resident per harness (kimi-code, opencode,
    claude-code, codex, gemini-cli)."""
    root = Path(root_dir).expanduser().absolute()
    return f'''# Fleet manifest for seat-curator (format: docs/fleet-manifest.md).
# Relative paths resolve from this file's directory.

instance_root = "{_toml_str(str(root / "instances"))}"
mcp_prefix = "neo-mjs-"
default_model = "kimi-k2"
default_permission_mode = "manual"

# Optional: the harness CLIs the canary drives (default: found on PATH).
[harness_cli]
# kimi-code = "/usr/local/bin/kimi"
# opencode = "/usr/local/bin/opencode"
# claude-code = "/usr/local/bin/claude"
# codex = "/usr/local/bin/codex"
# gemini-cli = "/usr/local/bin/gemini"

# The MCP catalog. Names must start with mcp_prefix; 'enabled' is the fleet default.
[mcp.neo-mjs-memory-core]
command = "npx"
args = ["-y", "@neo.mjs/memory-core-mcp"]
env = {{ MEMORY_CORE_URL = "http://127.0.0.1:8765" }}
enabled = true

[mcp.neo-mjs-github-workflow]
url = "https://mcp.example.invalid/github"
enabled = false

# Extra kimi-code hooks, appended after the identity-anchor pair.
# [[hooks]]
# event = "Stop"
# command = "/usr/local/bin/notify-operator"
# timeout = 10

[[residents]]
agent_id = "@neo-kimi-iris"
harness = "kimi-code"
repo = "{_toml_str(str(root / "repos" / "iris"))}"
mcp = {{ neo-mjs-github-workflow = true }}

[[residents]]
agent_id = "@neo-opencode-juno"
harness = "opencode"
repo = "{_toml_str(str(root / "repos" / "juno"))}"
allowed_paths = ["{_toml_str(str(root / "shared"))}"]

[[residents]]
agent_id = "@neo-claude-vega"
harness = "claude-code"
repo = "{_toml_str(str(root / "repos" / "vega"))}"

[[residents]]
agent_id = "@neo-codex-orion"
harness = "codex"
repo = "{_toml_str(str(root / "repos" / "orion"))}"

[[residents]]
agent_id = "@neo-gemini-lyra"
harness = "gemini-cli"
repo = "{_toml_str(str(root / "repos" / "lyra"))}"
'''


def _toml_str(value: str) -> str:
    """The inside of a TOML basic string: quotes, backslashes and every control character escaped,
    so any directory name (a newline in it included) reads back as itself."""
    out = []
    for char in value:
        if char in '"\\':
            out.append("\\" + char)
        elif unicodedata.category(char) == "Cc" or char in "\u2028\u2029":
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return "".join(out)
