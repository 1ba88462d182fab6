"""The dispatcher: every command is reachable, and running one loads only its own module."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

from curator.cli import COMMAND_MODULES, build_parser, main


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
    assert main([]) == 0
    assert "seat-curator tui MEMORY_DIR" in capsys.readouterr().out


def test_unknown_command_is_an_argparse_error(capsys):
    try:
        main(["no-such-command"])
    except SystemExit as exit_:
        assert exit_.code == 2
    else:
        raise AssertionError("expected SystemExit")
    assert "invalid choice" in capsys.readouterr().err
