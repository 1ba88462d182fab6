"""MCP server benchmarks, measured side by side in one run against a baseline in the same process.

- One ``view`` of an 18 KB MEMORY.md and one ``str_replace`` in it (a journalled save through the
  seat store, the cap checked, the pointer graph compared, the meter line computed), each a full
  round trip over stdio through the SDK's client, against a bare SDK ``echo`` tool registered on the
  same server process. Goal: <= 2x. Calls are interleaved (echo, view, str_replace), so machine noise
  hits all alike. Every str_replace writes a text never written before (a round counter of fixed
  width: the file keeps its size), as an agent's edits do: no parse, undo copy or pointer report of
  an earlier round can be reused by chance. Where the time goes: bench/bench_mcp.md.
- The same str_replace with the memory and state dirs on tmpfs, where an fsync costs next to
  nothing: the server's own work beside the echo, without the disk. No goal; for honesty about
  what is CPU and what is the disk.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROUNDS = 41

_SERVER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from curator.mcp.server import build_server
    server = build_server(Path(sys.argv[1]), state_dir=Path(sys.argv[2]))
    server.add_tool(lambda text: text, name="echo", description="echo", structured_output=False)
    server.run("stdio")
""")


def _index() -> str:
    lines = ["# Seat memory index", "", "## Craft hooks"]
    n = 0
    while sum(len(line) + 1 for line in lines) < 18_000:
        lines.append(f"- lesson {n:03d}: keep the fixture small and the assertion honest, see notes-{n:03d}.md")
        n += 1
    return "\n".join(lines) + "\n"


async def _rounds(memory: Path, state: Path) -> dict[str, list[float]]:
    params = StdioServerParameters(command=sys.executable, args=["-c", _SERVER, str(memory), str(state)])
    times: dict[str, list[float]] = {"echo": [], "view": [], "str_replace": []}
    with open(state.parent / "stderr.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for n in range(ROUNDS):
                    old, new = ("lesson 100:" if n == 0 else f"lesson 100 r{n - 1:03d}:"), f"lesson 100 r{n:03d}:"
                    for name, args in (("echo", {"text": "hello"}), ("view", {"path": "/memories/MEMORY.md"}),
                                       ("str_replace", {"path": "/memories/MEMORY.md", "old_str": old, "new_str": new})):
                        start = time.perf_counter()
                        result = await session.call_tool(name, args)
                        times[name].append(time.perf_counter() - start)
                        assert not result.is_error, result
    return times


SHM = "/dev/shm" if Path("/dev/shm").is_dir() else None


def _measure(where: str | None) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        memory = Path(tmp) / "memory"
        memory.mkdir()
        (memory / "MEMORY.md").write_text(_index())
        return anyio.run(_rounds, memory, Path(tmp) / "state")


_MEASURED: dict[str | None, dict[str, list[float]]] = {}


def _row(tool: str, where: str | None = None) -> dict:
    if where not in _MEASURED:
        _MEASURED[where] = _measure(where)
    times = _MEASURED[where]
    measured, baseline = statistics.median(times[tool]), statistics.median(times["echo"])
    on = "the temp dir's disk" if where is None else where
    return {"name": f"mcp {tool} round trip vs a bare echo tool" + (", tmpfs" if where else ""),
            "measured_s": measured, "baseline_s": baseline, "ratio": measured / baseline,
            "goal": "-" if where else "<= 2",
            "note": f"median of {ROUNDS} interleaved calls over stdio, one server process, 18 KB MEMORY.md on {on}"}


def bench_mcp_view() -> dict:
    return _row("view")


def bench_mcp_str_replace() -> dict:
    return _row("str_replace")


def bench_mcp_str_replace_in_memory() -> dict:
    return _row("str_replace", SHM)


ROWS = [bench_mcp_view, bench_mcp_str_replace, bench_mcp_str_replace_in_memory]
