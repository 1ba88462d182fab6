"""Talking to `seat-curator mcp` the way an agent's harness does: the SDK's own stdio client."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


@contextlib.asynccontextmanager
async def serve(memory: Path, state: Path, *extra: str):
    """Yield ``call(tool, **arguments) -> (is_error, text)`` on a server started over stdio."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "curator", "mcp", str(memory), "--state-dir", str(state), *extra])
    with open(state.parent / "server-stderr.log", "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()

                async def call(tool: str, **arguments) -> tuple[bool, str]:
                    result = await session.call_tool(tool, arguments)
                    return bool(result.is_error), "\n".join(block.text for block in result.content)

                call.session = session
                yield call


def seat(root: Path, index: str = "# Memory\n\n- [Alpha](alpha.md) — first lesson\n- beta lesson here\n",
         **files: str) -> tuple[Path, Path]:
    memory = root / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(index)
    (memory / "alpha.md").write_text("# Alpha\n\ndetail\n")
    for name, text in files.items():
        (memory / name).parent.mkdir(parents=True, exist_ok=True)
        (memory / name).write_text(text)
    return memory, root / "state"
