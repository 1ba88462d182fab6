"""Error codes a caller tells apart are classes, caught by type; the CLI still prints the code."""

from __future__ import annotations

import pytest

from curator import errors
from curator.canary.pins import pin_for
from curator.cli import main
from curator.errors import ArgumentError, CuratorError, InputError, NoMemoryFoundError
from curator.locate import locate_memory_dir

CODES = {
    errors.ArgumentError: "BAD_ARGUMENTS",
    errors.NoMemoryFoundError: "NO_MEMORY_FOUND",
    errors.SaveError: "SAVE_FAILED",
    errors.StoreBusyError: "STORE_BUSY",
    errors.NothingToChangeError: "NOTHING_TO_CHANGE",
    errors.NothingToSettleError: "NOTHING_TO_SETTLE",
    errors.ChangeInterruptedError: "CHANGE_INTERRUPTED",
    errors.ConflictError: "FILE_CHANGED_ON_DISK",
}


@pytest.mark.parametrize("cls, code", CODES.items(), ids=lambda v: getattr(v, "__name__", v))
def test_each_code_is_a_class_of_its_own(cls: type[CuratorError], code: str) -> None:
    assert issubclass(cls, CuratorError) and cls.code == code
    assert cls("message").code == code


def test_the_codes_are_all_different() -> None:
    assert len(set(CODES.values())) == len(CODES)


def test_an_unknown_harness_is_an_argument_error() -> None:
    with pytest.raises(ArgumentError, match="unknown harness 'nope'"):
        pin_for("nope")


def test_no_memory_found_is_its_own_input_error(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NoMemoryFoundError) as caught:
        locate_memory_dir(tmp_path, {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    assert isinstance(caught.value, InputError)


def test_a_bad_argument_still_prints_its_code_in_one_line(tmp_path, capsys) -> None:
    (tmp_path / "MEMORY.md").write_text("- one\n")
    assert main(["candidates", str(tmp_path), "--target", "-1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("seat-curator: BAD_ARGUMENTS: ") and err.count("\n") == 1
