"""Merge candidates on their evidence: one detail file in any link form, containment, a supersession
that names its successor (never a neighbour), no category line with its summary, no shared install
command alone, CJK text; and the evidence shown with each pair in the reason, the CLI text and
``--json`` (the app's Merge panel: ``tests/app/test_merge_evidence.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from curator.cli import main
from curator.index_model import parse_index
from curator.levers.merge import find_candidates
from tests.support.candidates import write_linked_pair_seat

FILLER = (
    "- The nightly crawler backs off for an hour after a 429 from the league site.\n"
    "- Parser pinned to 4.3 until the table plugin settles down.\n"
    "- Screenshots go to docs/qa, never into the repository root.\n"
)


def _index(text: str):
    return parse_index(text.encode())


def _lines(index, candidate) -> list[int]:
    return sorted(index.entry(i).line for i in candidate.entry_ids)


def test_three_link_forms_of_one_detail_file_make_one_group() -> None:
    # A markdown link, a wikilink with another case and an alias, and a bare file name: one file.
    index = _index(
        "# Index\n"
        "- [Release lane](release_lane.md) — tokens rotate monthly, one bucket per region\n"
        + FILLER +
        "## Checklists\n"
        "- [[Release_Lane|the lane]] — tag, watch the canary, then promote\n"
        "## Owners\n"
        "- release_lane.md — who owns which bucket and who may promote\n"
    )
    (found,) = find_candidates(index)
    assert _lines(index, found) == [2, 7, 9]
    assert found.kind == "same-target"
    assert found.shared_target == "release_lane.md" and "release_lane.md" in found.reason


def test_two_entries_opening_with_one_wikilink_are_a_pair_whatever_their_words() -> None:
    index = _index(
        "# Index\n"
        "- [[deploy_notes]] — ship with make ship\n"
        + FILLER +
        "- [[deploy_notes#rollback]] — roll back by retagging the previous build\n"
        "- [[deploy_notes]] · [[owners]] — who approves a Friday release\n"
    )
    (found,) = find_candidates(index)
    assert _lines(index, found) == [2, 7]  # the #rollback section is another detail
    assert found.evidence == ("[[deploy_notes]]",)


def test_a_line_citing_a_file_in_passing_does_not_index_it() -> None:
    index = _index(
        "# Index\n"
        "- [Deploy](deploy.md) — how the release lane is wired: buckets, regions, owners\n"
        "- TODO: a status page for the canary (see deploy.md)\n"
        + FILLER
    )
    assert find_candidates(index) == []


def test_a_short_entry_wholly_said_by_a_long_one_is_a_candidate() -> None:
    # The long entry says much else: their wording overlaps too little for a wording pair.
    index = _index(
        "# Index\n"
        "- Registry token rotates monthly\n"
        + FILLER +
        "## Release\n"
        "- Release checklist: tag the build, watch the canary for ten minutes, promote by hand, post "
        "the notes in the team channel, and remember the registry token rotates monthly so renew it "
        "before the first release of each month; the staging bucket mirrors production.\n"
    )
    (found,) = find_candidates(index)
    assert _lines(index, found) == [2, 7]
    assert found.kind == "contained" and found.evidence == ("line 2 is said whole by line 7",)
    assert "line 2 is said whole by line 7" in found.reason


def test_a_superseded_entry_pairs_only_with_the_entry_it_names() -> None:
    index = _index(
        "# Rules\n"
        "- Cover letters stay under one page, every paragraph under five lines. SUPERSEDED by the hiring playbook.\n"
        "- Cover photos for the landing page stay under one megabyte, paragraph spacing at five pixels.\n"
        "- [Deploy](deploy.md) — tokens rotate monthly\n"
    )
    assert find_candidates(index) == []  # "the hiring playbook" is no entry here: no pair


def test_a_superseded_entry_goes_with_the_entry_whose_file_it_links() -> None:
    index = _index(
        "# Rules\n"
        "- Squash every branch before merging; obsolete, replaced by [Merge policy](merge_policy.md)\n"
        "- Squash commits keep the history tidy for the release notes and bisects.\n"
        "- [Merge policy](merge_policy.md) — rebase, keep commits small, never squash shared branches\n"
        + FILLER
    )
    (found,) = find_candidates(index)
    assert _lines(index, found) == [2, 4]
    assert found.kind == "supersedes" and "merge_policy.md" in found.reason
    assert index.entry(found.entry_ids[0]).line == 4  # the rule that replaced it leads


def test_a_category_line_is_never_paired_with_its_own_summary() -> None:
    index = _index(
        "# Index\n"
        "- **Deploy lane and release tokens:**\n"
        "- Deploy lane and release tokens: rotate them monthly, one per region\n"
        + FILLER
    )
    assert find_candidates(index) == []


def test_a_shared_install_command_alone_is_not_evidence() -> None:
    # Both say how to install, in the same command, about different things (an environment, a file).
    index = _index(
        "# Index\n"
        "- **Venv**: `.venv/` holds pytest and ruff; `uv pip install -e .` for an editable install\n"
        + FILLER +
        "## Packaging\n"
        "- `setup.cfg` — editable install metadata, `uv pip install -e .`\n"
    )
    assert find_candidates(index) == []


def test_two_entries_opening_with_one_path_and_saying_the_same_of_it_describe_one_thing() -> None:
    index = _index(
        "# Setup\n"
        "- `scripts/crawl.py` — the crawler entry point; run it from the repository root, venv active\n"
        + FILLER +
        "## Files\n"
        "- `scripts/crawl.py` — entry point of the crawler, always run from the root of the repository\n"
        "- `make crawl` — the same run from make\n"
    )
    (found,) = find_candidates(index)
    assert _lines(index, found) == [2, 7]
    assert found.kind == "same-subject" and found.evidence[0] == "`scripts/crawl.py`"
    assert "crawler" in found.evidence and "both describe `scripts/crawl.py` (both say:" in found.reason


def test_two_steps_of_a_change_log_on_one_file_are_two_changes_not_one_entry() -> None:
    # A session log opens each step with the file it changed: one subject, two different changes.
    index = _index(
        "# Work log\n"
        "## 2026-03-02\n"
        "- `loader.py`: crash on 3D point geometry fixed, the Z value is dropped before polygons are built\n"
        + FILLER +
        "## 2026-03-05\n"
        "- `loader.py`: only the road-link layer is loaded now; the other layers are skipped at startup\n"
    )
    assert find_candidates(index) == []


def test_cjk_entries_are_read_by_character_pairs() -> None:
    # Chinese and Korean write without spaces between words (or glue particles on): the short entry
    # is wholly said by the long one only when their runs are compared piece by piece.
    index = _index(
        "# 记忆\n"
        "- 部署前必须运行全部测试\n"
        "- 爬虫遇到429时暂停一小时\n"
        "- 部署前必须运行全部测试，并检查日志和告警\n"
        "## 메모\n"
        "- 실서버 테스트 필수\n"
        "- 배포 전에는 실서버에서 테스트 필수, 로그 확인\n"
        "- 스크린샷은 docs/qa 에만 저장\n"
    )
    found = find_candidates(index)
    assert sorted(_lines(index, c) for c in found) == [[2, 4], [6, 7]]
    assert {c.kind for c in found} == {"contained"}


def test_the_cli_shows_each_pairs_evidence_in_text_and_json(tmp_path: Path, capsys) -> None:
    memory = write_linked_pair_seat(tmp_path / "memory")
    state = ["--state-dir", str(tmp_path / "state")]
    assert main(["candidates", str(memory), *state]) == 0
    text = capsys.readouterr().out
    assert "evidence: same-target: release_lane.md" in text
    assert main(["candidates", str(memory), *state, "--json"]) == 0
    (pair,) = json.loads(capsys.readouterr().out)["candidates"]
    assert pair["evidence"] == {"kind": "same-target", "shown": ["release_lane.md"]}
    assert "release_lane.md" in pair["reason"]


def test_plural_and_tense_meet_at_one_stem() -> None:
    from curator.levers.similarity import words_of

    assert words_of("merge the rule") == words_of("merged the rules") == words_of("merging rules")
    assert words_of("fixes boxes") == words_of("fix box")


def test_an_entry_that_says_it_replaces_another_names_it() -> None:
    index = _index(
        "# Rules\n"
        "- [Release checklist v2](checklist_v2.md) — replaces [Release checklist](checklist.md): canary first\n"
        + FILLER +
        "- [Release checklist](checklist.md) — tag, promote, post notes\n"
    )
    (found,) = find_candidates(index)
    assert _lines(index, found) == [2, 6]
    assert found.kind == "supersedes" and found.reason.startswith("line 2 says it replaces")


def test_words_scattered_over_the_other_entrys_sentences_are_not_containment() -> None:
    # Every word of the short entry is somewhere in the long one, but no clause there says it.
    index = _index(
        "# Index\n"
        "- Tokens rotate monthly in staging\n"
        + FILLER +
        "- Staging keeps old builds for a week. Tokens are long-lived there. Releases ship monthly; "
        "we rotate the canary hosts weekly and watch the dashboards after each release.\n"
    )
    assert find_candidates(index) == []
