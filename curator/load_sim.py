"""Load simulation: what each harness actually puts in the model's context, and what it leaves out.

No harness tells its user which memory lines it dropped; this module names them, by section and
text. Profiles:

- ``claude-code``: the native loader reads the first 200 lines or 25,000 bytes of MEMORY.md,
  whichever binds first, cut at the last newline.
- ``kimi-code``: the identity-anchor hook injects MEMORY.md + identity.md whole, inside its
  ``<seat-memory-layer …>`` wrapper, at session boot and after a compaction.
- ``opencode``: ``instructions`` carries MEMORY.md + identity.md whole into every turn.
- ``read-limit``: our own budget; everything past the read limit counts as lost.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from curator.index_model import Entry, HotIndex
from curator.meter import Limits
from generators.hook_format import TRIGGER_BOOT, injected_bytes

CLAUDE_LINE_CAP = 200
CLAUDE_BYTE_CAP = 25_000

PROFILES = ("claude-code", "kimi-code", "opencode", "read-limit")
ALL = PROFILES

DEFAULT_SOURCE = "/path/to/memory"


def kimi_injected_bytes(memory_dir: str, index_raw: bytes, identity: bytes | None) -> int:
    """Exactly what the generated identity-anchor hook prints at session boot: its own ``render``
    is the one definition of the wrapper, so this count cannot drift from the hook."""
    files = {"MEMORY.md": index_raw}
    if identity is not None:
        files["identity.md"] = identity
    return injected_bytes(memory_dir, files, TRIGGER_BOOT)


@dataclass(frozen=True)
class LoadResult:
    profile: str
    loaded_bytes: int  # bytes that reach the model's context (wrapper included for kimi-code)
    total_bytes: int  # bytes of the files the profile loads, as on disk
    cut_line: int | None  # last line of MEMORY.md loaded whole; None when nothing is cut
    cut_offset: int | None  # byte offset in MEMORY.md where loading stops; None when nothing is cut
    line_cap: int | None  # the profile's line cap, if it has one
    dropped: tuple[Entry, ...]  # entries wholly past the cut
    partial: Entry | None  # the entry the cut falls inside: partially dropped
    note: str

    @property
    def lost_entries(self) -> tuple[Entry, ...]:
        return self.dropped + ((self.partial,) if self.partial else ())


def _content(identity: int | bytes | None) -> bytes | None:
    """identity.md's bytes; a bare size stands for a file of that size ending in a newline."""
    if identity is None or isinstance(identity, bytes):
        return identity
    return b"x" * max(identity - 1, 0) + (b"\n" if identity else b"")


def _cut_at(index: HotIndex, cut_offset: int) -> tuple[int, tuple[Entry, ...], Entry | None]:
    """Last whole line before ``cut_offset``, the entries past it, the entry it splits."""
    starts = [line.offset for line in index.lines]
    # 0-based index of the line the cut starts or falls in = number of lines before it, all whole.
    cut_line = max(bisect_right(starts, cut_offset) - 1, 0)
    dropped = tuple(e for e in index.entries if e.offset >= cut_offset)
    partial = next((e for e in index.entries if e.offset < cut_offset < e.end_offset), None)
    return cut_line, dropped, partial


def _offset_after_newlines(raw: bytes, count: int) -> int | None:
    """Offset just past the ``count``-th newline, or None if the file has fewer."""
    position = -1
    for _ in range(count):
        position = raw.find(b"\n", position + 1)
        if position < 0:
            return None
    return position + 1


def _claude(index: HotIndex) -> LoadResult:
    raw = index.raw
    by_lines = _offset_after_newlines(raw, CLAUDE_LINE_CAP)
    if by_lines is not None and by_lines >= len(raw):
        by_lines = None  # exactly 200 lines: everything loads
    line_limited = raw if by_lines is None else raw[:by_lines]
    if len(line_limited) <= CLAUDE_BYTE_CAP:
        cut, binding = by_lines, "200-line cap"
    else:
        cut, binding = raw.rfind(b"\n", 0, CLAUDE_BYTE_CAP) + 1, "25,000-byte cap"
    if cut is None or cut >= len(raw):
        return LoadResult("claude-code", len(raw), len(raw), None, None, CLAUDE_LINE_CAP, (), None,
                          f"all {index.line_count} lines ({len(raw):,} B) load at session start")
    cut_line, dropped, partial = _cut_at(index, cut)
    lost = len(raw) - cut
    loads = f"lines 1–{cut_line} ({cut:,} B) load" if cut_line else "nothing loads"
    note = (f"{binding} binds: {loads}, lines {cut_line + 1}–{index.line_count} "
            f"({lost:,} B) never reach the model and Claude Code does not say so")
    return LoadResult("claude-code", cut, len(raw), cut_line, cut, CLAUDE_LINE_CAP, dropped, partial, note)


def _kimi(index: HotIndex, identity: bytes | None, memory_dir: str) -> LoadResult:
    size = len(identity) if identity is not None else 0
    total = index.nbytes + size
    loaded = kimi_injected_bytes(memory_dir, index.raw, identity)
    note = (f"hook injects {loaded:,} B at session boot and after each compaction "
            f"(MEMORY.md {index.nbytes:,} + identity.md {size:,} + wrapper {loaded - total:,}); "
            "other prompts cost 0 B")
    if identity is None:
        note += "; identity.md is missing"
    return LoadResult("kimi-code", loaded, total, None, None, None, (), None, note)


def _opencode(index: HotIndex, identity: bytes | None) -> LoadResult:
    total = index.nbytes + (len(identity) if identity is not None else 0)
    note = (f"instructions load {total:,} B into every turn "
            f"(MEMORY.md {index.nbytes:,} + identity.md {total - index.nbytes:,})")
    if identity is None:
        note += "; identity.md is missing"
    return LoadResult("opencode", total, total, None, None, None, (), None, note)


def _read_limit(index: HotIndex, limits: Limits) -> LoadResult:
    size = index.nbytes
    if size <= limits.read_limit:
        return LoadResult("read-limit", size, size, None, None, None, (), None,
                          f"within the {limits.read_limit:,} B read limit ({limits.read_limit - size:,} B to spare)")
    cut = limits.read_limit
    cut_line, dropped, partial = _cut_at(index, cut)
    note = f"{size - cut:,} B past the {cut:,} B read limit"
    if partial is not None:
        note += f"; entry {partial.id} (line {partial.line}) is cut in the middle"
    return LoadResult("read-limit", cut, size, cut_line, cut, None, dropped, partial, note)


def simulate(
    index: HotIndex,
    identity_bytes: int | bytes | None,
    profile: str,
    limits: Limits = Limits(),
    *,
    memory_dir: str = DEFAULT_SOURCE,
) -> LoadResult:
    """What ``profile`` loads of this index and identity.md (its bytes, or its size; ``None`` when it
    does not exist). ``memory_dir`` is the path the kimi-code hook names in its wrapper."""
    identity = _content(identity_bytes)
    if profile == "claude-code":
        return _claude(index)
    if profile == "kimi-code":
        return _kimi(index, identity, memory_dir)
    if profile == "opencode":
        return _opencode(index, identity)
    if profile == "read-limit":
        return _read_limit(index, limits)
    raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
