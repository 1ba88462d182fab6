"""The byte meter: how big the hot index is, against the target and the read limit.

Bytes are the file's bytes as on disk (what ``wc -c`` prints), never characters. KB = 1000 bytes.
The app calls ``measure`` on every keystroke, so it does no parsing when handed raw bytes. For a
Claude Code seat it calls ``claude_code_measure``: the bytes that harness loads (it strips YAML
frontmatter and block-level HTML comments first) against the same limits, the bytes on disk beside.

A Claude Code seat has a budget of its own beside the byte target: its harness loads 200 lines or
25,000 characters (JavaScript's count), whichever binds first. ``claude_code_budget`` gives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from curator import claude_loader
from curator.constants import READ_LIMIT_BYTES, TARGET_BYTES

if TYPE_CHECKING:  # the meter itself never parses: importing the model would load markdown-it
    from curator.index_model import HotIndex


Zone = Literal["ok", "over-target", "over-limit"]  # under the target, between target and read limit, past it


@dataclass(frozen=True)
class Limits:
    """Target 17,000 B and read limit 24,600 B by default (KB = 1000 B); both configurable."""

    target: int = TARGET_BYTES
    read_limit: int = READ_LIMIT_BYTES

    def __post_init__(self) -> None:
        if self.target <= 0 or self.read_limit <= 0:
            raise ValueError("target and read limit must be positive byte counts")
        if self.target > self.read_limit:
            raise ValueError(f"target ({self.target:,} B) is above the read limit ({self.read_limit:,} B)")

    def zone(self, nbytes: int) -> Zone:
        if nbytes > self.read_limit:
            return "over-limit"
        if nbytes > self.target:
            return "over-target"
        return "ok"


@dataclass(frozen=True)
class Meter:
    bytes: int
    lines: int
    zone: Zone
    target: int
    read_limit: int
    # A Claude Code seat: ``bytes`` is what that harness loads (frontmatter and comment blocks
    # stripped), ``on_disk`` the file's own bytes, ``loaded_by`` the harness. Elsewhere None and "".
    on_disk: int | None = None
    loaded_by: str = ""

    @property
    def headroom_target(self) -> int:
        """Bytes left before the target; negative when over it."""
        return self.target - self.bytes

    @property
    def headroom_read_limit(self) -> int:
        """Bytes left before the read limit; negative when over it."""
        return self.read_limit - self.bytes


def count_lines(raw: bytes) -> int:
    """Lines as the index model counts them (a last line without a newline still counts)."""
    return len(raw.splitlines())


def measure(index_or_bytes: HotIndex | bytes, limits: Limits = Limits()) -> Meter:
    if isinstance(index_or_bytes, (bytes, bytearray, memoryview)):
        raw = bytes(index_or_bytes)
        nbytes, lines = len(raw), count_lines(raw)
    else:  # a parsed HotIndex already knows both
        nbytes, lines = index_or_bytes.nbytes, index_or_bytes.line_count
    return Meter(nbytes, lines, limits.zone(nbytes), limits.target, limits.read_limit)


def claude_code_measure(raw: bytes, limits: Limits = Limits()) -> Meter:
    """The meter of a Claude Code seat: the bytes Claude Code loads (its zone against the target and
    the read limit), with the bytes on disk beside them."""
    loaded = claude_loader.loaded_bytes(raw)
    return Meter(loaded, count_lines(raw), limits.zone(loaded), limits.target, limits.read_limit,
                 on_disk=len(raw), loaded_by="Claude Code")


@dataclass(frozen=True)
class HarnessBudget:
    """A harness's own load budget for MEMORY.md, counted the way that harness counts."""

    harness: str
    lines: int
    line_cap: int
    chars: int  # characters as the harness counts them (Claude Code: UTF-16 code units)
    char_cap: int

    @property
    def over(self) -> bool:
        """True when the harness cuts the index: something past the cut never loads."""
        return self.lines > self.line_cap or self.chars > self.char_cap

    @property
    def lines_left(self) -> int:
        return self.line_cap - self.lines

    @property
    def chars_left(self) -> int:
        return self.char_cap - self.chars

    def describe(self) -> str:
        """One line for a meter: ``claude-code 122/200 lines · 13,012/25,000 chars``."""
        return (f"{self.harness} {self.lines:,}/{self.line_cap} lines · "
                f"{self.chars:,}/{self.char_cap:,} chars" + (" · CUT" if self.over else ""))


def claude_code_budget(raw: bytes) -> HarnessBudget:
    """A Claude Code seat's own budget for this MEMORY.md: lines and characters used, counted as the
    harness counts them (after trimming, UTF-16 code units), against 200 lines and 25,000 characters."""
    text = claude_loader.decode(raw)
    if "---" in text[:3] or "<!--" in text:  # the harness never counts frontmatter or comment blocks
        text = claude_loader.strip_hidden(text)
    trimmed = text.strip(claude_loader.JS_WHITESPACE)
    return HarnessBudget("claude-code", trimmed.count("\n") + 1 if trimmed else 0, claude_loader.LINE_CAP,
                         claude_loader.units(trimmed), claude_loader.CHAR_CAP)
