"""Costing merge candidates without building each new file gives exactly the spliced result, the
fast word split is the whole-text one, and the facet loop's substring shortcut is exact."""

from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator.index_model import parse_index
from curator.levers.merge import bytes_saved, find_candidates, merged_entry_text, plain_text, replace_group
from curator.levers.similarity import STOPWORDS, WORD, stem, words_of
from curator.levers.text import entries_by_id, entry_source
from tests.support.paths import CORPUS

INDEX = (
    "# Seat memory index\n\n## Craft hooks\n"
    "- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays.\n"
    "- Always deploy with `make ship`, never on Fridays; ask ops first (see #4412).\n"
    "  A second line that belongs to the entry above.\n"
    "- Unrelated lesson about the cache eviction order.\n"
    "- Deploy with make ship, never on a Friday — ask the ops team first.\n"
)


def variants(text: str) -> list[bytes]:
    raw = text.encode("utf-8")
    return [raw, raw.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + raw, b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n")]


def corpus_texts() -> list[str]:
    paths = sorted(CORPUS.rglob("MEMORY.md"))[:8] if CORPUS.is_dir() else []
    return [p.read_text("utf-8", "replace") for p in paths]


CASES = variants(INDEX) + [v for t in corpus_texts() for v in variants(t)[:2]]


@pytest.mark.parametrize("raw", CASES, ids=[f"case{n}" for n in range(len(CASES))])
def test_bytes_saved_equals_the_length_of_the_spliced_file(raw):
    index = parse_index(raw)
    found = find_candidates(index, limit=50)
    if raw.startswith(b"# Seat memory index"):
        assert found  # the fixture has real candidates to cost
    for candidate in found:
        group = entries_by_id(index, candidate.entry_ids)
        merged = merged_entry_text(index, group)
        assert candidate.bytes_saved == len(index.raw) - len(replace_group(index, group, merged))
        assert bytes_saved(index, group, merged) == candidate.bytes_saved
    group = list(index.entries[:3])  # the first entry carries the BOM if there is one
    if len(group) >= 2:
        merged = merged_entry_text(index, group)
        assert bytes_saved(index, group, merged) == len(index.raw) - len(replace_group(index, group, merged))


@pytest.mark.parametrize("line", ["- plain words here", "- ___", "- !!!", "- ", "1. numbered `code` [x]",
                                  "- Émile's café, naïve", "- [link](a.md) only", "- see #4412 and ses_abc",
                                  "+ plus marker", "* star *emphasis*", "10) ten", "  - 9.0→7.0 on 2026-03-15"])
def test_words_of_is_the_whole_text_word_split(line):
    text = f"{line}\n{line} and more policies"
    naive = {stem(w) for w in WORD.findall(text.lower()) if len(w) > 1 and w not in STOPWORDS}
    assert words_of(text) == naive


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="abcdeisgnyr", min_size=1, max_size=12))
def test_a_stem_is_found_inside_the_word_it_stems_from(word):
    """The facet loop skips a clause when none of the unsaid stems (a -y stem without its y) is a
    substring of it: that is exact only if every stem sits inside its word."""
    root = stem(word)
    assert (root[:-1] if root.endswith("y") else root) in word


markdownish = st.lists(st.sampled_from(["- ", "* ", "1. ", "  ", "\n", "\r", "\ufeff", "a", "é", "; ", ". B",
                                       "[x](d.md)", "`c`", "#", "\n\n"]), max_size=30).map("".join)


@settings(max_examples=500, deadline=None)
@given(markdownish)
def test_an_entrys_text_is_its_source_in_a_plain_file(text):
    raw = text.encode("utf-8")
    index = parse_index(raw)
    assert plain_text(index) == (b"\r" not in raw)
    for entry in index.entries:
        if plain_text(index):
            assert entry.text.rstrip("\n") == entry_source(index, entry).rstrip("\n")
    for first, second in zip(index.entries, index.entries[1:]):
        assert merged_entry_text(index, [first, second], plain=plain_text(index)) == merged_entry_text(index, [first, second])
