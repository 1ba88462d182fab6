"""The byte meter: how big the hot index is, against the target and the read limit.

Bytes are the file's bytes as on disk (what ``wc -c`` prints), never characters. KB = 1000 bytes.
The app calls ``measure`` on every keystroke, so it does no parsing when handed raw bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the meter itself never parses: importing the model would load markdown-it
    from curator.index_model import HotIndex


@dataclass(frozen=True)
class Limits:
    """Target 17,000 B and read limit 24,600 B by default (KB = 1000 B); both configurable."""

    target: int = 17_000
    read_limit: int = 24_600

    def __post_init__(self) -> None:
        if self.target <= 0 or self.read_limit <= 0:
            raise ValueError("target and read limit must be positive byte counts")
        if self.target > self.read_limit:
            raise ValueError(f"target ({self.target:,} B) is above the read limit ({self.read_limit:,} B)")

    def zone(self, nbytes: int) -> str:
        if nbytes > self.read_limit:
            return "over-limit"
        if nbytes > self.target:
            return "over-target"
        return "ok"


@dataclass(frozen=True)
class Meter:
    bytes: int
    lines: int
    zone: str
    target: int
    read_limit: int

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
