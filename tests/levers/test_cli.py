"""The lever commands end to end: meters before/after, refusals, undo/redo across invocations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.cli import main
from curator.index_model import parse_index

INDEX = (
    "# Seat memory index\n"
    "\n"
    "## Craft hooks\n"
    "- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays.\n"
    "- Always deploy with `make ship`, never on Fridays; ask ops first (see #4412).\n"
    "- [Tests](tests.md) — run pytest with -q before pushing; the suite takes two minutes on CI and "
    "fails fast on the first error, so read the first traceback, not the last one.\n"
)


@pytest.fixture
def seat(tmp_path: Path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "deploy.md").write_text("# Deploy\n")
    (memory / "tests.md").write_text("# Tests\n")
    return memory, ["--state-dir", str(tmp_path / "state")]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def entry_ids(memory: Path) -> list[str]:
    return [e.id for e in parse_index((memory / "MEMORY.md").read_bytes()).entries]


def test_candidates_merge_undo_redo(seat, capsys):
    memory, state = seat
    code, out, _ = run(capsys, "candidates", memory, *state, "--json")
    assert code == 0
    data = json.loads(out)
    pair = data["candidates"][0]["entry_ids"]
    assert data["meter"]["bytes"] == len(INDEX.encode())

    code, out, _ = run(capsys, "merge", memory, *pair, *state)
    assert code == 0
    merged = (memory / "MEMORY.md").read_bytes()
    assert f"before: {len(INDEX.encode()):,} B" in out and f"after:  {len(merged):,} B" in out
    assert len(merged) < len(INDEX.encode())

    code, out, _ = run(capsys, "undo", memory, *state)  # a new process-like invocation: a new store
    assert code == 0 and (memory / "MEMORY.md").read_text() == INDEX
    assert "before:" in out and "after:" in out
    code, _, _ = run(capsys, "redo", memory, *state)
    assert code == 0 and (memory / "MEMORY.md").read_bytes() == merged
    code, _, err = run(capsys, "redo", memory, *state)
    assert code == 1 and "NOTHING_TO_REDO" in err and "Traceback" not in err


def test_refused_merge_names_what_would_be_lost_and_writes_nothing(seat, capsys):
    memory, state = seat
    a, _b, c = entry_ids(memory)
    code, _, err = run(capsys, "merge", memory, a, c, "--text", "deploy and test", *state)
    assert code == 1
    assert "MERGE_WOULD_LOSE_POINTERS" in err and "tests.md" in err and "orphaned" in err
    assert (memory / "MEMORY.md").read_text() == INDEX
    code, out, _ = run(capsys, "merge", memory, a, c, "--text", "deploy and test", "--force", *state)
    assert code == 0 and "warning: dropped pointer tests.md" in out


def test_archive_search_restore_and_trim(seat, capsys):
    memory, state = seat
    deploy = entry_ids(memory)[0]
    code, out, _ = run(capsys, "archive", memory, deploy, "--date", "2026-11-29", *state)
    assert code == 0 and "before:" in out and "after:" in out
    code, out, _ = run(capsys, "archive-search", memory, "deploy notes fridays", "--json", *state)
    hits = json.loads(out)["hits"]
    assert code == 0 and hits[0]["archived_on"] == "2026-11-29"
    code, _, _ = run(capsys, "restore", memory, hits[0]["entry_id"], *state)
    assert code == 0 and "- [Deploy notes](deploy.md)" in (memory / "MEMORY.md").read_text()

    code, out, _ = run(capsys, "trim", memory, "--threshold", "150", "--json", *state)
    suggestion = json.loads(out)["suggestions"][0]
    assert code == 0 and suggestion["kind"] == "split" and suggestion["detail_file"] == "tests.md"
    code, out, _ = run(capsys, "trim", memory, "--apply", suggestion["entry_id"], "--kind", "split", *state)
    assert code == 0 and "## Tests" in (memory / "tests.md").read_text()
    assert "tests.md" in (memory / "MEMORY.md").read_text()
    for _ in range(3):  # trim, restore, archive
        assert run(capsys, "undo", memory, *state)[0] == 0
    assert (memory / "MEMORY.md").read_text() == INDEX
    assert (memory / "tests.md").read_text() == "# Tests\n"
    assert not (memory / "ARCHIVE.md").exists()


def test_unknown_id_is_one_line_error(seat, capsys):
    memory, state = seat
    code, _, err = run(capsys, "archive", memory, "zzzzzz", *state)
    assert code == 1 and err.count("\n") == 1 and "zzzzzz" in err


def snapshot(*roots: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for root in roots if root.exists()
            for p in sorted(root.rglob("*")) if p.is_file()}


BAD_ARGUMENTS = [["--target", "-1"], ["--read-limit", "0"], ["--target", "30000", "--read-limit", "20000"]]


@pytest.mark.parametrize("bad", BAD_ARGUMENTS, ids=["target", "read-limit", "target-over-limit"])
@pytest.mark.parametrize("lever", ["merge", "archive", "trim", "restore", "undo", "redo"])
def test_a_bad_argument_is_refused_before_anything_is_written(seat, capsys, lever, bad):
    memory, state = seat
    a, b, c = entry_ids(memory)
    if lever == "restore":
        assert run(capsys, "archive", memory, a, *state)[0] == 0
        _, out, _ = run(capsys, "archive-search", memory, "deploy notes", "--json", *state)
        argv = ["restore", memory, json.loads(out)["hits"][0]["entry_id"]]
    elif lever in ("undo", "redo"):
        assert run(capsys, "archive", memory, a, *state)[0] == 0
        if lever == "redo":
            assert run(capsys, "undo", memory, *state)[0] == 0
        argv = [lever, memory]
    else:
        argv = {"merge": ["merge", memory, a, c, "--force"], "archive": ["archive", memory, a],
                "trim": ["trim", memory, "--apply", c, "--kind", "split", "--threshold", "150"]}[lever]
    before = snapshot(memory, Path(state[1]))
    code, _, err = run(capsys, *argv, *state, *bad)
    assert code != 0 and "BAD_ARGUMENTS" in err and err.count("\n") == 1
    assert snapshot(memory, Path(state[1])) == before


@pytest.mark.parametrize("argv", [["candidates", "--limit", "-1"], ["trim", "--top", "-1"],
                                  ["trim", "--threshold", "-5"], ["archive-search", "x", "--limit", "-2"]])
def test_negative_counts_are_refused(seat, capsys, argv):
    memory, state = seat
    code, _, err = run(capsys, argv[0], memory, *argv[1:], *state)
    assert code == 1 and "BAD_ARGUMENTS" in err and err.count("\n") == 1


@pytest.mark.parametrize("text", ["merged \udcff line", "half a pair \ud800"], ids=["undecodable-byte", "lone-surrogate"])
def test_merge_text_that_is_not_utf8_is_refused_before_anything_is_written(seat, capsys, text):
    """`--text $'\\xff'` reaches Python as a lone surrogate (the argv byte could not be decoded): it
    cannot become UTF-8 file content, so it is one coded line, not a UnicodeEncodeError traceback."""
    memory, state = seat
    a, b, _c = entry_ids(memory)
    before = snapshot(memory, Path(state[1]))
    code, _, err = run(capsys, "merge", memory, a, b, "--force", "--text", text, *state)
    assert code == 1 and "BAD_ARGUMENTS" in err and "--text" in err and err.count("\n") == 1
    assert snapshot(memory, Path(state[1])) == before
