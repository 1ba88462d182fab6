"""Archive then restore, on random small indexes: the entry comes back byte for byte, at its place.

Each case is a seeded random index (sections at levels 1-3, list items with continuation lines and
nested bullets, loose lists, paragraphs, tables, quotes, code, Hermes ``§`` files, a preamble or
none, entries above the first heading, files without a heading; 0-2 blank lines between blocks,
some holding spaces or tabs; CRLF, a BOM, a final line ending or none, trailing blank lines) and
one of its entries: ``plan_archive`` → apply → ``plan_restore`` → apply must give the file back.

Where exactness is impossible: an entry whose removal changes what a neighbour *is* (a bullet
indented under the item before it once the entry between them is gone becomes that item's nested
bullet). The neighbour the stamp names is then no entry any more, so the place is lost with it;
there the test asserts the strongest true property: the same lines come back, the entry in its own
section. ``python -m tests.levers.test_archive_fuzz [cases] [seed]`` prints the identical rate.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from curator.index_model import HotIndex, parse_index
from curator.levers.archive import ARCHIVE_NAME, ARCHIVE_POINTER, plan_archive, plan_restore
from curator.store import SeatStore
from tests.support.indexes import random_index

DAY = date(2026, 11, 29)
SEED = 20261201
CASES = 300


def cases(count: int = CASES, seed: int = SEED) -> list[tuple[bytes, str]]:
    """(index bytes, id of the entry to archive), the same every run."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        raw = random_index(rng)
        entries = parse_index(raw).entries
        if entries:
            out.append((raw, rng.choice(entries).id))
    return out


def round_trip(memory: Path, raw: bytes, entry_id: str) -> tuple[HotIndex, bytes]:
    """(MEMORY.md as the archive leaves it, MEMORY.md once the entry is restored), written through
    the store."""
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_bytes(raw)
    (memory / "notes.md").write_text("# Notes\n")
    store = SeatStore.open(memory, state_dir=memory.parent / f"{memory.name}-state")
    store.apply(plan_archive(memory, parse_index(store.read("MEMORY.md")), [entry_id], today=DAY))
    archived = parse_index(store.read("MEMORY.md"))
    archive = parse_index(store.read(ARCHIVE_NAME))
    (restored,) = archive.entries
    store.apply(plan_restore(memory, archived, restored.id))
    assert store.read(ARCHIVE_NAME).count(b"\n## ") == 0  # its archive heading went with it
    return archived, (memory / "MEMORY.md").read_bytes()


def neighbours_changed(raw: bytes, entry_id: str, archived: HotIndex) -> bool:
    """Whether taking the entry out made another entry something else (merged, or no entry). (The
    line the archive adds to lead to ARCHIVE.md is no neighbour.)"""
    left = {e.id for e in archived.entries if ARCHIVE_POINTER not in e.text}
    return left != {e.id for e in parse_index(raw).entries} - {entry_id}


@pytest.mark.slow
@pytest.mark.parametrize("case", range(CASES))
def test_archive_then_restore_gives_back_the_same_bytes(tmp_path: Path, case: int, _cases=cases()) -> None:
    raw, entry_id = _cases[case]
    archived, back = round_trip(tmp_path / "memory", raw, entry_id)
    if back == raw:
        return
    assert neighbours_changed(raw, entry_id, archived), (raw, back)  # any other layout must be exact
    assert Counter(back.splitlines()) == Counter(raw.splitlines())
    entry = parse_index(raw).entry(entry_id)
    assert parse_index(back).entry(entry_id).section == entry.section


def identical_rate(count: int = CASES, seed: int = SEED) -> tuple[int, int, Counter, Counter]:
    import tempfile

    same, total, kinds, same_kinds = 0, 0, Counter(), Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for n, (raw, entry_id) in enumerate(cases(count, seed)):
            kind = parse_index(raw).entry(entry_id).kind
            total, kinds[kind] = total + 1, kinds[kind] + 1
            try:
                _archived, back = round_trip(Path(tmp) / str(n), raw, entry_id)
            except Exception:  # noqa: BLE001 - a failed round trip is a miss, counted as such
                continue
            if back == raw:
                same, same_kinds[kind] = same + 1, same_kinds[kind] + 1
    return same, total, kinds, same_kinds


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else CASES
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else SEED
    same, total, kinds, same_kinds = identical_rate(count, seed)
    by_kind = ", ".join(f"{kind} {same_kinds[kind]}/{n}" for kind, n in sorted(kinds.items()))
    print(f"byte-identical after archive → restore: {same}/{total} = {same / total:.1%} ({by_kind})")
