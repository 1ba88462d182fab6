"""The seat's stdio MCP server on the official SDK (``MCPServer``): the memory tool's six commands
and the levers, for one memory dir.

The tools raise ``ToolError`` (any other exception reaches the client only as "Error executing tool
X"); ``_speaks_plainly`` turns it, every curator error and a cap refusal into an error result that
carries the exact text.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, ParamSpec

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from curator.errors import CuratorError, from_os_error
from curator.mcp import lever_tools, memory_tool
from curator.mcp.seat import CapRefused, Seat
from curator.meter import Limits

SERVER_NAME = "seat-curator"
INSTRUCTIONS = (
    "This server is the seat's memory: /memories is the memory dir, MEMORY.md its hot index (loaded at every "
    "session start, so it must stay under its target and never pass its read limit). Use view/create/"
    "str_replace/insert/delete/rename to write memory (the same commands as Anthropic's memory tool); every "
    "write is journalled (undo reverts it) and ends with a meter line. To make room use fit, trim, merge, "
    "archive (restore and archive_search reach archived entries); check shows the meter and pointer problems."
)

Path_ = Annotated[str, Field(description="a path under /memories, e.g. /memories/MEMORY.md")]
Ids = Annotated[list[str], Field(description="entry ids, as check, candidates and fit print them")]
P = ParamSpec("P")
Tool = Callable[..., str]


def _speaks_plainly(tool: Callable[P, str]) -> Callable[P, str | CallToolResult]:
    """Every anticipated failure as the tool's exact error text. A ToolError raised out of a tool
    reaches the client as "Error executing tool <name>: <text>" (mcp 2.3.0), so the memory tool's
    trained texts would not arrive as written: the error result is returned here instead."""

    @functools.wraps(tool)
    def run(*args: P.args, **kwargs: P.kwargs) -> str | CallToolResult:
        try:
            return tool(*args, **kwargs)
        except (ToolError, CapRefused) as err:
            text = str(err)
        except CuratorError as err:
            text = f"Error: {err}"
        except UnicodeEncodeError as err:  # JSON can carry a lone surrogate; a file cannot hold one
            text = f"Error: the text is not valid Unicode (a lone surrogate at character {err.start}); nothing was written"
        except OSError as err:
            text = f"Error: {from_os_error(err, 'cannot access')}"
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)

    return run


def build_server(memory_dir: Path, limits: Limits = Limits(), state_dir: Path | None = None) -> MCPServer:
    seat = Seat(memory_dir, limits, state_dir)
    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS)

    def tool(description: str) -> Callable[[Tool], Tool]:
        def register(fn: Tool) -> Tool:
            server.add_tool(_speaks_plainly(fn), name=fn.__name__, description=description, structured_output=False)
            return fn
        return register

    # -- the memory tool's commands --------------------------------------------------------------
    @tool("Show a directory (2 levels, hidden items excluded) or a file with line numbers; "
          "view_range [start, end] (end -1 = to the end) shows part of a file.")
    def view(path: Path_, view_range: list[int] | None = None) -> str:
        return memory_tool.view(seat, path, view_range)

    @tool("Create a new file with file_text; never overwrites.")
    def create(path: Path_, file_text: str) -> str:
        return memory_tool.create(seat, path, file_text)

    @tool("Replace old_str, which must occur exactly once in the file, by new_str.")
    def str_replace(path: Path_, old_str: str, new_str: str) -> str:
        return memory_tool.str_replace(seat, path, old_str, new_str)

    @tool("Insert insert_text after line insert_line (0 = at the top).")
    def insert(path: Path_, insert_line: int, insert_text: str) -> str:
        return memory_tool.insert(seat, path, insert_line, insert_text)

    @tool("Delete a file or directory (undo brings it back).")
    def delete(path: Path_) -> str:
        return memory_tool.delete(seat, path)

    @tool("Rename or move a file or directory; never overwrites.")
    def rename(old_path: Path_, new_path: Path_) -> str:
        return memory_tool.rename(seat, old_path, new_path)

    # -- the levers ------------------------------------------------------------------------------
    @tool("The meter (bytes against target and read limit, what each harness drops), pointer problems, and "
          "the longest entries with their ids, lines and titles.")
    def check() -> str:
        return lever_tools.check(seat)

    @tool("Entries of MEMORY.md that say the same thing (merge candidates), with ids, lines and titles.")
    def candidates(limit: int = 10) -> str:
        return lever_tools.candidates(seat, limit)

    @tool("Plan the lossless steps (trims, merges of duplicates, archiving oldest dated entries) that bring "
          "MEMORY.md under its target; apply=true writes them as one undoable change, keep=[numbers] only those.")
    def fit(apply: bool = False, keep: list[int] | None = None) -> str:
        return lever_tools.fit(seat, apply, keep)

    @tool("Fold a section (section=heading) or entries sharing a facet (ids, facet) verbatim into one detail "
          "file; MEMORY.md keeps one line linking it. No arguments lists the facets; apply=true writes it.")
    def fold(section: str | None = None, ids: list[str] | None = None, facet: str | None = None,
             apply: bool = False) -> str:
        return lever_tools.fold(seat, section, ids, facet, apply)

    @tool("Move entries from MEMORY.md to ARCHIVE.md (stamped; restore brings one back).")
    def archive(ids: Ids, drop_empty_sections: bool = False) -> str:
        return lever_tools.archive(seat, ids, drop_empty_sections)

    @tool("Move an archived entry (id from archive_search) back into MEMORY.md.")
    def restore(id: str) -> str:
        return lever_tools.restore(seat, id)

    @tool("Merge entries into one line, the first keeping its place; text is your own merged line. "
          "Refuses to lose a pointer unless it is in drop_pointers or force is true.")
    def merge(ids: Ids, text: str | None = None, drop_pointers: list[str] | None = None, force: bool = False) -> str:
        return lever_tools.merge(seat, ids, text, drop_pointers, force)

    @tool("Tighten/split suggestions for the longest entries; apply_id applies the one for that entry "
          "(kind split or tighten; default the one that saves more).")
    def trim(apply_id: str | None = None, kind: str | None = None) -> str:
        return lever_tools.trim(seat, apply_id, kind)

    @tool("Undo the last change to the memory (yours or a lever's), byte for byte.")
    def undo() -> str:
        return lever_tools.history_step(seat, undo=True)

    @tool("Redo the last undone change.")
    def redo() -> str:
        return lever_tools.history_step(seat, undo=False)

    @tool("Fuzzy search in ARCHIVE.md; hits carry the id restore takes.")
    def archive_search(query: str, limit: int = 10) -> str:
        return lever_tools.archive_search(seat, query, limit)

    return server
