"""`check` on what the pointer reports add (links into the repo, names written bare, an ARCHIVE.md out
of reach), and the size past which every command refuses at once in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator import bounds, index_model
from curator.cli import main
from tests.support.paths import CORPUS, REPO
from tests.support.seats import seat

HELDOUT = REPO / "bench" / "heldout_pointers"
CLEAN = b"# Seat memory index\n## Identity & seat\n- [Identity](identity.md) - who\n"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


# -- what the report says ---------------------------------------------------------------------------


def test_an_archive_out_of_reach_is_one_line_in_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN, **{"identity.md": "# I\n", "ARCHIVE.md": "# Archive\n- old lesson\n"})
    code, out, _ = run(capsys, "check", memory)
    assert code == 2
    lines = [line for line in out.splitlines() if "ARCHIVE.md" in line]
    assert lines == ["  ARCHIVE.md: unlinked archive: nothing reachable from MEMORY.md links or names it, "
                     "so its entries are out of the agent's reach"]
    data = json.loads(run(capsys, "check", memory, "--json")[1])
    assert data["pointers"]["unlinked_archive"] == "ARCHIVE.md" and data["exit_code"] == 2
    linked = seat(tmp_path / "linked", CLEAN + b"- [Archive](ARCHIVE.md) - cold entries\n",
                  **{"identity.md": "# I\n", "ARCHIVE.md": "# Archive\n"})
    assert json.loads(run(capsys, "check", linked, "--json")[1])["pointers"]["unlinked_archive"] is None


def test_links_into_the_repo_and_bare_names_are_information_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "CLAUDE.md").write_text("# Rules\n", encoding="utf-8")
    memory = seat(repo / ".claude" / "memory", CLEAN + b"- Quick start: [CLAUDE.md](../../CLAUDE.md)\n"
                  b"- Plan: `project_plan.md`\n", **{"identity.md": "# I\n", "project_plan.md": "# Plan\n"})
    code, out, _ = run(capsys, "check", memory)
    assert code == 0
    assert "Links out of the memory dir into this repository (1, not a problem): ../../CLAUDE.md" in out
    assert "Reached by bare file name only (1, not a problem): project_plan.md" in out
    pointers = json.loads(run(capsys, "check", memory, "--json")[1])["pointers"]
    assert pointers["outside"] == [{"file": "MEMORY.md", "line": 4, "target": "../../CLAUDE.md", "path": "CLAUDE.md"}]
    assert pointers["named_only"] == ["project_plan.md"] and pointers["escapes"] == []


@pytest.mark.skipif(not (HELDOUT / "Aleslammer__deathwatch_foundryvtt").is_dir(), reason="held-out set not present")
def test_heldout_memory_dirs_have_no_false_pointer_problems(capsys: pytest.CaptureFixture[str]) -> None:
    """Real dirs this project never tuned on: a committed .claude/memory that links ../../CLAUDE.md,
    a Chinese one whose lessons name project.md bare. (The held-out copies sit in this repository, so
    its own work tree stands for theirs.)"""
    data = json.loads(run(capsys, "check", HELDOUT / "Aleslammer__deathwatch_foundryvtt/.claude/memory", "--json")[1])
    assert [o["target"] for o in data["pointers"]["outside"]] == ["../../CLAUDE.md", "../docs/README.md", "../../docs/"]
    assert data["pointers"]["escapes"] == [] and data["exit_code"] == 0
    data = json.loads(run(capsys, "check", HELDOUT / "Akai0301__nl2sql-langgraph/.claude/memory", "--json")[1])
    assert data["pointers"]["orphans"] == [] and data["pointers"]["named_only"] == ["project.md"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus not present")
def test_corpus_orphans_named_in_backticks_are_reached(capsys: pytest.CaptureFixture[str]) -> None:
    memory = CORPUS / "jasonwilk__baseball-crawl/.claude/agent-memory/claude-architect"
    pointers = json.loads(run(capsys, "check", memory, "--json")[1])["pointers"]
    assert pointers["orphans"] == [] and len(pointers["named_only"]) == 9


# -- bounded cost: refuse at once past the limit ------------------------------------------------------


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limits of a few hundred bytes, so a test need not write megabytes to cross them."""
    monkeypatch.setattr(bounds, "ANALYSIS_LIMIT", 400)
    monkeypatch.setattr(bounds, "WEIGHING_LIMIT", 200)
    monkeypatch.setattr(bounds, "FIT_LIMIT", 200)


def big_seat(tmp_path: Path, size: int) -> Path:
    body = b"".join(b"- lesson %03d about the deploy hook\n" % n for n in range(size // 30 + 1))
    return seat(tmp_path, CLEAN + body[: size - len(CLEAN)], **{"identity.md": "# I\n"})


@pytest.mark.usefixtures("small_limits")
@pytest.mark.parametrize("command", [["check"], ["check", "--json"], ["candidates"], ["fit"], ["trim"],
                                     ["archive", "abc123"], ["tui"]])
def test_every_command_refuses_an_index_past_the_limit_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    memory = big_seat(tmp_path, 401)
    before = {path.name: path.read_bytes() for path in memory.iterdir()}
    code, out, err = run(capsys, command[0], memory, *command[1:])
    assert (code, out) == (1, "")
    (line,) = err.splitlines()
    assert line.startswith(f"seat-curator: TOO_LARGE: {memory / 'MEMORY.md'}: is 401 B; ")
    assert "split it first" in line
    assert {path.name: path.read_bytes() for path in memory.iterdir()} == before


@pytest.mark.usefixtures("small_limits")
def test_weighing_commands_have_the_lower_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = big_seat(tmp_path, 300)
    assert run(capsys, "check", memory)[0] in (0, 2)  # analysed
    for command in ("candidates", "fit"):
        code, _out, err = run(capsys, command, memory)
        assert code == 1 and f"is 300 B; {command} works on files up to 200 B" in err


@pytest.mark.usefixtures("small_limits")
def test_archive_search_refuses_a_huge_archive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN, **{"identity.md": "# I\n", "ARCHIVE.md": "- old lesson\n" * 40})
    code, _out, err = run(capsys, "archive-search", memory, "lesson")
    assert code == 1 and "ARCHIVE.md: is 520 B; archive-search works on files up to 400 B" in err


@pytest.mark.usefixtures("small_limits")
def test_a_detail_file_past_the_limit_is_unreadable_not_parsed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN + b"- [big](big.md)\n", **{"identity.md": "# I\n", "big.md": "# Big\n" + "x " * 300})
    unreadable = json.loads(run(capsys, "check", memory, "--json")[1])["pointers"]["unreadable"]
    assert unreadable == [{"file": "big.md", "message": "is 606 B; the pointer check works on files up to 400 B, "
                                                        "and a harness reads only the first ~25 KB: split it first"}]


def test_under_the_limit_the_output_is_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    memory = big_seat(tmp_path, 400)
    unbounded = run(capsys, "check", memory, "--json")
    monkeypatch.setattr(bounds, "ANALYSIS_LIMIT", 400)
    assert run(capsys, "check", memory, "--json") == unbounded


def test_the_documented_limits() -> None:
    assert (bounds.ANALYSIS_LIMIT, bounds.WEIGHING_LIMIT, bounds.FIT_LIMIT) == (4 * 1024 * 1024, 1024 * 1024, 128 * 1024)
    docs = (REPO / "docs" / "check-json.md").read_text(encoding="utf-8")
    assert "4 MiB" in docs and "1 MiB" in docs and "128 KiB" in docs and "TOO_LARGE" in docs


# -- the index model's sections, found by bisection, are what the definition says -----------------------


@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus not present")
def test_section_entry_ids_match_their_definition_on_the_corpus() -> None:
    for path in sorted(CORPUS.rglob("*.md")):
        index = index_model.parse_index(path.read_bytes())
        for section in index.sections:
            expected = tuple(e.id for e in index.entries if section.start < e.line <= section.end)
            assert section.entry_ids == expected, (path, section.heading)
        for entry in index.entries:
            heading = ""
            for section in index.sections:
                if section.start <= entry.line - 1:
                    heading = section.heading
            assert entry.section == heading, (path, entry.line)
