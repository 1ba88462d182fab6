"""The dispatcher: every command is reachable, and running one loads only its own module."""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys

import pytest

from curator.cli import COMMAND_MODULES, build_parser, main
from tests.support.paths import REPO


def registered_by(module_name: str) -> tuple[str, ...]:
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    importlib.import_module(module_name).register(subparsers)
    return tuple(subparsers.choices)


def test_the_table_matches_what_each_module_registers():
    for module_name, commands in COMMAND_MODULES.items():
        assert registered_by(module_name) == commands, module_name


def test_help_lists_every_command():
    text = build_parser([]).format_help()
    for commands in COMMAND_MODULES.values():
        for command in commands:
            assert command in text


def test_running_one_command_loads_only_its_module():
    code = (
        "import sys; from curator.cli import main; "
        "from curator.cli import build_parser; build_parser(['tui', 'x']); "
        "print(sorted(m for m in sys.modules if m.startswith(('curator.commands.', 'generators', 'curator.canary'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['curator.commands.app']"


def test_bare_command_without_memory_dir_says_how_to_start(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "no-claude"))
    assert main([]) == 1  # nothing opened: a script can tell
    assert "seat-curator tui MEMORY_DIR" in capsys.readouterr().err


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"seat-curator {version('seat-curator')}\n"


def test_unknown_command_is_an_argparse_error(capsys):
    try:
        main(["no-such-command"])
    except SystemExit as exit_:
        assert exit_.code == 2
    else:
        raise AssertionError("expected SystemExit")
    assert "invalid choice" in capsys.readouterr().err


EXAMPLE_SEAT = REPO / "curator" / "examples" / "seats" / "wren" / "memory"


@pytest.mark.parametrize("command", [["check", str(EXAMPLE_SEAT)], ["check", "--json", str(EXAMPLE_SEAT)],
                                     ["candidates", str(EXAMPLE_SEAT)], ["trim", str(EXAMPLE_SEAT)]])
def test_a_reader_that_went_away_ends_the_command_as_sigpipe_would(command, tmp_path):
    """`seat-curator check DIR | head`: the reader closed its end before the first write. The
    command stops quietly with 141 (128 + SIGPIPE), not 1, and prints no traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # closed before the child writes: its first write fails, deterministically
    try:
        done = subprocess.run([sys.executable, "-m", "curator", *command], stdout=write_end,
                              stderr=subprocess.PIPE, cwd=tmp_path, timeout=60)
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr.decode()
    assert b"Traceback" not in done.stderr
