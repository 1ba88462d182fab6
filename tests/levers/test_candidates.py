"""Merge candidates a careful bearer would accept: weighted words, one detail, real savings, sub-lines."""

from __future__ import annotations

from curator.index_model import parse_index
from curator.levers.entry_facts import opening_subjects
from curator.levers.merge import find_candidates, merged_entry_text


def _index(text: str):
    return parse_index(text.encode())


def test_a_suffix_shared_by_many_entries_makes_no_candidates() -> None:
    tag = " → **Workflows**: Plan-Driven Development"
    lines = [
        "- Decided to pin the parser version before the migration" + tag,
        "- Decided to split the CI lanes by package owner" + tag,
        "- Chose SQLite over Postgres for the local cache" + tag,
        "- Moved the nightly job to 02:00 UTC after the outage" + tag,
        "- Dropped the retry wrapper around the uploader" + tag,
        "- Renamed the staging bucket to match the region" + tag,
    ]
    index = _index("# Index\n" + "\n".join(lines) + "\n")
    assert find_candidates(index) == []


def test_entries_indexing_one_detail_file_are_candidates_whatever_their_wording() -> None:
    index = _index(
        "# Index\n"
        "- Scoring threshold crisis RESOLVED 2026-03-15: 9.0→7.0. See [freshness gate memory](gate.md).\n"
        "- Something else entirely about the deploy lane and its tokens.\n"
        "- [Freshness Gate & Scoring Recalibration 2026-03-15](gate.md) — Auto 72h flush, threshold 9.0→7.0\n"
    )
    (found,) = find_candidates(index)
    first, second = (index.entry(i) for i in found.entry_ids)
    assert found.shared_target == "gate.md" and "gate.md" in found.reason
    assert first.line == 4  # the line that indexes the file keeps its place and headline
    assert second.line == 2


def test_a_merge_saving_almost_nothing_is_not_shown() -> None:
    # Two paraphrases: every fact in other words, so the honest merge keeps both and saves nothing.
    index = _index(
        "# Index\n"
        "- Let a review thread grow to forty comments before summarising; counter: summarise at ten.\n"
        "- Summarise long review threads early: once a thread passes ten comments, write the summary.\n"
    )
    assert find_candidates(index) == []


def test_a_repeated_entry_is_a_candidate_and_its_merge_saves_it_whole() -> None:
    index = _index(
        "# Index\n"
        "- Before assigning numbers: ALWAYS `ls /epics/` and `ls /.project/ideas/` to avoid collisions\n"
        "- The cache lives in `~/.cache/crawl`; clear it after a schema change.\n"
        "- Before assigning epic numbers: ALWAYS `ls /epics/` to avoid numbering collisions\n"
    )
    (found,) = find_candidates(index)
    assert [index.entry(i).line for i in found.entry_ids] == [2, 4]
    assert found.bytes_saved == index.entries[2].nbytes - 0  # the second line goes whole


def test_merged_multi_line_entry_keeps_each_parts_sub_lines_under_one_headline() -> None:
    index = _index(
        "# Index\n"
        "- [Deploy](deploy.md) — ship with `make ship`; never on Fridays\n"
        "  - tag first\n"
        "  - watch the canary for ten minutes\n"
        "- Deploy with `make ship`, never on Fridays; ask ops first\n"
        "  - tag first\n"
        "  - roll back with `make unship`\n"
    )
    first, second = index.entries
    merged = merged_entry_text(index, [first, second])
    assert merged == (
        "- [Deploy](deploy.md) — ship with `make ship`; never on Fridays; ask ops first\n"
        "  - tag first\n"
        "  - watch the canary for ten minutes\n"
        "  - roll back with `make unship`"
    )


def test_code_and_numbers_are_said_only_verbatim() -> None:
    index = _index(
        "# Index\n"
        "- **Map JSON location**: server `Maps/Data/` + client `Content/Maps/` — keep both in sync\n"
        "- **Materials**: `Content/Maps/Materials/` — keep in sync with the map JSON\n"
    )
    first, second = index.entries
    assert "`Content/Maps/Materials/`" in merged_entry_text(index, [first, second])


def test_a_merged_clause_drops_a_trailing_fragment_the_headline_says_already() -> None:
    # "1937 EUnit tests all passing" is said by the first entry: only "Coverage push from 83% → 95%" is new.
    index = _index(
        "# Index\n"
        "- 1937 EUnit tests, 43 CT tests, 95% total coverage (all passing on master)\n"
        "- The nightly lane deploys the docs site to the staging bucket first.\n"
        "- Coverage push from 83% → 95%: 1937 EUnit tests all passing\n"
        "- Rotate the registry token monthly; the old one stops at midnight.\n"
        "- Parser pinned to 4.3 until the table plugin settles.\n"
        "- The crawler backs off for an hour after a 429.\n"
    )
    merged = merged_entry_text(index, [index.entries[0], index.entries[2]])
    assert merged == "- 1937 EUnit tests, 43 CT tests, 95% total coverage (all passing on master); Coverage push from 83% → 95%"
    (found,) = find_candidates(index)
    assert [index.entry(i).line for i in found.entry_ids] == [2, 4]


def test_a_leading_fragment_is_never_dropped_even_when_said() -> None:
    # "never ask them" gives "set passwords" its sense: a said head keeps the clause whole.
    index = _index(
        "# Index\n"
        "- Never ask them to run commands.\n"
        "- Never ask them to run commands, set passwords by hand\n"
    )
    merged = merged_entry_text(index, list(index.entries))
    assert "set passwords by hand" in merged and merged.count("Never ask them to run commands") == 2


def test_two_entries_naming_one_file_in_code_spans_are_candidates() -> None:
    # Many indexes name their detail files in code spans, without a link.
    index = _index(
        "# Index\n"
        "- `codex-config.md` -- Codex CLI configuration, model, reasoning effort, available models\n"
        "- `deploy.md` -- the deploy lane and its tokens\n"
        "## Codex\n"
        "- Codex configuration details live in `codex-config.md` (model, reasoning effort)\n"
    )
    (found,) = find_candidates(index)
    assert found.shared_target == "codex-config.md"
    assert [index.entry(i).line for i in found.entry_ids] == [2, 5]  # the indexing line leads


def test_an_entry_marked_superseded_goes_into_the_rule_that_replaced_it() -> None:
    index = _index(
        "# Feedback\n"
        "- [Cover letter quality](cover_letter.md) — SUPERSEDED by unified rules below. Kept for history.\n"
        "- [Unified resume and cover letter rules](unified_rules.md) — 550-700 words, vertical layout\n"
        "- [Deploy lane](deploy.md) — tokens rotate monthly\n"
    )
    (found,) = find_candidates(index)
    assert [index.entry(i).line for i in found.entry_ids] == [3, 2]  # the replacing rule leads
    assert "superseded" in found.reason
    assert found.merged.startswith("- [Unified resume and cover letter rules](unified_rules.md)")
    assert "[Cover letter quality](cover_letter.md)" in found.merged  # its pointer is kept
    assert "Kept for history" not in found.merged


def test_a_bare_pointer_beside_the_line_that_describes_its_file_is_covered_whole() -> None:
    index = _index(
        "# Abilities\n"
        "- See [ability-authoring.md](ability-authoring.md) for full schema and examples\n"
        "- Abilities load from JSON at match start on both sides\n"
        "## See also\n"
        "- [ability-authoring.md](ability-authoring.md) — How to create ability JSON files: editor tool, schema, node types\n"
    )
    (found,) = find_candidates(index)
    assert found.shared_target == "ability-authoring.md"
    assert [index.entry(i).line for i in found.entry_ids] == [5, 2]  # the describing line leads
    assert found.merged == index.entries[2].text  # the bare pointer adds nothing: it goes whole
    assert found.bytes_saved == index.entries[0].nbytes


def test_a_line_citing_a_file_with_its_own_lesson_is_not_a_bare_pointer() -> None:
    # It names the file, but it teaches something the file's index line does not say.
    index = _index(
        "# Deploy\n"
        "- Rotate the staging token before each release or the upload fails silently; see [deploy.md](deploy.md)\n"
        "- The nightly job runs at 02:00 UTC\n"
        "## Details\n"
        "- [deploy.md](deploy.md) — how the release lane is wired: buckets, regions, owners\n"
    )
    assert find_candidates(index) == []


def test_a_wikilink_with_no_target_is_no_subject_and_no_crash():
    """``[[|x]]`` names no file: the candidate search reads it as text instead of failing on it."""
    index = parse_index(b"# M\n\n- [[|x]] foo bar baz qux\n- [[|x]] foo bar baz qux quux\n- [[a|b]] one two\n")
    assert opening_subjects("- [[|x]] foo bar") == ()
    assert opening_subjects("- [[a|b]] one two") == ("[[a|b]]",)
    assert isinstance(find_candidates(index), list)  # used to raise on the first entry
