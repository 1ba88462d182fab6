"""The hot-index model is lossless and finds entries, sections, continuation lines and ids."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.index_model import parse_index
from tests.support.paths import CORPUS


# -- property: parse then render gives back the identical bytes ---------------------------------

FRAGMENTS = [
    "# Seat memory index", "## Hard rules", "### deep", "> cap header", "- entry", "* star item",
    "+ plus item", "1. ordered", "2) paren", "  - nested", "    code block", "```", "```python", "~~~",
    "| a | b |", "|---|---|", "[link](file.md#anchor)", "[ref]: detail.md", "<a id=\"x\"></a>",
    "<!-- comment -->", "plain paragraph", "lazy continuation", "\t- tab item", "- [ ] task",
    "---", "***", "#no-space heading", "- entry with trailing spaces   ", "§", "Ünïcødé ✓ 🌈", "",
]
ENDINGS = ["\n", "\r\n", "\r", ""]


@st.composite
def markdownish(draw) -> bytes:
    lines = draw(st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.sampled_from(ENDINGS), st.text(max_size=6)),
                          max_size=30))
    text = "".join(fragment + noise + ending for fragment, ending, noise in lines)
    raw = text.encode("utf-8")
    if draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    if draw(st.booleans()):  # splice in bytes that are not UTF-8
        position = draw(st.integers(0, len(raw)))
        raw = raw[:position] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x82", b"\x80\x80", b"\xed\xa0\x80"])) + raw[position:]
    return raw


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_any_bytes_round_trip(raw: bytes) -> None:
    index = parse_index(raw)
    assert index.render() == raw
    assert index.nbytes == len(raw)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdownish())
def test_markdownish_round_trips_and_entries_cover_their_bytes(raw: bytes) -> None:
    index = parse_index(raw)
    assert index.render() == raw
    ids = [entry.id for entry in index.entries]
    assert len(ids) == len(set(ids))
    previous_end = 0
    for entry in index.entries:
        # An entry's bytes are whole lines of the file, in order, never overlapping.
        assert entry.offset >= previous_end
        assert index.entry_bytes(entry) == b"".join(line.raw for line in index.lines[entry.line - 1 : entry.end_line])
        previous_end = entry.end_offset


HAND_PICKED = [
    b"",
    b"\n",
    b"\r\n\r\n",
    b"- no final newline",
    b"\xef\xbb\xbf# BOM title\n- entry\n",
    b"# CRLF\r\n\r\n- one\r\n- two\r\n",
    b"# mixed\n- one\r\n- two\r- three\n",
    b"- tab\there\t\n  \t\n",
    b"- trailing spaces   \n\n\n",
    b"```\n- not an entry\n# not a heading\n",  # an unclosed fence
    b"* [broken](link\n- ok\n",
    b"\xff\xfe\x00garbage\x80\n- valid after garbage\n",
    b"- caf\xe9 (latin-1)\n",
    b"\x00\x01\x02",
]


@pytest.mark.parametrize("raw", HAND_PICKED, ids=lambda raw: repr(raw[:20]))
def test_hand_picked_round_trip(raw: bytes) -> None:
    index = parse_index(raw)
    assert index.render() == raw
    assert index.nbytes == len(raw)


# -- structure ------------------------------------------------------------------------------------

SAMPLE = (
    "# Seat memory index\n"
    "> hot index, target <17KB\n"
    "\n"
    "## Identity & seat\n"
    "- [Identity](identity.md) — who I am\n"
    "- [Pointers](seat-pointers.md) — records\n"
    "  continuation line of pointers\n"
    "  - nested bullet still part of it\n"
    "\n"
    "## Hard rules\n"
    "- never force-push #1234\n"
    "```\n"
    "- inside a fence is not an entry\n"
    "```\n"
    "- never force-push #1234\n"
).encode("utf-8")


def test_sections_entries_and_continuation_lines() -> None:
    index = parse_index(SAMPLE)
    assert [s.heading for s in index.sections] == ["Seat memory index", "Identity & seat", "Hard rules"]
    assert [(e.section, e.line, e.end_line) for e in index.entries] == [
        ("Identity & seat", 5, 5),
        ("Identity & seat", 6, 8),
        ("Hard rules", 11, 11),
        ("Hard rules", 15, 15),
    ]
    pointers_entry = index.entries[1]
    assert pointers_entry.text.endswith("  - nested bullet still part of it")
    assert pointers_entry.nbytes == len("- [Pointers](seat-pointers.md) — records\n  continuation line of pointers\n"
                                        "  - nested bullet still part of it\n".encode())
    assert [link.target for link in pointers_entry.pointers] == ["seat-pointers.md"]
    assert [(link.target, link.kind) for link in index.entries[2].pointers] == [("#1234", "record")]
    # Identical text in one section: ids stay unique, the repeat gets a suffix.
    first, second = index.entries[2].id, index.entries[3].id
    assert second == f"{first}-2"


def test_entry_ids_survive_edits_elsewhere() -> None:
    before = parse_index(SAMPLE)
    after = parse_index(SAMPLE.replace(b"who I am", b"who I am, edited"))
    assert [e.id for e in before.entries][1:] == [e.id for e in after.entries][1:]
    assert before.entries[0].id != after.entries[0].id


def test_offsets_count_bytes_not_characters() -> None:
    raw = "# t\n- ünïcødé 🌈\n- second\n".encode("utf-8")
    index = parse_index(raw)
    second = index.entries[1]
    assert second.offset == raw.index(b"- second")
    assert index.entries[0].nbytes == len("- ünïcødé 🌈\n".encode("utf-8"))


def test_crlf_entries_keep_their_line_endings() -> None:
    raw = b"## A\r\n- one\r\n- two\r\n"
    index = parse_index(raw)
    assert index.newline == b"\r\n"
    assert [index.entry_bytes(e) for e in index.entries] == [b"- one\r\n", b"- two\r\n"]


@pytest.mark.parametrize(
    ("raw", "offsets"),
    [
        (b"- ok\n- bad \xff here\n", (11,)),
        (b"\xef\xbb\xbf\xc3\n", (3,)),
        (b"\x80\n\xe2\x82\n- fine\n", (0, 2)),
        (b"- all good\n", ()),
    ],
)
def test_decode_error_offsets_are_file_byte_offsets(raw: bytes, offsets: tuple[int, ...]) -> None:
    index = parse_index(raw)
    assert index.decode_error_offsets == offsets
    assert index.is_utf8 is (not offsets)
    assert index.render() == raw


def test_splice_replaces_byte_ranges() -> None:
    index = parse_index(SAMPLE)
    entry = index.entries[0]
    out = index.splice([(entry.offset, entry.end_offset, b"")])
    assert out == SAMPLE.replace("- [Identity](identity.md) — who I am\n".encode(), b"")
    with pytest.raises(ValueError):
        index.splice([(0, 10, b""), (5, 12, b"")])


# -- the real corpus ----------------------------------------------------------------------------

CORPUS_FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file()) if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS_FILES, reason="corpus not present")
def test_every_corpus_file_round_trips_and_counts_like_wc() -> None:
    assert len(CORPUS_FILES) > 100
    for path in CORPUS_FILES:
        raw = path.read_bytes()
        index = parse_index(raw)
        assert index.render() == raw, path
        assert index.nbytes == os.stat(path).st_size, path
        assert index.newline_count == raw.count(b"\n"), path  # wc -l


# -- record ids: the fast scan finds exactly what the combined pattern finds ----------------------------

RECORD_TEXT = st.lists(
    st.sampled_from(["#1234", "#7", "a#99", "/#12", " ", "x", "-", "ses_abcdef12", "session_XYZ12345", "_",
                     "123e4567-e89b-12d3-a456-426614174000", "sess_1", "&#65", "\n", "#", "ses"]),
    max_size=20,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(RECORD_TEXT, st.text(max_size=80)))
def test_record_ids_match_the_combined_pattern(text: str) -> None:
    from curator.markdown import RECORD_ID, record_ids

    assert record_ids(text) == [m.group(0) for m in RECORD_ID.finditer(text)]


LINKISH = st.lists(
    st.sampled_from(["see ", "https://x.org/a", "http://a.b", "ftp://f.io/x", "//cdn.io/y", "mailto:me@x.org",
                     "me@x.org", "notes.md", "www.example.com", "[t](u.md)", " ", "\n", "`code`", "<https://a.io>",
                     "- ", "# ", "@", "//", ":"]),
    max_size=15,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(LINKISH)
def test_fast_linkify_pretest_finds_every_link_the_stock_one_does(text: str) -> None:
    from markdown_it import MarkdownIt

    from curator import markdown

    stock = MarkdownIt("commonmark", {"linkify": True}).enable("linkify").enable("table")
    stock.linkify.set({"fuzzy_link": False})
    assert markdown.links_in_tokens(markdown.parse(text)) == markdown.links_in_tokens(stock.parse(text))


# -- paragraphs and § blocks are entries --------------------------------------------------------

LABELS = CORPUS / "merge-labels.json"


@pytest.mark.skipif(not LABELS.is_file(), reason="corpus labels not available")
def test_entries_are_what_the_corpus_labels_count() -> None:
    """The labels count top-level list items, standalone paragraphs, § blocks of Hermes files, and
    table rows only where the index itself is a table (no labelled index is one; ClashUp's one
    table among its lists is not counted there, though its rows are entries here)."""
    import json

    for labelled in json.loads(LABELS.read_text(encoding="utf-8"))["indexes"]:
        index = parse_index((CORPUS / labelled["path"]).read_bytes())
        assert sum(e.kind != "row" for e in index.entries) == labelled["entries_judged"], labelled["path"]
        starts = {e.line for e in index.entries}
        for candidate in labelled["candidates"]:
            assert set(candidate["lines"]) <= starts, (labelled["path"], candidate["lines"])  # each one reachable


def test_a_paragraph_under_a_heading_is_an_entry_and_preamble_prose_is_not() -> None:
    raw = ("Loaded at every start; keep it under 200 lines.\n"
           "\n"
           "# Memory\n"
           "\n"
           "Deploys go out on Tuesdays,\n"
           "never on Fridays.\n"
           "\n"
           "- An item.\n"
           "══════════\n"
           "\n"
           "> A quote is not an entry.\n"
           "\n"
           "Last words.").encode()
    index = parse_index(raw)
    assert [(e.kind, e.line, e.end_line, e.section) for e in index.entries] == [
        ("paragraph", 5, 6, "Memory"), ("item", 8, 9, "Memory"), ("paragraph", 13, 13, "Memory")]
    assert index.entries[0].text == "Deploys go out on Tuesdays,\nnever on Fridays."
    assert index.entries[0].body == index.entries[0].text  # no marker to strip
    assert parse_index(b"No heading at all: every paragraph is memory.\n\nA second one.\n").entries[1].kind == "paragraph"
    decoration = parse_index("# M\n\n══════════\n\n- item\n".encode())
    assert [e.kind for e in decoration.entries] == ["item"]  # a rule of box characters says nothing


def test_each_section_sign_block_of_a_hermes_file_is_an_entry() -> None:
    raw = "The office is in Shaoxing.\n§\nESPN's API needs no key:\n`https://site.api.espn.com`\n§\nKeep analysis short.".encode()
    index = parse_index(raw)
    assert [(e.kind, e.line, e.end_line) for e in index.entries] == [("hermes", 1, 1), ("hermes", 3, 4), ("hermes", 6, 6)]
    assert all("§" not in e.text for e in index.entries)
    headed = parse_index("## Memory\n══════\n§\n[ENV] work dir: /srv\n§\n[USER] terse answers\n".encode())
    assert [(e.kind, e.text) for e in headed.entries] == [("hermes", "[ENV] work dir: /srv"), ("hermes", "[USER] terse answers")]
    assert index.render() == raw and headed.render() == "## Memory\n══════\n§\n[ENV] work dir: /srv\n§\n[USER] terse answers\n".encode()
