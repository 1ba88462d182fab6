"""One seat's hot index, analysed: model, byte meter, load simulation per harness, pointer graph.

This is what ``seat-curator check`` prints and what the app redraws on every keystroke
(``analyze(memory_dir, index_bytes=<editor text>)``): the index is parsed once and shared with the
pointer graph, detail files come from the pointer cache, identity.md is re-read only when it changed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from curator import caches
from curator.bounds import refuse_large_file
from curator.constants import IDENTITY_NAME, INDEX_NAME
from curator.errors import InputError
from curator.frontmatter import FrontMatter
from curator.fsio import leftover_temps, read_bytes
from curator.index_model import Entry, HotIndex, parse_index
from curator.load_sim import ALL, LoadResult, simulate
from curator.meter import Limits, Meter, measure
from curator.pointers import PointerReport, check_pointers


@dataclass(frozen=True)
class Analysis:
    memory_dir: Path
    index: HotIndex
    meter: Meter
    loads: dict[str, LoadResult]
    pointers: PointerReport
    symlinked: bool  # MEMORY.md is a symlink (read through it; levers will refuse to write it)
    limits: Limits = Limits()
    identity_bytes: int | None = None  # None: identity.md does not exist
    warnings: tuple[str, ...] = field(default=())

    @property
    def decode_error_offset(self) -> int | None:
        """Byte offset of the first invalid UTF-8 sequence in MEMORY.md, if any."""
        offsets = self.index.decode_error_offsets
        return offsets[0] if offsets else None

    @property
    def problem_count(self) -> int:
        """Pointer problems plus a MEMORY.md that is not UTF-8 (the model would see garbage)."""
        return self.pointers.problem_count + (1 if self.decode_error_offset is not None else 0)

    @property
    def exit_code(self) -> int:
        """0 clean; 2 over target or any problem; 3 past the read limit."""
        if self.meter.zone == "over-limit":
            return 3
        if self.meter.zone == "over-target" or self.problem_count:
            return 2
        return 0

    @cached_property
    def _problem_lines(self) -> frozenset[int]:
        lines = {d.line for d in self.pointers.dangling if d.file == INDEX_NAME}
        lines.update(e.line for e in self.pointers.escapes if e.file == INDEX_NAME)
        return frozenset(lines)

    @cached_property
    def _question_lines(self) -> frozenset[int]:
        return frozenset(p.line for p in self.pointers.probable if p.file == INDEX_NAME)


def entry_pointer_state(analysis: Analysis, entry: Entry) -> str:
    """"dangling" if one of the entry's file/anchor/wikilink pointers is broken or escapes the memory
    dir, "probable" if a wikilink is probably another file's name respelled (a question for the
    bearer, as in the Pointers panel), "ok" if it has pointers and none is either, "none" if it has
    no pointer at all. A wikilink to a memory not written yet is "ok": it is information."""
    if not entry.pointers:
        return "none"
    checked = any(link.kind in ("file", "anchor", "wiki") for link in entry.pointers)
    if checked and any(entry.line <= line <= entry.end_line for line in analysis._problem_lines):
        return "dangling"
    if any(entry.line <= line <= entry.end_line for line in analysis._question_lines):
        return "probable"
    return "ok"


def entry_details(analysis: Analysis, entry: Entry) -> list[tuple[str, FrontMatter]]:
    """The detail files the entry links to (file links and wikilinks, each once) that declare a
    ``type`` or ``description`` in their front matter, with what they declare."""
    found: dict[str, FrontMatter] = {}
    for link in entry.pointers:
        name = analysis.pointers.linked_file(link)
        if name and name not in found:
            declared = analysis.pointers.detail(name)
            if declared.type or declared.description:
                found[name] = declared
    return list(found.items())


# -- reading -----------------------------------------------------------------------------------

def _check_dir(memory_dir: Path) -> None:
    try:
        info = memory_dir.stat()
    except FileNotFoundError:
        raise InputError("no such memory directory", path=memory_dir) from None
    except PermissionError:
        raise InputError("permission denied", path=memory_dir) from None
    except NotADirectoryError:
        raise InputError("a parent of this path is not a directory", path=memory_dir) from None
    if not stat.S_ISDIR(info.st_mode):
        raise InputError("is a file, expected the memory directory that holds MEMORY.md", path=memory_dir)
    if not os.access(memory_dir, os.R_OK | os.X_OK):
        raise InputError("permission denied", path=memory_dir)


_identity_cache: dict[str, tuple[int, int, bytes]] = {}


def read_identity(path: Path) -> bytes | None:
    """identity.md's bytes (None if absent), re-read only when size or mtime changed."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", path=path) from None
    key = str(path)
    cached = _identity_cache.get(key)
    if cached and cached[:2] == (info.st_size, info.st_mtime_ns):
        return cached[2]
    data = read_bytes(path, allow_symlink=True)
    _identity_cache[key] = (info.st_size, info.st_mtime_ns, data)
    return data


# Redraws without an edit (cursor moves, focus changes) reuse the last few parses.
parse_cached = caches.kept(maxsize=4, name="curator.analysis.parse_cached")(parse_index)


def analyze(
    memory_dir: Path,
    *,
    index_bytes: bytes | None = None,
    limits: Limits = Limits(),
    profiles: tuple[str, ...] = ALL,
) -> Analysis:
    """Analyse the seat at ``memory_dir``; ``index_bytes`` stands in for MEMORY.md (an editor's text)."""
    memory_dir = Path(memory_dir)
    _check_dir(memory_dir)
    index_path = memory_dir / INDEX_NAME
    symlinked = index_path.is_symlink()
    warnings: list[str] = []
    if symlinked:
        warnings.append(f"{index_path} is a symlink to {os.path.realpath(index_path)}; "
                        "it was read through the link, levers will not write through it")
    if index_bytes is None:
        refuse_large_file(index_path, "the analysis")
        raw = read_bytes(index_path, allow_symlink=True)
    else:
        raw = bytes(index_bytes)
    index = parse_cached(raw)
    if index.decode_error_offsets:
        warnings.append(f"{index_path}: not valid UTF-8 at byte offset {index.decode_error_offsets[0]:,} "
                        f"({len(index.decode_error_offsets)} line(s) affected); bytes counted as on disk")
    for temp, target in leftover_temps(memory_dir):
        warnings.append(f"{memory_dir / temp}: left by an interrupted save of {target}, which is intact; it holds "
                        "the bytes that were being saved: compare the two, then delete it")
    identity = read_identity(memory_dir / IDENTITY_NAME)
    source = str(memory_dir.absolute())
    loads = {name: simulate(index, identity, name, limits, memory_dir=source) for name in profiles}
    pointers = check_pointers(memory_dir, parsed_index=index)
    identity_size = len(identity) if identity is not None else None
    return Analysis(memory_dir, index, measure(index, limits), loads, pointers, symlinked, limits,
                    identity_size, tuple(warnings))
