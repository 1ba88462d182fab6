"""Error codes a caller tells apart are classes, caught by type; the CLI still prints the code."""

from __future__ import annotations

from pathlib import Path

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
    errors.NothingToUndoError: "NOTHING_TO_UNDO",
    errors.NothingToRedoError: "NOTHING_TO_REDO",
    errors.SeatBusyError: "SEAT_BUSY",
    errors.TooLargeError: "TOO_LARGE",
    errors.InputError: "INPUT_ERROR",
    errors.CuratorError: "CURATOR_ERROR",
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


@pytest.mark.parametrize("cls, code", CODES.items(), ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_each_code_class_prints_its_code_in_one_line(cls: type[CuratorError], code: str, json_flag: list[str],
                                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(_args: object) -> int:
        raise cls("refused, nothing was written", path=tmp_path / "MEMORY.md")

    monkeypatch.setattr("curator.commands.levers.run_undo", refuse)
    assert main(["undo", str(tmp_path), *json_flag]) == cls.exit_code == 1
    out, err = capsys.readouterr()
    assert out == "" and err == f"seat-curator: {code}: {tmp_path / 'MEMORY.md'}: refused, nothing was written\n"


@pytest.mark.parametrize("argv, line", [
    (["undo"], "seat-curator: NOTHING_TO_UNDO: nothing to undo\n"),
    (["redo"], "seat-curator: NOTHING_TO_REDO: nothing to redo\n"),
    (["redo", "--as-is"], "seat-curator: NOTHING_TO_SETTLE: no interrupted change to settle\n"),
])
def test_the_store_refusals_print_as_before(argv: list[str], line: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "MEMORY.md").write_text("- one\n")
    assert main([argv[0], str(tmp_path), *argv[1:], "--state-dir", str(tmp_path / "state"), "--json"]) == 1
    assert capsys.readouterr() == ("", line)


def test_the_store_raises_each_refusal_as_its_class(tmp_path: Path) -> None:
    from curator.change import Change
    from curator.store import SeatStore

    (tmp_path / "MEMORY.md").write_text("- one\n")
    store = SeatStore.open(tmp_path, state_dir=tmp_path / "state")
    with pytest.raises(errors.NothingToUndoError):
        store.undo()
    with pytest.raises(errors.NothingToRedoError):
        store.redo()
    with pytest.raises(errors.NothingToSettleError):
        store.settle_as_is()
    with pytest.raises(errors.NothingToChangeError):
        store.apply(Change("same", {"MEMORY.md": store.read("MEMORY.md")}))
