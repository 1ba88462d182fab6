"""A seat whose one merge candidate is two entries indexing one detail file (a link and a wikilink)."""

from __future__ import annotations

from pathlib import Path

LINKED_PAIR_INDEX = (
    "# Index\n"
    "- [Release lane](release_lane.md) — tokens rotate monthly\n"
    "- [[release_lane]] — tag, canary, promote\n"
    "- The nightly crawler backs off for an hour after a 429 from the league site.\n"
    "- Parser pinned to 4.3 until the table plugin settles down.\n"
)


def write_linked_pair_seat(memory: Path) -> Path:
    """MEMORY.md (``LINKED_PAIR_INDEX``) and the detail file both entries index."""
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "MEMORY.md").write_text(LINKED_PAIR_INDEX)
    (memory / "release_lane.md").write_text("# Release lane\n")
    return memory
