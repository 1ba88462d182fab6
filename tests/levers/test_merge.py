"""Merge-facet: candidates, the default merged line, and the pointer re-check that refuses losses."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.errors import InputError
from curator.index_model import parse_index
from curator.levers.merge import (LOOSE_SAID, REPEATED_SHARE, SIMILAR, MergeRefused, find_candidates,
                                  merged_entry_text, plan_merge)
from curator.levers.similarity import Weights, entry_words
from curator.pointers import check_pointers
from curator.store import SeatStore

INDEX = (
    "# Seat memory index\n"
    "\n"
    "## Craft hooks\n"
    "- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays.\n"
    "- Always deploy with `make ship`, never on Fridays; ask ops first (see #4412).\n"
    "- [Tests](tests.md) — run pytest with -q before pushing.\n"
    "- Unrelated lesson about the cache eviction order.\n"
    "\n"
    "## Hard rules (they bit; don't relearn)\n"
    "- [Release checklist](deploy.md#release) — tag, then push the tag.\n"
)


@pytest.fixture
def seat(tmp_path: Path) -> Path:
    (tmp_path / "MEMORY.md").write_text(INDEX)
    (tmp_path / "deploy.md").write_text("# Deploy\n\n## Release\n\ntag it\n")
    (tmp_path / "tests.md").write_text("# Tests\n")
    return tmp_path


def ids(seat: Path) -> list[str]:
    return [e.id for e in parse_index((seat / "MEMORY.md").read_bytes()).entries]


def targets(raw: bytes) -> set[str]:
    return {link.target for link in parse_index(raw).links}


def test_candidates_are_entries_that_say_the_same_thing_not_just_share_a_file(seat):
    index = parse_index((seat / "MEMORY.md").read_bytes())
    found = find_candidates(index)
    a, b, c, d, e = ids(seat)
    assert found[0].entry_ids == (a, b)
    # a and e both link to deploy.md but teach different things: not a merge candidate.
    assert all(x.entry_ids != (a, e) for x in found)
    wording = [x for x in found if x.entry_ids == (a, b)]
    # The score is the idf-weighted word overlap (0-100, see curator.levers.similarity); a pair needs
    # LOOSE_SAID of it and a merge that saves most of the shorter entry.
    assert wording and wording[0].score >= 100 * LOOSE_SAID and wording[0].section == "Craft hooks"
    assert wording[0].bytes_saved >= REPEATED_SHARE * index.entry(b).nbytes or wording[0].score >= SIMILAR
    assert all(d not in x.entry_ids for x in found)  # the cache lesson matches nothing
    # bytes_saved is what the default merge really saves.
    change = plan_merge(seat, index, [a, b])
    assert wording[0].bytes_saved == change.bytes_saved == len(index.raw) - len(change.files["MEMORY.md"])


def test_default_merge_keeps_every_pointer_and_the_first_lesson(seat):
    index = parse_index((seat / "MEMORY.md").read_bytes())
    a, b, *_ = ids(seat)
    change = plan_merge(seat, index, [a, b])
    new = change.files["MEMORY.md"]
    merged = parse_index(new).entries[0]
    assert merged.text.startswith("- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays.")
    assert "ask ops first (see #4412)" in merged.text  # the distinct facet survives
    assert merged.text.count("make ship") == 1  # the repeated facet does not
    assert targets(new) == targets(index.raw)  # every pointer, record ids included
    assert len(parse_index(new).entries) == len(index.entries) - 1
    assert change.warnings == () and change.kind == "merge"
    # Untouched bytes stay identical: everything after the removed line is the same.
    assert new.endswith(INDEX.split("- Always deploy")[1].split("\n", 1)[1].encode())


def test_merge_that_would_orphan_a_detail_file_is_refused_with_the_list(seat):
    index = parse_index((seat / "MEMORY.md").read_bytes())
    a, _b, c, *_ = ids(seat)
    with pytest.raises(MergeRefused) as err:
        plan_merge(seat, index, [a, c], text="deploy and test carefully")
    lost = err.value.lost
    assert "pointer tests.md (not kept in the merged text)" in lost
    assert "detail file tests.md would be orphaned" in lost
    assert "pointer deploy.md (not kept in the merged text)" in lost
    # deploy.md is still linked from the Hard rules entry, so it is not orphaned.
    assert "detail file deploy.md would be orphaned" not in lost


def test_forced_merge_that_drops_a_pointer_is_reported(seat, tmp_path):
    index = parse_index((seat / "MEMORY.md").read_bytes())
    a, _b, c, *_ = ids(seat)
    with pytest.raises(MergeRefused):
        plan_merge(seat, index, [a, c], drop_pointers=["tests.md"])  # orphans tests.md: refused
    change = plan_merge(seat, index, [a, c], drop_pointers=["tests.md"], force=True)
    assert "dropped pointer tests.md" in change.warnings
    assert "orphaned detail file tests.md" in change.warnings
    new = change.files["MEMORY.md"]
    assert "tests.md" not in targets(new) and "deploy.md" in targets(new)
    assert "Tests" in parse_index(new).entries[0].text  # the link's text stays, only the target goes
    store = SeatStore.open(seat, state_dir=tmp_path / "state")
    store.read("MEMORY.md")
    store.apply(change)
    assert check_pointers(seat).orphans == ["tests.md"]


def test_explicit_text_keeping_every_pointer_is_accepted(seat):
    index = parse_index((seat / "MEMORY.md").read_bytes())
    a, b, *_ = ids(seat)
    change = plan_merge(seat, index, [a, b], text="[Deploy notes](deploy.md) — `make ship`, not Fridays, ask ops (#4412)")
    first = parse_index(change.files["MEMORY.md"]).entries[0]
    assert first.text == "- [Deploy notes](deploy.md) — `make ship`, not Fridays, ask ops (#4412)"


def test_bad_merge_arguments(seat):
    index = parse_index((seat / "MEMORY.md").read_bytes())
    a, b, *_ = ids(seat)
    with pytest.raises(InputError):
        plan_merge(seat, index, [a])
    with pytest.raises(InputError):
        plan_merge(seat, index, [a, "ffffff"])
    with pytest.raises(InputError):
        plan_merge(seat, index, [a, b], drop_pointers=["nowhere.md"])
    with pytest.raises(InputError):
        plan_merge(seat, index, [a, b], text="two\nlines")


def test_crlf_file_keeps_its_line_endings(tmp_path):
    raw = INDEX.replace("\n", "\r\n").encode()
    (tmp_path / "MEMORY.md").write_bytes(raw)
    (tmp_path / "deploy.md").write_text("# Deploy\n\n## Release\n")
    (tmp_path / "tests.md").write_text("# Tests\n")
    index = parse_index(raw)
    a, b, *_ = [e.id for e in index.entries]
    new = plan_merge(tmp_path, index, [a, b]).files["MEMORY.md"]
    assert new.count(b"\n") == new.count(b"\r\n")


def test_inverted_index_pairs_equal_the_pairwise_loop_for_every_pair_sharing_a_rare_word():
    corpus = sorted(Path("/work/shared/corpus").rglob("MEMORY.md")) if Path("/work/shared/corpus").exists() else []
    entries = [e for p in corpus[:6] for e in parse_index(p.read_bytes()).entries]
    if len(entries) < 50:
        pytest.skip("corpus not available")
    words = Weights([entry_words(e) for e in entries])
    found = words.pairs()
    slow = {}
    for i in range(len(entries)):
        for j in range(i + 1, len(entries)):
            rare = [w for w in words.words[i] & words.words[j] if words.df[w] <= words.common]
            if rare:
                slow[(i, j)] = sum(words.idf[w] for w in rare)
    assert found.keys() == slow.keys()
    assert all(abs(found[k] - slow[k]) < 1e-9 for k in found)
    assert len(found) >= 50  # the check compares real matches, not two empty sets
    # The bound that skips scoring never skips a pair that reaches the threshold.
    for (i, j), rare in found.items():
        if words.score(i, j).dice >= LOOSE_SAID:
            assert words.may_reach(i, j, rare, LOOSE_SAID)


def test_the_demo_seats_deliberate_paraphrases_are_the_candidates():
    """The grown example seat holds four pairs written to say the same thing. The two whose merge
    keeps every fact and still saves bytes are found; the two pure paraphrases (each fact said in other
    words) are not: without rewording, their merge keeps both wordings and saves almost nothing. The
    many entries that merely link to the same detail file are not candidates either."""
    from curator.demo import example_memory

    index = parse_index(example_memory("wren")["MEMORY.md"])
    found = find_candidates(index)
    starts = {tuple(index.entry(i).text.split()[1:3]) for c in found for i in c.entry_ids}
    assert len(found) == 2
    assert starts == {("Reproduce", "a"), ("Never", "force-push")}
    assert all(c.bytes_saved >= 40 for c in found)
    for first, second in ((("Let", "a"), ("Summarise", "long")), (("Declared", "a"), ("Declared", "work"))):
        pair = [e for e in index.entries if tuple(e.text.split()[1:3]) in (first, second)]
        assert len(pair) == 2
        merged = merged_entry_text(index, pair)
        assert len(merged.encode()) >= sum(e.nbytes for e in pair) - 20  # both wordings kept
