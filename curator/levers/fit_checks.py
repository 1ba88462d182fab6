"""What fit's steps are checked against: a rewritten entry keeps its shape, no new line starts
with a piece of a sentence, and every clause of MEMORY.md's changed lines is still in a live file."""

from __future__ import annotations

import re

from curator.constants import INDEX_NAME
from curator.index_model import BOM, LIST_MARKER
from curator.levers import merge, trim
from curator.levers.text import clauses

# What no line may begin with unless it did: a piece of a sentence whose head is gone.
_BROKEN_START = re.compile(r"^(?:→|->|=>|[)\]},;:.。，；：、])")
_DESTINATION = re.compile(r"\]\([^)]*\)")


def well_formed(old: str, new: str) -> bool:
    """``new`` (an entry's rewritten text) keeps the shape of ``old``: the same list marker, and no
    line starts with a piece of a sentence (an arrow, a closing bracket, punctuation) that did not."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    if len(old_lines) != len(new_lines):
        return False
    for before, after in zip(old_lines, new_lines):
        lead_before, lead_after = LIST_MARKER.match(before), LIST_MARKER.match(after)
        if (lead_before.group(0) if lead_before else "") != (lead_after.group(0) if lead_after else ""):
            return False
        body_before = before[lead_before.end() if lead_before else 0:].lstrip()
        body_after = after[lead_after.end() if lead_after else 0:].lstrip()
        if _BROKEN_START.match(body_after) and not _BROKEN_START.match(body_before):
            return False
    return True


def _plain(text: str) -> str:
    """Whitespace-normalised text with link destinations cut (a moved link may be rebased)."""
    return " ".join(_DESTINATION.sub("]()", text).split())


def broken_lines(before: bytes, after: bytes) -> list[str]:
    """MEMORY.md lines of ``after`` that ``before`` did not have and that start with a piece of a
    sentence (an arrow, a closing bracket, punctuation) after their list marker. Empty: none."""
    old = set(before.removeprefix(BOM).decode("utf-8", "replace").splitlines())
    out = []
    for line in after.removeprefix(BOM).decode("utf-8", "replace").splitlines():
        marker = LIST_MARKER.match(line)
        if line not in old and _BROKEN_START.match(line[marker.end() if marker else 0:].lstrip()):
            out.append(line)
    return out


def unkept_clauses(before: bytes, files_after: dict[str, bytes | None]) -> list[str]:
    """Clauses of MEMORY.md's removed or changed lines that no live memory file holds verbatim
    (link destinations aside: moving text rebases them; a lesson mark such as `` → `` parts two
    clauses, as a split does; a tighten's fixed rewording of filler counts as the clause). Empty:
    nothing was lost."""
    old_lines = before.removeprefix(BOM).decode("utf-8", "replace").splitlines()
    new_index = (files_after.get(INDEX_NAME) or b"").removeprefix(BOM).decode("utf-8", "replace")
    kept = set(new_index.splitlines())
    live = "\n".join(_plain((data or b"").decode("utf-8", "replace")) for data in files_after.values())
    missing = []
    for line in old_lines:
        if line in kept or not line.strip():
            continue
        body = merge.LIST_MARKER.sub("", line.strip(), count=1)
        for clause in clauses(body):
            # A split keeps the lesson from its mark on ("story → fix"): each side is a clause of its own.
            for part in trim.LESSON_MARK.split(clause):
                said = part.strip()
                # A tighten's fixed rewording (trim proves it keeps every fact) keeps the clause too.
                if said and _plain(said) not in live and _plain(trim._tighten(said)) not in live:
                    missing.append(said)
    return missing
