"""Fleets for the generator and canary tests, written as real fleet.toml files in tmp_path, and the
user files adoption must keep."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from generators.manifest import Fleet, load_manifest

KIMI = "@neo-kimi-iris"
OPENCODE = "@neo-opencode-juno"

BASE_MANIFEST = """\
instance_root = "instances"
mcp_prefix = "neo-mjs-"
default_model = "kimi-k2"
default_permission_mode = "manual"

[mcp.neo-mjs-memory-core]
command = "node"
args = ["server.js", "--stdio"]
env = { TOKEN = "t0k" }

[mcp.neo-mjs-switched-off]
url = "https://switched-off.invalid/mcp"
enabled = false
"""

RESIDENTS = f"""
[[residents]]
agent_id = "{KIMI}"
harness = "kimi-code"
repo = "repos/iris"

[[residents]]
agent_id = "{OPENCODE}"
harness = "opencode"
repo = "repos/juno"
"""


def write_fleet(directory: Path, extra: str = "", *, residents: str = RESIDENTS, base: str = BASE_MANIFEST) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "fleet.toml"
    path.write_text(base + extra + residents, encoding="utf-8")
    return path


def make_fleet(directory: Path, extra: str = "", **kwargs) -> Fleet:
    return load_manifest(write_fleet(directory, extra, **kwargs))


def tree_bytes(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root`` (symlinks as their target text, FIFOs as their mode alone):
    relative path → (bytes, mode)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            mode = path.lstat().st_mode
            if path.is_symlink():
                out[rel] = (os.readlink(path).encode(), -1)
            elif not stat.S_ISREG(mode):  # a FIFO or device: its kind, never a read that could block
                out[rel] = (b"", mode)
            else:
                out[rel] = (path.read_bytes(), mode)
    return out


USER_JSONC = """\
// my own opencode config: keep every word of this
{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet", // my model
  /* servers I run myself,
     across two lines */
  "mcp": {
    "my-private-server": { "type": "local", "command": ["my-mcp", "--quiet"] }, // keep me
  },
  "permission": { "bash": "ask" },
}
"""


USER_MCP_JSON = """{
  "mcpServers": {
    "my-private-server": {
      "command": "my-mcp",
      "args": []
    }
  },
  "note": "mine"
}
"""
