"""The pointer graph: link kinds, dangling files and anchors, escapes, orphans, overrides, caching."""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path

import pytest

from curator import markdown, pointers
from curator.pointers import check_pointers
from curator.slugs import Slugger, github_slug, heading_slugs
from tests.support.paths import DATA
from tests.support.seats import deny_read, restore_read
from tests.support.files import write


# -- GitHub slugs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Hard rules (they bit; don't relearn)", "hard-rules-they-bit-dont-relearn"),
        ("Identity & seat", "identity--seat"),
        ("Lane anchors (highest drift — re-verify live)", "lane-anchors-highest-drift--re-verify-live"),
        ("C++ tips", "c-tips"),
        ("snake_case_name", "snake_case_name"),
        ("Émoji 🌈 time", "émoji--time"),
        ("v1.2.3 release", "v123-release"),
        ("  ", "--"),
        ("日本語 見出し", "日本語-見出し"),
    ],
)
def test_github_slug(heading: str, slug: str) -> None:
    assert github_slug(heading) == slug


def test_repeated_headings_get_numbered_suffixes() -> None:
    assert heading_slugs(["Notes", "Notes", "Notes"]) == ["notes", "notes-1", "notes-2"]
    # A heading that already took "notes-1" pushes the repeat on to "notes-2", like github-slugger.
    assert heading_slugs(["Notes", "Notes 1", "Notes"]) == ["notes", "notes-1", "notes-2"]


# -- link kinds ----------------------------------------------------------------------------------------


def test_links_are_classified_and_code_is_ignored(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": (
            "# Index\n"
            "- [detail](detail.md#usage) file with anchor\n"
            "- [same](#index) same-file anchor\n"
            "- <https://example.com/x> and https://example.org bare, session 123e4567-e89b-12d3-a456-426614174000\n"
            "- ticket #4321 and [ref link][r]\n"
            "- `[not a link](nowhere.md)` in code; a bare notes.md mention is a name, not a URL\n"
            "\n"
            "## Code\n"
            "\n"
            "    [indented code](nowhere2.md)\n"
            "\n"
            "[r]: detail.md\n"
        ),
        "detail.md": "# Detail\n## Usage\ntext\n",
    })
    report = check_pointers(tmp_path)
    kinds = sorted((link.target, link.kind) for link in report.links_by_file["MEMORY.md"])
    assert kinds == sorted([
        ("detail.md#usage", "file"),
        ("#index", "anchor"),
        ("https://example.com/x", "url"),
        ("https://example.org", "url"),
        ("123e4567-e89b-12d3-a456-426614174000", "record"),
        ("#4321", "record"),
        ("detail.md", "file"),
    ])
    assert report.problem_count == 0
    assert report.files == ("MEMORY.md", "detail.md")


# -- problems --------------------------------------------------------------------------------------------


def test_dangling_files_and_anchors_with_suggestions(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": (
            "# Index\n"
            "- [a](feedback-no-tls.md) typo'd name\n"
            "- [b](detail.md#usage-notes) wrong anchor\n"
            "- [c](detail.md#notes-1) repeated heading, second one\n"
            "- [d](detail.md#notes-2) no third one\n"
            "- [e](#indx) same-file typo\n"
            "- [f](completely-unrelated-qqq.md)\n"
        ),
        "feedback_no_tls.md": "# No TLS\n",
        "detail.md": "# Detail\n## Usage notes!\n## Notes\n## Notes\n",
    })
    report = check_pointers(tmp_path)
    got = [(d.file, d.line, d.target, d.reason, d.suggestion) for d in report.dangling]
    assert got == [
        ("MEMORY.md", 2, "feedback-no-tls.md", "no such file", "feedback_no_tls.md"),
        # Another number is not clearly the one meant (the same rule keeps a dated log from being
        # offered another day's log), so no guess here.
        ("MEMORY.md", 5, "detail.md#notes-2", "no such heading", None),
        ("MEMORY.md", 6, "#indx", "no such heading", "#index"),
        ("MEMORY.md", 7, "completely-unrelated-qqq.md", "no such file", None),
    ]
    # "#usage-notes" matches "## Usage notes!" (punctuation dropped) and "#notes-1" the second "Notes".
    # feedback_no_tls.md is only reachable through the broken link: an orphan.
    assert report.orphans == ["feedback_no_tls.md"]
    assert report.problem_count == 5


def test_suggestion_is_relative_to_the_linking_file(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": "- [t](topics/a.md)\n",
        "topics/a.md": "see [b](../notes/beta-note.md)\n",
        "notes/beta_note.md": "# Beta\n",
    })
    report = check_pointers(tmp_path)
    assert [(d.file, d.suggestion) for d in report.dangling] == [("topics/a.md", "../notes/beta_note.md")]
    assert report.orphans == ["notes/beta_note.md"]  # reachable only through the broken link


def test_escapes_dotdot_absolute_and_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, {"secret.md": "# s\n"})
    memory = tmp_path / "memory"
    write(memory, {
        "MEMORY.md": (
            "- [up](../outside/secret.md)\n"
            f"- [abs]({outside}/secret.md)\n"
            "- [link](linked.md)\n"
            "- [dirlink](linkdir/secret.md)\n"
            f"- [inside absolute]({memory}/detail.md)\n"
            "- [home](~/notes.md)\n"
            "- [fine](sub/../detail.md)\n"
        ),
        "detail.md": "# d\n",
    })
    os.symlink(outside / "secret.md", memory / "linked.md")
    os.symlink(outside, memory / "linkdir")
    report = check_pointers(memory)
    assert [(e.line, e.reason) for e in report.escapes] == [
        (1, "'..' leaves the memory dir"),
        (2, "absolute path outside the memory dir"),
        (3, "symlink leads outside the memory dir"),
        (4, "symlink leads outside the memory dir"),
        (6, "home-relative path leaves the memory dir"),
    ]
    assert report.dangling == []
    assert "linked.md" not in report.files  # never read through a symlink that leaves the dir


def test_orphans_follow_links_through_detail_files(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": "- [a](a.md)\n",
        "identity.md": "# Identity\nsee [i](from-identity.md)\n",
        "ARCHIVE.md": "- [old](archived.md)\n",
        "a.md": "then [b](b.md)\n",
        "b.md": "then [c](deep/c.md)\n",
        "deep/c.md": "end, and a loop back to [a](../a.md)\n",
        "from-identity.md": "x\n",
        "archived.md": "x\n",
        "lonely.md": "links to [a](a.md) but nothing links here\n",
        "deep/forgotten.md": "x\n",
        ".hidden.md": "dot-files are ignored\n",
        ".git/notes.md": "dot-dirs are ignored\n",
        "notes.txt": "not markdown\n",
    })
    report = check_pointers(tmp_path)
    assert report.orphans == ["deep/forgotten.md", "lonely.md"]
    assert ".hidden.md" not in report.files and ".git/notes.md" not in report.files
    # ARCHIVE.md still reaches what it links, but nothing the harness loads links ARCHIVE.md itself.
    assert report.unlinked_archive == "ARCHIVE.md"
    assert report.problem_count == 3


def test_links_to_non_markdown_files_and_directories_exist_without_anchors_checked(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": "- [script](tools/run.py#L10) and [dir](tools/) and [img](pic.png)\n",
        "tools/run.py": "print()\n",
    })
    report = check_pointers(tmp_path)
    assert [(d.target, d.reason) for d in report.dangling] == [("pic.png", "no such file")]


def test_html_anchor_ids_count_as_targets(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- [x](d.md#custom-spot)\n", "d.md": '<a id="custom-spot"></a>\ntext\n'})
    assert check_pointers(tmp_path).dangling == []


# -- overrides: check a change before writing it ----------------------------------------------------------


def test_overrides_check_a_change_before_it_is_written(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": "- [a](a.md)\n- [b](b.md#keep)\n",
        "a.md": "# A\n",
        "b.md": "# Keep\n",
    })
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert check_pointers(tmp_path).problem_count == 0
    # A merge that removes a.md but leaves MEMORY.md pointing at it: a deleted memory.
    removed = check_pointers(tmp_path, overrides={"a.md": None})
    assert [(d.target, d.reason) for d in removed.dangling] == [("a.md", "no such file")]
    # A proposed b.md without the heading breaks the anchor; a proposed new file is seen.
    changed = check_pointers(tmp_path, overrides={
        "b.md": b"# Renamed\n",
        "MEMORY.md": b"- [a](a.md)\n- [b](b.md#keep)\n- [n](new.md)\n",
        "new.md": b"# New\n",
    })
    assert [(d.target, d.reason, d.suggestion) for d in changed.dangling] == [("b.md#keep", "no such heading", None)]
    assert "new.md" in changed.files and changed.orphans == []
    # Nothing was written.
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_unreadable_detail_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"MEMORY.md": "- [a](a.md)\n", "a.md": "# A\n"})
    pointers.clear_cache()
    deny_read(tmp_path / "a.md", monkeypatch)
    try:
        report = check_pointers(tmp_path)
    finally:
        restore_read(tmp_path / "a.md")
    assert [(u.file, u.message) for u in report.unreadable] == [("a.md", "permission denied")]
    assert report.problem_count == 1


# -- cache ---------------------------------------------------------------------------------------------------


def test_detail_files_are_parsed_once_until_they_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"MEMORY.md": "- [a](a.md)\n", **{f"d{n}.md": f"# D{n}\n" for n in range(5)}, "a.md": "# A\n"})
    pointers.clear_cache()
    parsed: list[str] = []
    real = pointers.parse_document

    def counting(name: str, raw: bytes):
        parsed.append(name)
        return real(name, raw)

    monkeypatch.setattr(pointers.documents, "parse_document", counting)  # the room that reads from disk
    check_pointers(tmp_path)
    assert sorted(parsed) == sorted(["MEMORY.md", "a.md"] + [f"d{n}.md" for n in range(5)])
    parsed.clear()
    check_pointers(tmp_path)
    assert parsed == []
    (tmp_path / "a.md").write_text("# A changed, longer\n")
    check_pointers(tmp_path)
    assert parsed == ["a.md"]


# -- wikilinks and front matter ---------------------------------------------------------------------

CORPUS = Path("/work/shared/corpus")


def test_wikilinks_resolve_by_front_matter_name_and_stem(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": (
            "# Index\n"
            "- [[no-tls]] by front-matter name; [[proxmox_cluster|the cluster]] by stem with an alias\n"
            "- [[topics/deploy#Friday freeze]] by path and heading, [[deploy#friday-freeze]] by slug\n"
            "- [[later-memory]](a gloss, not a link) and [[exam-stem-no-daum]]\n"
            "- [[proxmox-cluster]] is a probable typo of the stem\n"
        ),
        "feedback_no_tls.md": "---\nname: no-tls\ndescription: never turn off TLS checks\nmetadata:\n  type: feedback\n---\n# No TLS\n",
        "proxmox_cluster.md": "# Cluster\n",
        "topics/deploy.md": "---\nname: Deploy rules\ntype: project\n---\n# Deploy\n## Friday freeze\n",
        "feedback_exam-stem-no-daum.md": "# Exam stems\n",
        "orphan.md": "# Nobody links here\n",
    })
    report = check_pointers(tmp_path)
    wiki = [(link.target, link.text, link.line) for link in report.links_by_file["MEMORY.md"] if link.kind == "wiki"]
    assert wiki == [
        ("no-tls", "no-tls", 2), ("proxmox_cluster", "the cluster", 2),
        ("topics/deploy#Friday freeze", "topics/deploy#Friday freeze", 3), ("deploy#friday-freeze", "deploy#friday-freeze", 3),
        ("later-memory", "later-memory", 4), ("exam-stem-no-daum", "exam-stem-no-daum", 4),
        ("proxmox-cluster", "proxmox-cluster", 5),
    ]
    # "(a gloss, not a link)" after a wikilink is text: no link to a file named "a gloss…".
    assert all(link.kind != "file" for link in report.links_by_file["MEMORY.md"])
    assert [(u.line, u.target) for u in report.unwritten] == [(4, "later-memory")]
    # Respelled links are questions (the file they probably mean, the spelling that resolves), not dangling.
    assert report.dangling == []
    assert [(p.line, p.target, p.meant, p.spelling) for p in report.probable] == [
        (4, "[[exam-stem-no-daum]]", "feedback_exam-stem-no-daum.md", "[[feedback_exam-stem-no-daum]]"),
        (5, "[[proxmox-cluster]]", "proxmox_cluster.md", "[[proxmox_cluster]]"),
    ]
    # Wikilinks reach files: only the file nothing names is an orphan; unwritten and probable are not problems.
    assert report.orphans == ["orphan.md"]
    assert report.problem_count == 1
    # What a detail file declares, for the panels.
    assert report.detail("feedback_no_tls.md").type == "feedback"
    assert report.detail("feedback_no_tls.md").description == "never turn off TLS checks"
    assert report.detail("topics/deploy.md").name == "Deploy rules"
    assert report.detail("topics/deploy.md").type == "project"
    assert report.detail("proxmox_cluster.md").type == ""


def test_wikilink_to_a_missing_heading_is_dangling(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- [[deploy#Fridays]]\n", "deploy.md": "# Deploy\n## Friday freeze\n"})
    (dangling,) = check_pointers(tmp_path).dangling
    assert (dangling.target, dangling.reason) == ("[[deploy#Fridays]]", "no such heading")


def test_front_matter_is_not_a_heading_and_bad_yaml_declares_nothing(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": "- [a](a.md#a) [b](b.md#name-b)\n",
        "a.md": "---\nname: a\n---\n# A\n",
        "b.md": "---\nname: b: : [\n---\n# B\n",
    })
    report = check_pointers(tmp_path)
    # Without front matter support, "name: b…" over "---" would be a setext heading "name-b…".
    assert [d.target for d in report.dangling] == ["b.md#name-b"]
    assert report.detail("b.md").valid is False and report.detail("b.md").name == ""


def test_corpus_wikilinks(tmp_path: Path) -> None:
    star = check_pointers(CORPUS / "BoykoNeov__star-sim/docs/memory")
    links = [link for links in star.links_by_file.values() for link in links if link.kind == "wiki"]
    assert len(links) == 72
    assert sorted({u.target for u in star.unwritten}) == ["star-sim-stack-notes"]
    # [[../plans/ROADMAP.md]] is a path out of the memory dir (the corpus copy has no plans/ beside it)
    assert {(e.target, e.reason) for e in star.escapes} == {("../plans/ROADMAP.md", "'..' leaves the memory dir")}
    assert star.dangling == [] and star.orphans == []
    clash = check_pointers(CORPUS / "AdielMag__ClashUp/.claude/memory")
    assert sum(link.kind == "wiki" for links in clash.links_by_file.values() for link in links) == 8
    assert clash.unwritten == [] and clash.problem_count == 0
    bonds = check_pointers(CORPUS / "chriswinn__commons-bonds/tools/memory")
    asked = {(p.target, p.spelling) for p in bonds.probable}
    assert ("[[feedback-author-redline-final-stage]]", "[[author-redline-final-stage]]") in asked  # by name:
    assert ("[[feedback-em-dash-overuse]]", "[[feedback_em_dash_overuse]]") in asked  # by stem
    assert not any(d.target.startswith("[[") for d in bonds.dangling)
    assert bonds.detail("feedback_author_redline_final_stage.md").name == "author-redline-final-stage"


# -- did-you-mean, decoded targets, images, file://, directories, symlinks, line numbers --------------


def test_did_you_mean_only_when_clearly_meant(tmp_path: Path) -> None:
    write(tmp_path, {
        "MEMORY.md": (
            "- [a](logs/2026-08-07.md) another day's log is not a fix\n"
            "- [b](Feedback-No-TLS) case, dashes and a missing .md are\n"
            "- [c](pr-review-observations.md) the nearest of unrelated files is not\n"
            "- [d](index.md) the same file name in one other directory is\n"
        ),
        "logs/2026-08-09.md": "# log\n", "logs/2026-08-10.md": "# log\n",
        "feedback_no_tls.md": "# x\n", "adr-review-observations.md": "# x\n", "sub/index.md": "# x\n",
    })
    got = [(d.target, d.suggestion) for d in check_pointers(tmp_path).dangling]
    assert got == [
        ("logs/2026-08-07.md", None), ("Feedback-No-TLS", "feedback_no_tls.md"),
        ("pr-review-observations.md", None), ("index.md", "sub/index.md"),
    ]


def test_targets_are_shown_decoded(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- [a](구독.md) [b](notes.md#§3.8-rules) [c](my%20file.md)\n", "notes.md": "# Notes\n"})
    targets = [d.target for d in check_pointers(tmp_path).dangling]
    assert targets == ["구독.md", "notes.md#§3.8-rules", "my file.md"]


def test_images_and_file_urls_are_pointers(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": (
        f"- ![chart](missing.png) ![ok](img/ok.png)\n"
        f"- [inside](file://{tmp_path}/detail.md) [outside](file:///etc/hosts)\n"
    ), "img/ok.png": "png", "detail.md": "# Detail\n"})
    report = check_pointers(tmp_path)
    assert [(d.line, d.target) for d in report.dangling] == [(1, "missing.png")]
    assert [(e.line, e.target) for e in report.escapes] == [(2, "file:///etc/hosts")]
    assert report.orphans == []  # the file:// link reaches detail.md


def test_a_link_to_a_directory_reaches_its_files(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- [feedback](feedback/)\n", "feedback/a.md": "# a\n", "feedback/deep/b.md": "# b\n",
                     "other/c.md": "# c\n"})
    assert check_pointers(tmp_path).orphans == ["other/c.md"]


def test_a_link_through_a_symlinked_directory_inside_resolves(tmp_path: Path) -> None:
    memory = write(tmp_path / "memory", {"MEMORY.md": "- [a](current/notes.md#n) [b](spare/x.md)\n",
                                         "archive-2026/notes.md": "# N\n", ".hidden/x.md": "# x\n"})
    (memory / "current").symlink_to("archive-2026")
    (memory / "spare").symlink_to(".hidden")
    outside = write(tmp_path / "outside", {"secret.md": "# s\n"})
    (memory / "away").symlink_to(outside)
    (memory / "MEMORY.md").write_text("- [a](current/notes.md#n) [b](spare/x.md) [c](away/secret.md)\n")
    report = check_pointers(memory)
    assert report.dangling == [] and report.orphans == []
    assert [(e.target, e.reason) for e in report.escapes] == [("away/secret.md", "symlink leads outside the memory dir")]


def test_line_numbers_after_a_multi_line_code_span(tmp_path: Path) -> None:
    write(tmp_path, {"MEMORY.md": "- a `code\nspan` then [x](missing.md)\n  ![i](gone.png) after\n"})
    assert [(d.line, d.target) for d in check_pointers(tmp_path).dangling] == [(2, "missing.md"), (3, "gone.png")]


# -- github-slugger's own fixtures --------------------------------------------------------------------

SLUGGER_FIXTURES = json.loads((DATA / "github-slugger" / "fixtures.json").read_text("utf-8"))


def test_github_slugger_fixtures() -> None:
    slugger = Slugger()  # one slugger for the whole list, as the fixtures' own test runs them
    got = [(case["name"], slugger.slug(case["input"])) for case in SLUGGER_FIXTURES]
    assert got == [(case["name"], case["expected"]) for case in SLUGGER_FIXTURES]


def test_github_slugger_fixtures_as_headings_resolve(tmp_path: Path) -> None:
    """Every case whose heading text markdown keeps as written (``__proto__`` turns bold) is a
    heading of one file; a link to each expected anchor must resolve."""
    headings = [case.get("markdownOverwrite") or "# " + case["input"] for case in SLUGGER_FIXTURES]
    detail = "\n\n".join(headings) + "\n"
    texts = [title for _level, title, _line in markdown.headings_in_tokens(markdown.parse(detail))]
    assert len(texts) == len(SLUGGER_FIXTURES)
    carried = [case for case, text in zip(SLUGGER_FIXTURES, texts) if text == case["input"]]
    assert len(carried) >= 74
    links = "".join(f"- [{n}](detail.md#{case['expected']})\n" for n, case in enumerate(carried))
    write(tmp_path, {"MEMORY.md": links, "detail.md": detail})
    report = check_pointers(tmp_path)
    assert [d.target for d in report.dangling] == []


@pytest.mark.parametrize("yaml_text", ["[" * 5000 + "]" * 5000, "name: !!python/object:os.system x", "\x00: x",
                                       "- a list\n- not a mapping", "name: [1, 2]\ntype: {a: b}"])
def test_front_matter_garbage_declares_nothing_and_never_raises(tmp_path: Path, yaml_text: str) -> None:
    write(tmp_path, {"MEMORY.md": "- [[x]]\n", "x.md": f"---\n{yaml_text}\n---\n# X\n"})
    report = check_pointers(tmp_path)
    assert report.orphans == [] and report.dangling == []  # [[x]] still reaches x.md by its stem
    assert report.detail("x.md").name == "" and report.detail("x.md").type == ""


@pytest.mark.skipif(not (CORPUS / "rjmurillo__ai-agents").is_dir(), reason="corpus not available")
def test_corpus_suggestions_are_the_same_file_elsewhere_never_a_neighbour() -> None:
    """A Serena memory dir with hundreds of links to files that were not copied: the old nearest-match
    guess offered unrelated siblings; now every guess is the same file name in another directory."""
    report = check_pointers(CORPUS / "rjmurillo__ai-agents/.serena/memories")
    guessed = [d for d in report.dangling if d.suggestion]
    assert len(report.dangling) > 400 and guessed
    loose = pointers.matching._loose
    for d in guessed:
        assert loose(d.suggestion.rpartition("/")[2]) == loose(d.target.rpartition("/")[2]), d
        assert posixpath.normpath(posixpath.join(posixpath.dirname(d.file), d.suggestion)) != d.file
