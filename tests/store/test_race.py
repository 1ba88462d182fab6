"""A lever that moves text between files, raced by an agent rewriting MEMORY.md from its own copy.

The agent (race_agent) read MEMORY.md before the lever ran and writes its copy back (plus a line of
its own) at the worst moment: as soon as the temp file of the change's *second* file appears, after
the first file was written, truncating in place or renaming a temp file over it.

Every run: the moved entry is in at least one live file, the agent's line survives, and the exit
code tells the truth (0 only when the lever's change is on disk; otherwise a one-line error).
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable

import pytest

from curator.cli import main
from curator.index_model import parse_index
from tests.support.race_agent import STYLES, agent_at

RUNS = 100  # per lever, half in each writing style
AGENT_LINE = b"- agent: a note written from the agent's own copy\n"
MOVED = b"assert what the user sees"  # the entry archive, restore and their undos move
DETAIL = b"#4412 and the notes in the runbook"  # the text trim moves into wal.md and undo moves back
INDEX = (b"# Seat memory index\n\n## Craft hooks\n- keep fixtures small so a failure reads in one screen\n"
         b"- assert what the user sees, not what the code does\n"
         b"- [WAL flush race](wal.md) \xe2\x80\x94 flush before fsync or replicas diverge; found in the July "
         b"migration when two writers raced on `wal.flush()`, see #4412 and the notes in the runbook.\n")
ARCHIVE = b"# Archive\n\n## Craft hooks\n- an older lesson, archived long ago <!-- archived 2026-01-02 -->\n"
WAL = b"# WAL\n\nold detail\n"
FOLDED = "folded-craft-hooks.md"  # where fold moves the section


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def entry_id(memory: Path, marker: bytes) -> str:
    return next(e.id for e in parse_index((memory / "MEMORY.md").read_bytes()).entries
                if marker.decode() in e.text)


def archived_id(memory: Path, state: list, capsys) -> str:
    code, out, _ = run(capsys, "archive-search", memory, MOVED.decode(), "--json", *state)
    assert code == 0
    return json.loads(out)["hits"][0]["entry_id"]


@dataclass(frozen=True)
class Lever:
    """A lever run on a prepared seat: ``prepare`` (no agent) returns the lever's argv; the agent
    strikes at the temp file of ``second``; ``moved`` must end in ``lands_in`` and leave ``leaves``."""

    prepare: Callable
    second: str
    moved: bytes
    leaves: str
    lands_in: str


def _archive(memory, state, capsys):
    return ["archive", memory, entry_id(memory, MOVED), "--date", "2026-11-29", *state]


def _restore(memory, state, capsys):
    assert run(capsys, *_archive(memory, state, capsys))[0] == 0
    return ["restore", memory, archived_id(memory, state, capsys), *state]


def _undo_archive(memory, state, capsys):
    assert run(capsys, *_archive(memory, state, capsys))[0] == 0
    return ["undo", memory, *state]


def _undo_restore(memory, state, capsys):
    assert run(capsys, *_restore(memory, state, capsys))[0] == 0
    return ["undo", memory, *state]


def _trim(memory, state, capsys):
    return ["trim", memory, "--apply", entry_id(memory, DETAIL), "--kind", "split", *state]


def _fold(memory, state, capsys):
    return ["fold", memory, "Craft hooks", "--apply", *state]


def _undo_fold(memory, state, capsys):
    assert run(capsys, *_fold(memory, state, capsys))[0] == 0
    return ["undo", memory, *state]


def _undo_trim(memory, state, capsys):
    assert run(capsys, *_trim(memory, state, capsys))[0] == 0
    return ["undo", memory, *state]


LEVERS = {
    # Write order: the file that receives text first, the one that gives it up second.
    "archive": Lever(_archive, "MEMORY.md", MOVED, "MEMORY.md", "ARCHIVE.md"),
    "restore": Lever(_restore, "ARCHIVE.md", MOVED, "ARCHIVE.md", "MEMORY.md"),
    "undo-archive": Lever(_undo_archive, "ARCHIVE.md", MOVED, "ARCHIVE.md", "MEMORY.md"),
    "undo-restore": Lever(_undo_restore, "MEMORY.md", MOVED, "MEMORY.md", "ARCHIVE.md"),
    "trim": Lever(_trim, "MEMORY.md", DETAIL, "MEMORY.md", "wal.md"),
    "undo-trim": Lever(_undo_trim, "wal.md", DETAIL, "wal.md", "MEMORY.md"),
    "fold": Lever(_fold, "MEMORY.md", MOVED, "MEMORY.md", FOLDED),
    "undo-fold": Lever(_undo_fold, FOLDED, MOVED, FOLDED, "MEMORY.md"),  # the fold file is deleted
}


def fresh_seat(root: Path) -> tuple[Path, list]:
    memory = root / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_bytes(INDEX)
    (memory / "ARCHIVE.md").write_bytes(ARCHIVE)
    (memory / "wal.md").write_bytes(WAL)
    return memory, ["--state-dir", root / "state"]


def race_once(root: Path, lever: Lever, style: str, capsys, monkeypatch) -> str:
    """One run; returns "applied" or "refused" after checking every promise."""
    memory, state = fresh_seat(root)
    argv = lever.prepare(memory, state, capsys)
    index = memory / "MEMORY.md"
    with agent_at(f"temp-written@{lever.second}#1", root / "stop.fifo", index, index.read_bytes() + AGENT_LINE,
                  style, monkeypatch) as agent:
        code, _out, err = run(capsys, *argv)
    files = {name: (memory / name).read_bytes() if (memory / name).exists() else b""
             for name in ("MEMORY.md", "ARCHIVE.md", "wal.md", FOLDED)}
    assert agent.struck, "the lever never wrote its second file"
    assert any(lever.moved in data for data in files.values()), f"the moved text is in no file ({err})"
    assert AGENT_LINE in files["MEMORY.md"], "the agent's write was lost"
    if code == 0:  # the lever says it is done: its change must be on disk
        assert lever.moved in files[lever.lands_in] and lever.moved not in files[lever.leaves], err
        return "applied"
    assert err.count("\n") == 1 and str(memory) in err and "Traceback" not in err, err
    return "refused"


@pytest.mark.slow  # 100 runs of each lever, a few fsyncs each
@pytest.mark.parametrize("name", list(LEVERS))
def test_an_agent_rewriting_memory_between_the_two_files_never_loses_the_moved_text(
        name, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    outcomes = collections.Counter()
    for n in range(RUNS):
        style = STYLES[n % 2]
        outcomes[style, race_once(tmp_path / str(n), LEVERS[name], style, capsys, monkeypatch)] += 1
    print(name, dict(outcomes))  # shown with -rP: how often the lever was applied or refused
    assert sum(outcomes.values()) == RUNS, outcomes


@pytest.mark.parametrize("style", STYLES)
def test_a_giver_rewritten_without_the_text_after_its_write_leaves_the_text_where_it_landed(
        tmp_path, capsys, monkeypatch, style):
    """The agent rewrites MEMORY.md right after archive wrote it, from a fresh read (without the
    entry) and with a line of its own on top: ARCHIVE.md cannot be put back (the entry would be in
    no file), so it keeps the entry, the change is left interrupted for the bearer, and the exit
    code says so."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    memory, _ = fresh_seat(tmp_path)
    index = memory / "MEMORY.md"
    argv = _archive(memory, [], capsys)  # the default state dir, the one `check` reads
    fresh = INDEX.replace(b"- assert what the user sees, not what the code does\n", b"")
    with agent_at("replace-swapped@MEMORY.md#1", tmp_path / "stop.fifo", index, AGENT_LINE + fresh, style,
                  monkeypatch) as agent:
        code, _out, err = run(capsys, *argv)
    assert agent.struck and code != 0 and err.count("\n") == 1
    assert "still hold the change" in err and "ARCHIVE.md" in err and str(index) in err
    assert MOVED in (memory / "ARCHIVE.md").read_bytes() and index.read_bytes() == AGENT_LINE + fresh
    _code, out, _ = run(capsys, "check", memory)
    assert "an interrupted save of change" in out
