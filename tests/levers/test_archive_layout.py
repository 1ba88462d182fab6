"""Archiving entries leaves MEMORY.md laid out as if they had never been there: one blank line where
the file had one between their neighbours, never two runs of blank lines joined. Restoring them, in
file order or the other way round, still gives back the original bytes."""

from __future__ import annotations

import random
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from curator.index_model import parse_index
from curator.levers.archive import ARCHIVE_NAME, plan_archive, plan_restore, with_archive_pointer
from curator.store import SeatStore
from tests.support.indexes import random_index
DAY = date(2026, 11, 29)

# (index, texts of the entries archived together, MEMORY.md as the archive must leave it)
LAYOUTS = {
    "run-under-a-heading": ("## H\n\n- a\n- b\n\n## N\n- c\n", ["a", "b"], "## H\n\n## N\n- c\n"),
    "run-at-the-end": ("## H\n- x\n\n- a\n- b\n\n## N\n- c\n", ["a", "b"], "## H\n- x\n\n## N\n- c\n"),
    "run-in-the-middle": ("## H\n- x\n\n- a\n- b\n\n- y\n", ["a", "b"], "## H\n- x\n\n- y\n"),
    "loose-list-head": ("## H\n\n- a\n\n- b\n\n- c\n\n## N\n", ["a", "b"], "## H\n\n- c\n\n## N\n"),
    "loose-list-tail": ("## H\n\n- a\n\n- b\n\n- c\n\n## N\n", ["b", "c"], "## H\n\n- a\n\n## N\n"),
    "loose-list-one": ("## H\n\n- a\n\n- b\n\n- c\n", ["b"], "## H\n\n- a\n\n- c\n"),
    "two-blank-lines-stay-two": ("## H\n- x\n\n\n- a\n\n- y\n", ["a"], "## H\n- x\n\n\n- y\n"),
    "item-and-paragraph": ("## H\n\n- a\n\nSome prose.\n\n## N\n", ["a", "Some prose."], "## H\n\n## N\n"),
    "at-the-end-of-the-file": ("## H\n- x\n\n- a\n- b\n\n", ["a", "b"], "## H\n- x\n\n"),
}
CASES = [(name, newline) for name in LAYOUTS for newline in ("\n", "\r\n")]


def _seat(tmp_path: Path, raw: bytes) -> tuple[Path, SeatStore]:
    memory = tmp_path / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_bytes(raw)
    return memory, SeatStore.open(memory, state_dir=tmp_path / "state")


def _restore_all(memory: Path, store: SeatStore, order: str) -> bytes:
    archived = [e.id for e in parse_index(store.read(ARCHIVE_NAME)).entries]
    for archived_id in archived if order == "file order" else archived[::-1]:
        store.apply(plan_restore(memory, parse_index(store.read("MEMORY.md")), archived_id))
    return store.read("MEMORY.md")


@pytest.mark.parametrize("order", ["file order", "reverse order"])
@pytest.mark.parametrize(("layout", "newline"), CASES, ids=[f"{n}-{'crlf' if nl == chr(13) + chr(10) else 'lf'}"
                                                          for n, nl in CASES])
def test_archive_leaves_the_layout_and_restore_gives_the_bytes_back(tmp_path: Path, layout: str, newline: str,
                                                                    order: str) -> None:
    text, going, left = LAYOUTS[layout]
    raw = text.replace("\n", newline).encode()
    memory, store = _seat(tmp_path, raw)
    index = parse_index(raw)
    ids = [e.id for e in index.entries if e.text.removeprefix("- ") in going]
    assert len(ids) == len(going)
    store.apply(plan_archive(memory, index, ids, today=DAY))
    # The layout left is the one without the entries, plus the line that leads to ARCHIVE.md.
    assert store.read("MEMORY.md") == with_archive_pointer(left.replace("\n", newline).encode())
    assert _restore_all(memory, store, order) == raw


def _longest_blank_run(raw: bytes) -> int:
    longest = run = 0
    for line in raw.splitlines():
        run = run + 1 if not line.strip() else 0
        longest = max(longest, run)
    return longest


def _groups(count: int = 150, seed: int = 20261202) -> list[tuple[bytes, list[str]]]:
    """Random indexes, each with a run of 2-4 entries that follow each other in one section."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        raw = random_index(rng)
        sections = [s for s in parse_index(raw).sections if len(s.entry_ids) >= 2]
        if sections:
            ids = rng.choice(sections).entry_ids
            size = rng.randint(2, min(4, len(ids)))
            first = rng.randrange(len(ids) - size + 1)
            out.append((raw, list(ids[first : first + size])))
    return out


def _exact_expected(raw: bytes, index, ids: list[str], archived, order: str) -> bool:
    """Whether restoring the run must give back the very bytes. Not where that is impossible with
    what a stamp records: taking the run out made another entry something else (its neighbour is
    then no entry to come back beside); the run ended a file without a final line ending (only the
    entry restored first can be the unended last line, so the line endings of the others move);
    a run of Hermes ``§`` blocks restored last-first (each § line went with one block, and a block
    that comes back before the block that carried the § line between them brings its own)."""
    if {e.id for e in archived.entries} != {e.id for e in index.entries} - set(ids):
        return False
    if not raw.endswith((b"\n", b"\r")) and index.entry(ids[-1]).end_offset == len(raw):
        return False
    return not (order == "reverse order" and any(index.entry(i).kind == "hermes" for i in ids))


@pytest.mark.slow
@pytest.mark.parametrize("case", range(150))
def test_a_run_of_entries_comes_back_in_either_order(tmp_path: Path, case: int, _groups=_groups()) -> None:
    raw, ids = _groups[case]
    for order in ("file order", "reverse order"):
        memory, store = _seat(tmp_path / order.replace(" ", "-"), raw)
        index = parse_index(raw)
        store.apply(plan_archive(memory, index, ids, today=DAY))
        archived = parse_index(store.read("MEMORY.md"))
        if {index.entry(i).kind for i in ids} == {"item"} and raw.endswith((b"\n", b"\r")):
            # Items leave no longer run of blank lines than the file had (paragraphs take their own).
            assert _longest_blank_run(archived.raw) <= _longest_blank_run(raw) or _glued_around(index, ids)
        back = _restore_all(memory, store, order)
        if _exact_expected(raw, index, ids, archived, order):
            assert back == raw, (order, raw, back)
        else:  # nothing lost, nothing doubled: the same lines that say something
            assert Counter(line for line in back.splitlines() if line.strip()) == \
                Counter(line for line in raw.splitlines() if line.strip()), (order, raw, back)


def _glued_around(index, ids: list[str]) -> bool:
    """Whether a block that an item glues to (a paragraph, a table row) sits right above or below the
    run's blank lines: there the run keeps them, so that each entry, restored first, still lands
    apart from it."""
    from curator.levers.placement import line_kinds, needs_blank

    kinds = line_kinds(index)
    first, last = index.entry(ids[0]).line - 2, index.entry(ids[-1]).end_line
    while first >= 0 and kinds[first] == "blank":
        first -= 1
    while last < len(kinds) and kinds[last] == "blank":
        last += 1
    return (first >= 0 and needs_blank(kinds[first], "item")) or (last < len(kinds) and needs_blank("item", kinds[last]))
