"""Load simulation: what each harness actually puts in the model's context, and what it leaves out.

No harness tells its user which memory lines it dropped; this module names them, by section and
text. Profiles:

- ``claude-code``: the native loader keeps the first 200 lines, or up to the last newline within
  25,000 characters counted as JavaScript does (UTF-16 code units, not bytes), whichever binds
  first, and appends a ``> WARNING:`` line naming the cut (``curator.claude_loader`` is the rule).
- ``kimi-code``: the identity-anchor hook injects MEMORY.md + identity.md whole, inside its
  ``<seat-memory-layer …>`` wrapper, at session boot and after a compaction.
- ``opencode``: ``instructions`` carries MEMORY.md + identity.md whole into every turn.
- ``read-limit``: our own budget; everything past the read limit counts as lost.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from curator import claude_loader
from curator.index_model import Entry, HotIndex
from curator.meter import Limits
from generators.hook_format import TRIGGER_BOOT, injected_bytes

CLAUDE_LINE_CAP = claude_loader.LINE_CAP
CLAUDE_CHAR_CAP = claude_loader.CHAR_CAP

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
    # claude-code past its cut: the ``> WARNING: …`` line the harness appends, exactly as it prints it.
    warning: str | None = None

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


def _hidden_bytes(text: str, hidden: list[tuple[int, int]], upto: int) -> int:
    """UTF-8 bytes of the stripped spans (frontmatter, comment blocks) before character ``upto``."""
    return sum(len(text[s:min(e, upto)].encode("utf-8", "surrogatepass")) for s, e in hidden if s < upto)


def _claude(index: HotIndex) -> LoadResult:
    raw = index.raw
    text = claude_loader.decode(raw)
    hidden = claude_loader.hidden_spans(text)  # frontmatter and comment blocks: never loaded, never counted
    load = claude_loader.load(claude_loader.strip_hidden(text, hidden))
    stripped = f"; frontmatter and comment blocks ({_hidden_bytes(text, hidden, len(text)):,} B) are stripped " \
               "first" if hidden else ""
    if not load.truncated:
        loaded = len(raw) - _hidden_bytes(text, hidden, len(text))
        return LoadResult("claude-code", loaded, len(raw), None, None, CLAUDE_LINE_CAP, (), None,
                          f"all {load.line_count} lines ({load.char_count:,} characters, {loaded:,} B) load at "
                          f"session start and after compaction; caps: {CLAUDE_LINE_CAP} lines, "
                          f"{CLAUDE_CHAR_CAP:,} characters{stripped}")
    # Where loading stops, in the file's bytes: past the trimmed lead and the loaded text, and past
    # the newline that ends the last whole line (a cut inside line 1 stops mid-line).
    stop = claude_loader.original_index(load.lead_chars + len(load.loaded) + (1 if load.whole_lines else 0), hidden)
    cut = stop if text.isascii() else len(text[:stop].encode("utf-8"))
    if "\ufffd" in text:  # invalid bytes decoded as U+FFFD count 3 bytes each here: stay inside the file
        cut = min(cut, len(raw))
    cut_line, dropped, partial = _cut_at(index, cut)
    lost = len(raw) - cut
    loads = (f"lines 1–{cut_line} ({claude_loader.units(load.loaded):,} characters, {cut:,} B) load" if load.whole_lines
             else f"only the first {claude_loader.units(load.loaded):,} characters of line 1 load")
    said = f"from line {load.whole_lines + 1} on" if load.whole_lines else "past that point"
    note = (f"{load.binding} binds: {loads}; lines {cut_line + 1}–{index.line_count} ({lost:,} B) never reach "
            f"the model, and Claude Code's WARNING says they were cut ({said}, as it counts lines){stripped}")
    loaded = cut - _hidden_bytes(text, hidden, stop) if hidden else cut
    return LoadResult("claude-code", loaded, len(raw), cut_line, cut, CLAUDE_LINE_CAP, dropped, partial, note,
                      load.warning)


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
