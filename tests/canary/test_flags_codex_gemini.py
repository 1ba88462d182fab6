"""`canary --codex-cli` / `--gemini-cli` name the CLI to run; a wrong one is a one-line error, nothing run."""

from __future__ import annotations

import pytest

from curator.cli import main
from tests.support.fleets import CODEX_RESIDENT, GEMINI_RESIDENT, write_fleet


@pytest.mark.parametrize(("flag", "harness", "residents"), [("--codex-cli", "codex", CODEX_RESIDENT),
                                                            ("--gemini-cli", "gemini-cli", GEMINI_RESIDENT)])
def test_a_missing_cli_named_by_flag_is_a_one_line_error(tmp_path, capsys, flag, harness, residents):
    fleet = write_fleet(tmp_path / "fleet", residents=residents)
    code = main(["canary", "--fleet", str(fleet), "--no-save", flag, str(tmp_path / "no-such-cli")])
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1
    assert f"{harness} CLI from flag not found: {tmp_path / 'no-such-cli'}" in err
