"""Pointer reports that hold on memory nobody here has seen: names written bare, wikilinks inside link
text, files that are not memories, links into the repository, wikilink typos by punctuation and
width, heading prefixes, an ARCHIVE.md out of reach. Each shape comes from a real memory dir."""

from __future__ import annotations

from pathlib import Path

from curator import markdown
from curator.pointers import check_pointers
from tests.support.files import write


# -- a file named bare is reached -------------------------------------------------------------------


def test_a_file_named_bare_is_not_an_orphan(tmp_path: Path) -> None:
    memory = write(tmp_path / ".claude" / "memory", {
        "MEMORY.md": (
            "# Index\n"
            "- Bridge before patching (feedback_bridge_first); see the review notes\n"
            "- Plan: `project_plan.md`\n"
            "- Topic files: `.claude/memory/codex-config.md` -- Codex CLI configuration\n"
            "- 表结构变更时同步更新 project.md 表结构文档\n"
            "- Also @notes/deploy.md, and the template says cold entries move to `ARCHIVE.md`\n"
        ),
        "feedback_bridge_first.md": "# Bridge first\n",
        "project_plan.md": "# Plan\n",
        "codex-config.md": "# Codex\n",
        "project.md": "# 项目上下文\n",
        "notes/deploy.md": "# Deploy\n",
        "ARCHIVE.md": "# Archive\n",
    })
    report = check_pointers(memory)
    assert report.orphans == []
    assert report.named_only == ["codex-config.md", "feedback_bridge_first.md", "notes/deploy.md",
                                 "project.md", "project_plan.md"]
    assert report.unlinked_archive is None and report.problem_count == 0


def test_a_name_reaches_through_the_file_that_says_it_and_not_beyond_what_it_names(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": "- [Lessons](lessons.md)\n",
        "lessons.md": "数据库表变更时同步更新 project.md 表结构文档\n",  # a reachable file names project.md
        "project.md": "# 项目\n",
        "user.md": "# Who\n",  # only "(user)" and https://example.com/user.md below: neither names it
        "other.md": "see (user) and https://example.com/x/user.md and http://h/other.md\n",
    })
    report = check_pointers(tmp_path)
    assert report.named_only == ["project.md"]
    assert report.orphans == ["other.md", "user.md"]


# -- a wikilink inside link text --------------------------------------------------------------------


def test_a_wikilink_inside_link_text_keeps_the_link() -> None:
    (link,) = markdown.links_in_text("- [Slug convention: name ≡ [[link]]](slug-convention.md) — how\n")
    assert (link.kind, link.target, link.text) == ("file", "slug-convention.md", "Slug convention: name ≡ [[link]]")


def test_a_wikilink_inside_link_text_does_not_orphan_the_file(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- [Slug convention: name ≡ [[link]]](slug-convention.md)\n",
                     "slug-convention.md": "# Slugs\n"})
    report = check_pointers(tmp_path)
    assert (report.orphans, report.unwritten, report.dangling) == ([], [], [])


# -- files that are not memories ------------------------------------------------------------------------


def test_readme_claude_agents_and_license_are_never_orphans(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": "- [a](a.md)\n", "a.md": "# A\n",
        "README.md": "# About this folder\n", "CLAUDE.md": "# Rules\n", "AGENTS.md": "# Agents\n",
        "LICENSE-PENDING.md": "# License pending\n", "sub/readme.md": "# sub\n", "notes.txt": "x\n",
        "lonely.md": "# nobody links here\n",
    })
    assert check_pointers(tmp_path).orphans == ["lonely.md"]


def test_hermes_user_md_is_loaded_beside_memory_md_not_an_orphan(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "Lives in Seoul\n§\nPrefers short answers\n", "USER.md": "사용자 프로필\n§\n한국어\n"})
    assert check_pointers(tmp_path).orphans == []


# -- a link into the repository ---------------------------------------------------------------------


def test_a_link_out_of_the_memory_dir_into_the_repo_is_information(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, {"CLAUDE.md": "# Rules\n", "docs/guide.md": "# Guide\n", ".claude/docs/README.md": "# Docs\n"})
    memory = write(repo / ".claude" / "memory", {
        "MEMORY.md": ("- [CLAUDE.md](../../CLAUDE.md) quick start\n- [docs](../docs/README.md)\n"
                      "- [guides](../../docs/)\n- [gone](../../nowhere.md)\n- [up](../../../outside.md)\n"),
    })
    write(tmp_path, {"outside.md": "# beyond the repo\n"})
    report = check_pointers(memory)
    assert [(o.line, o.target, o.path) for o in report.outside] == [
        (1, "../../CLAUDE.md", "CLAUDE.md"), (2, "../docs/README.md", ".claude/docs/README.md"),
        (3, "../../docs/", "docs")]
    assert [(e.line, e.reason) for e in report.escapes] == [(4, "'..' leaves the memory dir"),
                                                            (5, "'..' leaves the memory dir")]


def test_without_a_repository_around_it_a_link_out_is_still_an_escape(tmp_path: Path) -> None:
    write(tmp_path, {"notes.md": "# n\n"})
    memory = write(tmp_path / "memory", {"MEMORY.md": "- [n](../notes.md)\n"})
    report = check_pointers(memory)
    assert report.outside == [] and [e.target for e in report.escapes] == ["../notes.md"]


def test_a_link_that_leaves_and_comes_back_is_inside(tmp_path: Path) -> None:
    memory = write(tmp_path / "memory", {"MEMORY.md": "- [a](../memory/a.md)\n", "a.md": "# A\n"})
    report = check_pointers(memory)
    assert (report.escapes, report.orphans, report.dangling) == ([], [], [])


# -- respelled wikilinks: punctuation, spacing, full-width forms -----------------------------------


def test_a_wikilink_that_differs_by_punctuation_or_width_is_a_question_with_its_fix(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": ("- [[A，B]] full-width comma\n- [[設計，方針]] CJK\n- [[ＡＰＩ Keys]] full-width letters\n"
                      "- [[Release: checklist!]] punctuation\n- [[something-else]] really unwritten\n"),
        "a-b.md": "---\nname: A — B\n---\n# A and B\n",
        "design.md": "---\nname: 設計 — 方針\n---\n# 設計\n",
        "api_keys.md": "# Keys\n",
        "release_checklist.md": "---\nname: release-checklist\n---\n# Release\n",
    })
    report = check_pointers(tmp_path)
    fixes = [(p.line, p.target, p.meant, p.spelling) for p in report.probable]
    assert fixes == [
        (1, "[[A，B]]", "a-b.md", "[[A — B]]"),
        (2, "[[設計，方針]]", "design.md", "[[設計 — 方針]]"),
        (3, "[[ＡＰＩ Keys]]", "api_keys.md", "[[api_keys]]"),
        (4, "[[Release: checklist!]]", "release_checklist.md", "[[release-checklist]]"),
    ]
    assert report.dangling == [] and report.problem_count == 0
    assert [u.target for u in report.unwritten] == ["something-else"]
    assert report.orphans == []  # each probable link still reaches the file it means


def test_a_punctuation_match_that_fits_two_files_is_no_fix(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- [[A，B]]\n", "one.md": "---\nname: A — B\n---\n",
                     "two.md": "---\nname: A / B\n---\n"})
    report = check_pointers(tmp_path)
    assert report.dangling == report.probable == [] and [u.target for u in report.unwritten] == ["A，B"]


# -- a heading anchor that is the first words of one heading ----------------------------------------


def test_an_anchor_that_is_a_unique_prefix_of_one_heading_gets_a_did_you_mean(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": "- [craft](craft.md#profiling)\n- [[craft#Profiling]]\n- [x](two.md#notes)\n- [y](craft.md#prof)\n",
        "craft.md": "# Craft\n## Profiling first\nmeasure\n",
        "two.md": "## Notes on A\n## Notes on B\n",
    })
    got = [(d.target, d.suggestion) for d in check_pointers(tmp_path).dangling]
    assert got == [("craft.md#profiling", "craft.md#profiling-first"),
                   ("[[craft#Profiling]]", "[[craft#Profiling first]]"),
                   ("two.md#notes", None),  # the first words of two headings: no guess
                   ("craft.md#prof", None)]  # not a whole word of the heading


def test_a_cjk_anchor_prefix_gets_a_did_you_mean(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- [設計](design.md#設計)\n", "design.md": "# 設計 方針\n"})
    (dangling,) = check_pointers(tmp_path).dangling
    assert dangling.suggestion == "design.md#設計-方針"


# -- ARCHIVE.md out of reach --------------------------------------------------------------------------


def test_an_archive_nothing_reachable_links_is_reported(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- [a](a.md)\n", "a.md": "# A\n", "ARCHIVE.md": "- old [b](b.md)\n", "b.md": "# B\n"})
    report = check_pointers(tmp_path)
    assert report.unlinked_archive == "ARCHIVE.md" and report.orphans == [] and report.problem_count == 1


def test_an_archive_linked_named_or_reached_through_a_detail_file_is_not(tmp_path: Path) -> None:
    for n, index in enumerate(["- [Archive](ARCHIVE.md)\n", "> cold entries move to `ARCHIVE.md`\n",
                               "- [a](a.md)\n"]):
        memory = write(tmp_path / str(n), {"MEMORY.md": index, "a.md": "see [the archive](ARCHIVE.md)\n",
                                           "ARCHIVE.md": "- old\n"})
        assert check_pointers(memory).unlinked_archive is None, index


def test_no_archive_no_report(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- x\n"})
    assert check_pointers(tmp_path).unlinked_archive is None


def test_a_wikilink_written_as_a_path_out_of_the_dir_is_checked_as_a_link_out(tmp_path: Path) -> None:
    """``[[../../ops/TESTING.md]]`` names no memory to write later: it is a path out of the memory dir,
    into the repository (information) or past it (an escape), as the same markdown link would be."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo, {"ops/TESTING.md": "# Testing\n"})
    memory = write(repo / ".claude" / "memory", {
        "MEMORY.md": "- [[../../ops/TESTING.md]] how to test\n- [[../../ops/TESTING]] the same\n"
                     "- [[../../ops/GONE.md]] moved\n- [[later-memory]] not written yet\n",
    })
    report = check_pointers(memory)
    assert [(o.line, o.path) for o in report.outside] == [(1, "ops/TESTING.md"), (2, "ops/TESTING.md")]
    assert [(e.line, e.reason) for e in report.escapes] == [(3, "'..' leaves the memory dir")]
    assert [u.target for u in report.unwritten] == ["later-memory"]
