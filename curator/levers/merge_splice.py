"""The byte edits a merge makes to the index, and what they save without building the new file."""

from __future__ import annotations

from curator.index_model import Entry, HotIndex
from curator.levers.merge_text import PROSE
from curator.levers.placement import removal_spans
from curator.levers.text import content_end, entry_start

def replace_group(index: HotIndex, group: list[Entry], merged: str) -> bytes:
    """The new index bytes: ``merged`` where the first entry was (its last line ending kept), the
    others removed. Inner line breaks use the file's own line ending."""
    return index.splice(group_edits(index, group, merged))


def group_edits(index: HotIndex, group: list[Entry], merged: str) -> list[tuple[int, int, bytes]]:
    """The splice edits of ``replace_group`` (disjoint groups' edits can share one splice)."""
    first = group[0]
    new_bytes = merged.replace("\n", index.newline.decode()).encode("utf-8")
    edits = [(entry_start(index, first), content_end(index, first.end_line), new_bytes)]
    edits += [(start, end, b"") for start, end in _removed(index, group[1:])]  # the BOM stays
    return edits


def _removed(index: HotIndex, others: list[Entry]) -> list[tuple[int, int]]:
    """The byte ranges the entries merged away take: their own lines, and a paragraph's blank line
    or a § block's § line with it (``curator.levers.placement``), so the blocks around stay apart."""
    if all(entry.kind not in PROSE for entry in others):
        return [(entry_start(index, entry), entry.end_offset) for entry in others]
    return removal_spans(index, others)


def bytes_saved(index: HotIndex, group: list[Entry], merged: str) -> int:
    """``len(index.raw) - len(replace_group(index, group, merged))`` for distinct entries, by the
    lengths of the same edits alone: costing a list of candidates need not build each new file."""
    first = group[0]
    new_length = len(merged.encode("utf-8")) + merged.count("\n") * (len(index.newline) - 1)
    replaced = content_end(index, first.end_line) - entry_start(index, first)
    return replaced - new_length + sum(end - start for start, end in _removed(index, group[1:]))
