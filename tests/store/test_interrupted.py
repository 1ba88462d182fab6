"""A lever that moves text between files, killed after each of its renames.

Every multi-file lever (archive, restore, trim into a new and into an existing detail file) and
the undo and redo of each runs in a child process that SIGKILLs itself right after its N-th rename
in the memory dir, for N = 1, 2, ... until it finishes without being killed. At every point the
moved text is in at least one live file, `check` names the interrupted change (exit 4) whenever the
files are half-way, undo then brings every file back byte for byte, and redo finishes the change
as an uninterrupted run leaves it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from curator.cli import main
from curator.store import interrupted_change

pytestmark = pytest.mark.crash

INDEX = (
    "# Seat memory index\n"
    "\n"
    "## Craft hooks\n"
    "- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays.\n"
    "- Always deploy with `make ship`, never on Fridays; ask ops first (see #4412).\n"
    "- [Tests](tests.md) — run pytest with -q before pushing; the suite takes two minutes on CI and "
    "fails fast on the first error, so read the first traceback, not the last one.\n"
    "- Release trains leave on Tuesdays; a fix that misses the train waits a week, so land risky "
    "changes on Monday morning and watch the canary dashboards until the evening build is green.\n"
)
ARCHIVED = "ask ops first (see #4412)"  # the entry archive moves out and restore moves back
SPLIT_NEW = "watch the canary dashboards"  # what trim moves into a new detail file
SPLIT_OLD = "read the first traceback"  # what trim moves into tests.md

# The child runs one CLI command and SIGKILLs itself right after its N-th rename in the memory
# dir (an exchange, a link of a new file, or a file moved aside to delete it): no cleanup runs.
CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from curator import fsio
    from curator.cli import main

    memory, kill_at, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    count = {"n": 0}

    def counted(real):
        def rename(src, dst, *args, **kwargs):
            result = real(src, dst, *args, **kwargs)
            if os.path.dirname(os.path.abspath(os.fspath(dst))) == memory:
                count["n"] += 1
                if count["n"] == kill_at:
                    os.kill(os.getpid(), signal.SIGKILL)
            return result
        return rename

    fsio.swap = counted(fsio.swap)
    fsio.link_new = counted(fsio.link_new)
    os.rename = counted(os.rename)
    sys.exit(main(argv))
    """
)


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))  # where check finds the journal
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "xdg")}


def new_seat(root: Path) -> Path:
    memory = root / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "deploy.md").write_text("# Deploy\n")
    (memory / "tests.md").write_text("# Tests\n")
    return memory.resolve()


def files(memory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(memory.iterdir()) if not p.name.startswith(".")}


def cli(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out, _err = capsys.readouterr()
    return code, out


def entry_id(memory: Path, name: str, text: str, capsys) -> str:
    if name == "ARCHIVE.md":
        code, out = cli(capsys, "archive-search", memory, text, "--json")
        return json.loads(out)["hits"][0]["entry_id"]
    code, out = cli(capsys, "check", memory, "--json")
    return next(e["id"] for e in json.loads(out)["entries"] if text in e["text"])


def run_killed(memory: Path, env: dict, kill_at: int, argv: list[str]) -> bool:
    """Run ``argv`` in a child killed after rename ``kill_at``; False if it finished first."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(memory), str(kill_at), *argv],
                          env=env, capture_output=True, timeout=60)
    if done.returncode == 0:
        return False
    assert done.returncode == -9, done.stderr.decode()
    return True


# name -> (set-up commands run to completion, the command that is killed, the moved text)
def scenarios():
    archive = ["archive", "{memory}", "{id:MEMORY.md:" + ARCHIVED + "}", "--date", "2026-11-29"]
    restore = ["restore", "{memory}", "{id:ARCHIVE.md:" + ARCHIVED + "}"]
    split_new = ["trim", "{memory}", "--apply", "{id:MEMORY.md:" + SPLIT_NEW + "}", "--kind", "split"]
    split_old = ["trim", "{memory}", "--apply", "{id:MEMORY.md:" + SPLIT_OLD + "}", "--kind", "split"]
    undo, redo = ["undo", "{memory}"], ["redo", "{memory}"]
    return {
        "archive": ([], archive, ARCHIVED),
        "restore": ([archive], restore, ARCHIVED),
        "trim-new-file": ([], split_new, SPLIT_NEW),
        "trim-existing-file": ([], split_old, SPLIT_OLD),
        "undo-archive": ([archive], undo, ARCHIVED),
        "undo-restore": ([archive, restore], undo, ARCHIVED),
        "undo-trim-new-file": ([split_new], undo, SPLIT_NEW),
        "undo-trim-existing-file": ([split_old], undo, SPLIT_OLD),
        "redo-archive": ([archive, undo], redo, ARCHIVED),
        "redo-restore": ([archive, restore, undo], redo, ARCHIVED),
        "redo-trim-new-file": ([split_new, undo], redo, SPLIT_NEW),
    }


def expand(argv: list[str], memory: Path, capsys) -> list[str]:
    out = []
    for arg in argv:
        if arg.startswith("{id:"):
            name, text = arg[4:-1].split(":", 1)
            arg = entry_id(memory, name, text, capsys)
        out.append(arg.replace("{memory}", str(memory)))
    return out


def prepare(root: Path, setup, capsys) -> Path:
    memory = new_seat(root)
    for argv in setup:
        assert cli(capsys, *expand(argv, memory, capsys))[0] == 0
    return memory


def moved_text_is_live(memory: Path, text: str) -> bool:
    return any(text.encode() in data for data in files(memory).values())


TALLY: dict[str, list[int]] = {}


@pytest.mark.parametrize("scenario", list(scenarios()))
def test_killed_after_each_rename_the_moved_text_survives_and_check_names_the_change(
        scenario, tmp_path, env, capsys):
    setup, command, text = scenarios()[scenario]
    reference = prepare(tmp_path / "reference", setup, capsys)
    start = files(reference)
    argv = expand(command, reference, capsys)
    assert cli(capsys, *argv)[0] == 0
    finished = files(reference)

    points = interrupted = 0
    for kill_at in range(1, 20):
        results = {}
        for recovery in ("undo", "redo"):
            memory = prepare(tmp_path / f"{kill_at}-{recovery}", setup, capsys)
            argv = expand(command, memory, capsys)
            if not run_killed(memory, env, kill_at, argv):
                results = None
                break
            assert moved_text_is_live(memory, text), (scenario, kill_at, files(memory))
            found = interrupted_change(memory)
            code, out = cli(capsys, "check", memory, "--json")
            report = json.loads(out)
            if found is not None:  # half-way: check says so, with its own exit code
                assert code == 4 and report["exit_code"] == 4
                assert report["interrupted_change"]["id"] == found.entry.id
                assert any(found.entry.description in w for w in report["warnings"])
                code, text_out = cli(capsys, "check", memory)
                assert code == 4 and "interrupted" in text_out and found.entry.id in text_out
            else:  # killed after its last rename: every file reached, settled at the next open
                assert report["interrupted_change"] is None and code != 4
                assert files(memory) == finished
            results[recovery] = found
            if found is not None:
                assert cli(capsys, recovery, memory)[0] == 0
                # undo puts every file as before the change, redo as after it: for a killed save or
                # redo that is rolling back and finishing, for a killed undo finishing and rolling back.
                rolls_back = (recovery == "undo") != (command[0] == "undo")
                assert files(memory) == (start if rolls_back else finished), (scenario, kill_at, recovery)
                assert f"seat-curator {recovery}" in found.message
            assert interrupted_change(memory) is None
            assert moved_text_is_live(memory, text)
        if results is None:
            break
        points += 1
        interrupted += results["undo"] is not None
    assert points >= 2, "each of these commands renames at least two files"
    assert interrupted >= 1
    TALLY[scenario] = [points, interrupted]
    print(f"{scenario}: {points} kill points, {interrupted} left half-way and named by check, "
          f"moved text lost at 0")


@pytest.mark.parametrize("recovery", ["undo", "redo"])
def test_agent_appending_after_an_interrupted_trim_is_kept_by_either_way_out(recovery, tmp_path, env, capsys):
    """Killed after the detail file, before MEMORY.md; the agent then appends to MEMORY.md (the
    curator never wrote it). Neither way out claims MEMORY.md was changed since the curator wrote
    it, and the agent's line survives both."""
    memory = new_seat(tmp_path)
    argv = ["trim", str(memory), "--apply", entry_id(memory, "MEMORY.md", SPLIT_NEW, capsys), "--kind", "split"]
    assert run_killed(memory, env, 1, argv)
    found = interrupted_change(memory)
    assert found.at_after == ("release-trains-leave-on-tuesdays.md",) and found.at_before == ("MEMORY.md",)
    line = b"- agent line written after the crash\n"
    with open(memory / "MEMORY.md", "ab") as handle:
        handle.write(line)
    assert interrupted_change(memory).at_before == ()  # MEMORY.md is now at neither side
    code = main([recovery, str(memory)])
    _out, err = capsys.readouterr()
    assert code == 0, err
    index = (memory / "MEMORY.md").read_bytes()
    assert index.endswith(line)
    if recovery == "undo":
        assert index == INDEX.encode() + line
        assert not (memory / "release-trains-leave-on-tuesdays.md").exists()
    else:
        assert SPLIT_NEW.encode() not in index
        assert SPLIT_NEW.encode() in (memory / "release-trains-leave-on-tuesdays.md").read_bytes()
    assert interrupted_change(memory) is None


def test_a_new_change_is_refused_while_one_is_interrupted(tmp_path, env, capsys):
    memory = new_seat(tmp_path)
    argv = ["trim", str(memory), "--apply", entry_id(memory, "MEMORY.md", SPLIT_NEW, capsys), "--kind", "split"]
    assert run_killed(memory, env, 1, argv)
    before = files(memory)
    code = main(["archive", str(memory), entry_id(memory, "MEMORY.md", ARCHIVED, capsys)])
    _out, err = capsys.readouterr()
    assert code == 1 and "CHANGE_INTERRUPTED" in err and err.count("\n") == 1
    assert "an interrupted save of change" in err and "seat-curator redo" in err
    assert files(memory) == before


def test_an_interrupted_change_whose_file_was_rewritten_can_be_settled_as_is(tmp_path, env, capsys):
    """The agent rewrote MEMORY.md (not an append) after the crash: undo and redo both refuse, and
    `redo --as-is` keeps every file as it is, after which undo returns to before the change."""
    memory = new_seat(tmp_path)
    argv = ["trim", str(memory), "--apply", entry_id(memory, "MEMORY.md", SPLIT_NEW, capsys), "--kind", "split"]
    assert run_killed(memory, env, 1, argv)
    rewritten = INDEX.replace("## Craft hooks", "## Craft hooks (rewritten by the agent)").encode()
    (memory / "MEMORY.md").write_bytes(rewritten)
    now = files(memory)
    for recovery in ("undo", "redo"):
        code = main([recovery, str(memory)])
        _out, err = capsys.readouterr()
        assert code == 1 and "FILE_CHANGED_ON_DISK" in err and "--as-is" in err
        assert files(memory) == now
    assert main(["redo", str(memory), "--as-is"]) == 0
    capsys.readouterr()
    assert files(memory) == now and interrupted_change(memory) is None
    assert main(["archive", str(memory), entry_id(memory, "MEMORY.md", ARCHIVED, capsys)]) == 0  # saves again
    assert main(["undo", str(memory)]) == 0 and main(["undo", str(memory)]) == 0
    capsys.readouterr()
    assert files(memory) == {**{k: v for k, v in now.items() if k != "release-trains-leave-on-tuesdays.md"},
                             "MEMORY.md": INDEX.encode()}
