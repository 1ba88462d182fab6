"""The pointer graph: link kinds, dangling files and anchors, escapes, orphans, overrides, caching."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from curator import pointers
from curator.pointers import check_pointers
from curator.slugs import github_slug, heading_slugs
from tests.core_support import deny_read, restore_read


def write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return directory


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
        ("MEMORY.md", 5, "detail.md#notes-2", "no such heading", "detail.md#notes-1"),
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
    assert report.problem_count == 2


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

    monkeypatch.setattr(pointers, "parse_document", counting)
    check_pointers(tmp_path)
    assert sorted(parsed) == sorted(["MEMORY.md", "a.md"] + [f"d{n}.md" for n in range(5)])
    parsed.clear()
    check_pointers(tmp_path)
    assert parsed == []
    (tmp_path / "a.md").write_text("# A changed, longer\n")
    check_pointers(tmp_path)
    assert parsed == ["a.md"]
