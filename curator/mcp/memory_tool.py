"""The memory tool's six commands (Anthropic's ``memory_20250818``: view, create, str_replace,
insert, delete, rename) on the seat's memory dir, with that tool's semantics and its fixed success
and error texts, which models are trained on.

Paths are ``/memories/...``; ``/memories`` is the seat's memory dir. A path that leaves it (``..``,
also percent-encoded), passes through a symlink, or names a hidden file is refused before anything
is read. Every write goes through ``Seat.write``: the seat store, under the cap; its result ends
with the meter line and any pointer problem it created.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from urllib.parse import unquote

from mcp.server.mcpserver.exceptions import ToolError

from curator.change import Change, digest
from curator.fsio import read_bytes
from curator.mcp.seat import Reading, Seat, Written

ROOT = "/memories"
MAX_LINES = 999_999
NUMBER_WIDTH = 6
SNIPPET_CONTEXT = 4  # lines shown around an edit, as the memory tool shows them
SKIPPED = ("node_modules",)


# -- paths ---------------------------------------------------------------------------------------

def resolve(seat: Seat, path: str) -> str:
    """The file name relative to the memory dir ('' for the root), or a ToolError saying why not."""
    if not isinstance(path, str) or not (path == ROOT or path.startswith(ROOT + "/")):
        raise ToolError(f"Error: The path {path} is not inside {ROOT}; every memory path starts with {ROOT}/")
    parts = [p for p in path[len(ROOT):].split("/") if p]
    for part in parts:
        plain = unquote(part)
        if plain in (".", "..") or part in (".", "..") or "/" in plain or "\\" in part or "\x00" in part:
            raise ToolError(f"Error: The path {path} would escape the {ROOT} directory")
    if any(part.startswith(".") for part in parts):
        raise ToolError(f"Error: The path {path} names a hidden item; hidden items are not part of the memory")
    walk = seat.memory_dir
    for part in parts:
        walk = walk / part
        if os.path.islink(walk):
            raise ToolError(f"Error: The path {path} passes through a symlink; the memory is never read or "
                            "written through one")
    return "/".join(parts)


def _kind(seat: Seat, name: str) -> str:
    """'dir', 'file', 'other' or 'missing' (never following a symlink)."""
    try:
        mode = os.lstat(seat.memory_dir / name if name else seat.memory_dir).st_mode
    except FileNotFoundError:
        return "missing"
    except NotADirectoryError:
        return "missing"
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _text(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ToolError(f"Error: The file {path} is not valid UTF-8 (byte {err.start}); it was left as it is") from None


def _lines(text: str) -> list[str]:
    """The file's lines as the index counts them: a final newline does not start another line."""
    if not text:
        return []
    lines = text.split("\n")
    return lines[:-1] if text.endswith("\n") else lines


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{number:>{NUMBER_WIDTH}}\t{line}" for number, line in enumerate(lines, first))


def _size(nbytes: int) -> str:
    """Sizes as the memory tool lists them: 512B, 4.0K, 1.2M."""
    for unit, scale in (("M", 1024 * 1024), ("K", 1024)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f}{unit}"
    return f"{nbytes}B"


def _result(text: str, written: Written) -> str:
    return "\n".join((text, *written.notes))


# -- commands ------------------------------------------------------------------------------------

def view(seat: Seat, path: str, view_range: list[int] | None = None) -> str:
    name = resolve(seat, path)
    kind = _kind(seat, name)
    if kind == "missing":
        raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
    if kind == "dir":
        return _listing(seat, name, path)
    if kind != "file":
        raise ToolError(f"Error: The path {path} is not a regular file or directory")
    data = read_bytes(seat.memory_dir / name)  # a read needs no journal: regular files only, never a symlink
    lines = _lines(data.decode("utf-8", errors="replace"))
    if len(lines) > MAX_LINES:
        raise ToolError(f"File {path} exceeds maximum line limit of 999,999 lines.")
    first = 1
    if view_range:
        if len(view_range) != 2 or view_range[0] < 1 or (view_range[1] != -1 and view_range[1] < view_range[0]):
            raise ToolError(f"Error: Invalid `view_range` parameter: {view_range}. It should be [start, end] with "
                            f"1 <= start <= end, or end -1 for the end of the file")
        first = view_range[0]
        lines = lines[first - 1:] if view_range[1] == -1 else lines[first - 1:view_range[1]]
    return f"Here's the content of {path} with line numbers:\n" + _numbered(lines, first)


def _listing(seat: Seat, name: str, path: str) -> str:
    root = seat.memory_dir / name if name else seat.memory_dir
    shown = path.rstrip("/") or path
    rows = [f"{_size(os.lstat(root).st_size)}\t{shown}"]

    def walk(directory: str | os.PathLike[str], prefix: str, depth: int) -> None:
        for entry in sorted(os.scandir(directory), key=lambda e: e.name):
            if entry.name.startswith(".") or entry.name in SKIPPED or entry.is_symlink():
                continue
            item = f"{prefix}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                rows.append(f"{_size(entry.stat(follow_symlinks=False).st_size)}\t{item}/")
                if depth < 2:
                    walk(entry.path, item, depth + 1)
            elif entry.is_file(follow_symlinks=False):
                rows.append(f"{_size(entry.stat(follow_symlinks=False).st_size)}\t{item}")

    walk(root, shown, 1)
    header = (f"Here're the files and directories up to 2 levels deep in {path}, "
              "excluding hidden items and node_modules:")
    return header + "\n" + "\n".join(rows)


def create(seat: Seat, path: str, file_text: str) -> str:
    name = resolve(seat, path)

    def plan(files: Reading) -> Change:
        if not name or _kind(seat, name) != "missing":
            raise ToolError(f"Error: File {path} already exists")
        return Change(f"create {path}", {name: file_text.encode("utf-8")}, base={name: None}, kind="memory-create")

    return _result(f"File created successfully at: {path}", seat.write(plan))


def _edit_target(seat: Seat, files: Reading, name: str, path: str, missing: str) -> tuple[bytes, str]:
    kind = _kind(seat, name)
    if kind == "missing":
        raise ToolError(missing)
    if kind != "file":
        raise ToolError(f"Error: The path {path} is not a file")
    data = files.read(name)
    return data, _text(data, path)


def str_replace(seat: Seat, path: str, old_str: str, new_str: str) -> str:
    name = resolve(seat, path)
    snippet: list[str] = []

    def plan(files: Reading) -> Change:
        data, text = _edit_target(seat, files, name, path,
                                  f"Error: The path {path} does not exist. Please provide a valid path.")
        count = text.count(old_str) if old_str else 0
        if count == 0:
            raise ToolError(f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.")
        if count > 1:
            lines = [m.start() for m in re.finditer(re.escape(old_str), text)]
            numbers = ", ".join(str(text.count("\n", 0, at) + 1) for at in lines)
            raise ToolError(f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: "
                            f"{numbers}. Please ensure it is unique")
        at = text.index(old_str)
        new = text[:at] + new_str + text[at + len(old_str):]
        changed = text.count("\n", 0, at)
        first = max(changed - SNIPPET_CONTEXT, 0)
        last = changed + new_str.count("\n") + SNIPPET_CONTEXT + 1
        snippet[:] = [_numbered(_lines(new)[first:last], first + 1)]
        return Change(f"str_replace in {path}", {name: new.encode("utf-8")}, base={name: digest(data)},
                      kind="memory-str-replace")

    written = seat.write(plan)
    return _result("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
                   + snippet[0], written)


def insert(seat: Seat, path: str, insert_line: int, insert_text: str) -> str:
    name = resolve(seat, path)

    def plan(files: Reading) -> Change:
        data, text = _edit_target(seat, files, name, path, f"Error: The path {path} does not exist")
        lines = _lines(text)
        if not 0 <= insert_line <= len(lines):
            raise ToolError(f"Error: Invalid `insert_line` parameter: {insert_line}. It should be within the range "
                            f"of lines of the file: [0, {len(lines)}]")
        newline = "\r\n" if "\r\n" in text else "\n"
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        at = starts[insert_line] if insert_line < len(lines) else len(text)
        lead = newline if at == len(text) and text and not text.endswith("\n") else ""
        added = insert_text if insert_text.endswith("\n") else insert_text + newline
        new = text[:at] + lead + added + text[at:]
        return Change(f"insert at line {insert_line} of {path}", {name: new.encode("utf-8")},
                      base={name: digest(data)}, kind="memory-insert")

    return _result(f"The file {path} has been edited.", seat.write(plan))


def _files_under(seat: Seat, name: str, path: str) -> list[str]:
    """Every file in a directory, to move or delete as one change; hidden items and symlinks inside
    are refused (the agent cannot see them, so it cannot mean to move or delete them)."""
    found = []
    for directory, dirs, files in os.walk(seat.memory_dir / name):
        for item in dirs + files:
            full = os.path.join(directory, item)
            if item.startswith(".") or os.path.islink(full):
                raise ToolError(f"Error: The directory {path} holds hidden items or symlinks; it was left as it is")
        found += [os.path.relpath(os.path.join(directory, f), seat.memory_dir).replace(os.sep, "/") for f in files]
    return sorted(found)


def delete(seat: Seat, path: str) -> str:
    name = resolve(seat, path)
    if not name:
        raise ToolError(f"Error: Cannot delete the {ROOT} directory itself")

    def plan(files: Reading) -> Change:
        kind = _kind(seat, name)
        if kind == "missing":
            raise ToolError(f"Error: The path {path} does not exist")
        names = _files_under(seat, name, path) if kind == "dir" else [name]
        if kind == "dir" and not names:
            shutil.rmtree(seat.memory_dir / name)  # only empty directories in it: nothing to journal
            raise _EmptyDirGone()
        base = {n: digest(files.read(n)) for n in names}
        return Change(f"delete {path}", dict.fromkeys(names), base=base, kind="memory-delete")

    try:
        written = seat.write(plan)
    except _EmptyDirGone:
        return f"Successfully deleted {path}"
    return _result(f"Successfully deleted {path}", written)


class _EmptyDirGone(Exception):
    """An empty directory was removed: there was no file to journal."""


def rename(seat: Seat, old_path: str, new_path: str) -> str:
    old, new = resolve(seat, old_path), resolve(seat, new_path)
    if not old:
        raise ToolError(f"Error: Cannot rename the {ROOT} directory itself")

    def plan(files: Reading) -> Change:
        kind = _kind(seat, old)
        if kind == "missing":
            raise ToolError(f"Error: The path {old_path} does not exist")
        if not new or _kind(seat, new) != "missing":
            raise ToolError(f"Error: The destination {new_path} already exists")
        if kind == "dir" and (new + "/").startswith(old + "/"):
            raise ToolError(f"Error: Cannot move {old_path} into itself")
        names = _files_under(seat, old, old_path) if kind == "dir" else [old]
        moves: dict[str, bytes | None] = {}
        base: dict[str, str | None] = {}
        for n in names:
            data = files.read(n)
            target = new + n[len(old):]
            moves[n], moves[target] = None, data
            base[n], base[target] = digest(data), None
        return Change(f"rename {old_path} to {new_path}", moves, base=base, kind="memory-rename")

    return _result(f"Successfully renamed {old_path} to {new_path}", seat.write(plan))
