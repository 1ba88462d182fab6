"""How a ``[[wikilink]]`` resolves, as Claude Code's memory convention has it: by the other memory's
``name:`` (or its file stem), exactly; a respelling (``-`` for ``_``, a memory-type word left out or
added, punctuation) only probably names a file, so it is a question for the bearer, never a dangling
error. Also: a bare name is matched whole, and a folder written before it must lead into the memory
dir. Each shape comes from a real memory dir (lucos SRE and coordinator seats, commons-bonds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.cli import main
from curator.levers.pointer_delta import added_problems
from curator.pointers import check_pointers
from tests.support.files import write

# The lucos shape: file names in snake_case with a type word, `name:` a kebab slug without it.
CORRELATION = ("---\nname: correlation-is-not-confirmed\ndescription: weak evidence is not proof\n"
               "metadata:\n  type: feedback\n---\n# Correlation\n")
OVERCLAIM = "---\nname: Don't overclaim attributions\ndescription: quote, don't attribute\ntype: feedback\n---\n# x\n"


def seat(tmp_path: Path, index: str, **files: str) -> Path:
    return write(tmp_path / "memory", {"MEMORY.md": index, **files})


def test_a_link_equal_to_a_name_or_a_stem_resolves(tmp_path: Path) -> None:
    memory = seat(tmp_path, "- [[correlation-is-not-confirmed]] by name:\n- [[feedback_correlation_is_not_confirmed]]\n",
                  **{"feedback_correlation_is_not_confirmed.md": CORRELATION})
    report = check_pointers(memory)
    assert (report.dangling, report.probable, report.unwritten, report.orphans) == ([], [], [], [])


def test_a_link_respelled_with_hyphens_is_a_question_not_a_dangling_link(tmp_path: Path) -> None:
    memory = seat(tmp_path, "- [Correlation](feedback_correlation_is_not_confirmed.md)\n- [x](x.md)\n",
                  **{"feedback_correlation_is_not_confirmed.md": CORRELATION,
                     "x.md": "see [[feedback-correlation-is-not-confirmed]] and [[reference-loganne-self-verify]]\n",
                     "reference_loganne_self_verify.md": "---\nname: loganne-self-verify\n---\n# y\n"})
    report = check_pointers(memory)
    assert report.dangling == [] and report.problem_count == 0
    asked = [(p.file, p.line, p.target, p.meant, p.spelling) for p in report.probable]
    assert asked == [
        ("x.md", 1, "[[feedback-correlation-is-not-confirmed]]", "feedback_correlation_is_not_confirmed.md",
         "[[correlation-is-not-confirmed]]"),
        ("x.md", 1, "[[reference-loganne-self-verify]]", "reference_loganne_self_verify.md", "[[loganne-self-verify]]"),
    ]
    question = report.probable[0].question
    assert question.startswith("[[feedback-correlation-is-not-confirmed]] probably means "
                               "feedback_correlation_is_not_confirmed.md (its file name ")
    assert "`-`/`_`" in question and question.endswith("write [[correlation-is-not-confirmed]]?")
    assert report.orphans == []  # the respelled link still reaches the file it probably means


def test_a_memory_type_word_may_be_left_out_or_added_and_no_other_word(tmp_path: Path) -> None:
    memory = seat(tmp_path, (
        "- [[no-attribution-overclaim]] the harness's type word left out\n"
        "- [[feedback-author-redline]] a type word added to the name:\n"
        "- [[probe-first]] the file's declared type left out\n"
        "- [[slice-two-built]] an arbitrary first word left out: not a respelling\n"
        "- [[probe-later]] a word the file does not declare as its type\n"
    ), **{
        "feedback_no_attribution_overclaim.md": OVERCLAIM,
        "redline.md": "---\nname: author-redline\ntype: feedback\n---\n# r\n",
        "pattern_probe_first.md": "---\nname: Probe first\ntype: pattern\n---\n# p\n",
        "game_slice_two_built.md": "# g\n",
        "pattern_probe_later.md": "# q\n",
    })
    report = check_pointers(memory)
    asked = {p.target: (p.meant, p.spelling) for p in report.probable}
    assert asked == {
        "[[no-attribution-overclaim]]": ("feedback_no_attribution_overclaim.md", "[[feedback_no_attribution_overclaim]]"),
        "[[feedback-author-redline]]": ("redline.md", "[[author-redline]]"),
        "[[probe-first]]": ("pattern_probe_first.md", "[[pattern_probe_first]]"),
    }
    assert "without its type word `feedback`" in report.probable[0].why
    assert "with the type word `feedback` added" in report.probable[1].why
    assert sorted(u.target for u in report.unwritten) == ["probe-later", "slice-two-built"]
    assert report.dangling == []


def test_a_respelling_that_fits_two_files_asks_nothing(tmp_path: Path) -> None:
    memory = seat(tmp_path, "- [[deploy-notes]]\n", **{"deploy_notes.md": "# a\n", "deploy notes.md": "# b\n",
                                                        "feedback_deploy_notes.md": "# c\n"})
    report = check_pointers(memory)
    assert report.probable == [] and [u.target for u in report.unwritten] == ["deploy-notes"]


def test_check_json_lists_the_question_and_exits_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, "- [Correlation](feedback_correlation_is_not_confirmed.md) see [[no-attribution-overclaim]]\n",
                  **{"feedback_correlation_is_not_confirmed.md": CORRELATION,
                     "feedback_no_attribution_overclaim.md": OVERCLAIM})
    code = main(["check", str(memory), "--json"])
    pointers = json.loads(capsys.readouterr().out)["pointers"]
    assert code == 0 and pointers["dangling"] == [] and pointers["orphans"] == []
    (asked,) = pointers["probable"]
    assert (asked["file"], asked["line"], asked["target"], asked["meant"], asked["spelling"]) == (
        "MEMORY.md", 1, "[[no-attribution-overclaim]]", "feedback_no_attribution_overclaim.md",
        "[[feedback_no_attribution_overclaim]]")
    assert asked["question"].startswith("[[no-attribution-overclaim]] probably means feedback_no_attribution_overclaim.md")
    main(["check", str(memory)])
    assert "probably means feedback_no_attribution_overclaim.md" in capsys.readouterr().out


def test_a_change_that_leaves_a_link_only_probable_is_an_added_problem(tmp_path: Path) -> None:
    memory = seat(tmp_path, "- [T](feedback_testing.md) and [[feedback_testing]]\n- [[deploy-notes]]\n",
                  **{"feedback_testing.md": "---\nname: testing\ntype: feedback\n---\n# t\n"})
    before = check_pointers(memory)
    # Renaming the file: the stem link now rests on a type word; a new file makes an unwritten link probable.
    after = check_pointers(memory, overrides={
        "feedback_testing.md": None, "testing.md": b"# t\n", "deploy_notes.md": b"# d\n",
        "MEMORY.md": b"- [T](testing.md) and [[feedback_testing]]\n- [[deploy-notes]]\n"})
    assert added_problems(before, after) == ["respelled [[deploy-notes]] (only probably deploy_notes.md)",
                                             "respelled [[feedback_testing]] (only probably testing.md)"]
    # Moving a line that holds a probable link into another file moves the question: nothing is added.
    moved = check_pointers(memory, overrides={
        "MEMORY.md": b"- [T](testing.md) and [[feedback_testing]]\n- [more](more.md)\n",
        "more.md": b"- [[deploy-notes]]\n", "feedback_testing.md": None, "testing.md": b"# t\n",
        "deploy_notes.md": b"# d\n"})
    assert added_problems(after, moved) == []


# -- bare names are whole names ---------------------------------------------------------------------


def test_a_bare_name_inside_a_longer_name_or_another_folder_names_nothing(tmp_path: Path) -> None:
    memory = write(tmp_path / ".claude" / "memory", {
        "MEMORY.md": "- [Topics](topics.md)\n",
        "topics.md": ("Fixed `agents/sre-ops-checks.md` and `~/.claude/agents/ops-checks.md`; "
                      "see also x.ops-checks.md and feedback_ops-checks.md; the deploy file: "
                      "`.claude/memory/deploy.md`\n"),
        "ops-checks.md": "# ops\n",
        "deploy.md": "# d\n",
    })
    report = check_pointers(memory)
    # Another folder's ops-checks.md is another file; `.claude/memory/` is this dir, so deploy.md is named.
    assert report.orphans == ["ops-checks.md"]
    assert report.named_only == ["deploy.md"]
    named = write(tmp_path / "other", {"MEMORY.md": "- see `.claude/memory/deploy.md`\n", "deploy.md": "# d\n"})
    assert check_pointers(named).orphans == ["deploy.md"]  # this dir is not .claude/memory


def test_a_respelled_link_to_a_heading_the_file_lacks_says_so_with_the_heading_it_probably_means(
        tmp_path: Path) -> None:
    memory = seat(tmp_path, "- [TLS](feedback_no_tls.md)\n- [[feedback-no-tls#Why it matter]] and "
                            "[[feedback-no-tls#How to apply]] and [[feedback-no-tls#Nowhere near]]\n",
                  **{"feedback_no_tls.md": "---\nname: no-tls\n---\n# x\n## Why it matters\n## How to apply\n"})
    report = check_pointers(memory)
    asked = {p.target: (p.spelling, p.why) for p in report.probable}
    spelling, why = asked["[[feedback-no-tls#Why it matter]]"]
    assert spelling == "[[no-tls#Why it matters]]" and why.endswith("it has no heading 'Why it matter', probably "
                                                                    "'Why it matters'")
    spelling, why = asked["[[feedback-no-tls#How to apply]]"]
    assert spelling == "[[no-tls#How to apply]]" and "no heading" not in why
    spelling, why = asked["[[feedback-no-tls#Nowhere near]]"]
    assert spelling == "[[no-tls#Nowhere near]]" and why.endswith("it has no heading 'Nowhere near'")
