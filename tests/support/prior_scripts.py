"""Earlier generations of the fleet's seat scripts, as an earlier seat-curator wrote them into a seat.

The sources are real ones from this repository's history, in tests/data/prior_generations
(``git show <commit>:generators/scripts/<name>``, as committed); ``as_emitted_for`` fills in a
seat's literals the way seat-curator fills them."""

from __future__ import annotations

import re
from pathlib import Path

PRIOR = Path(__file__).parent.parent / "data" / "prior_generations"
HOOK_71C2C7F = PRIOR / "identity_anchor_hook.71c2c7f.py.txt"  # the hook as it first served Claude Code too
WAKE_ECC5401 = PRIOR / "write_wake_envelope.ecc5401.py.txt"  # the wake-envelope script as first committed
LITERAL = re.compile(rb"^(\w+) = .*  # seat-curator:literal$", re.MULTILINE)


def as_emitted_for(source: bytes, current: bytes) -> bytes:
    """An earlier script's source with its literals filled as seat-curator fills them for the seat
    whose current script is ``current`` (its literal lines, line for line)."""
    values = {m.group(1): m.group(0) for m in LITERAL.finditer(current)}
    return LITERAL.sub(lambda m: values[m.group(1)], source)


def make_outdated(script: Path, source: Path = HOOK_71C2C7F) -> bytes:
    """Put the earlier generation ``source`` in place of the seat's ``script``; returns its bytes."""
    old = as_emitted_for(source.read_bytes(), script.read_bytes())
    script.write_bytes(old)
    return old
