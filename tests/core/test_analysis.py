"""analyze(): one seat's model, meter, loads and pointers; bad input becomes one readable error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from curator.analysis import analyze, entry_pointer_state
from curator.errors import InputError
from curator.meter import Limits
from tests.support.seats import deny_read, restore_read, seat
INDEX = (
    b"# Seat memory index\n"
    b"## Identity & seat\n"
    b"- [Identity](identity.md) - who\n"
    b"- [Gone](gone.md) - a deleted memory\n"
    b"- [Up](../elsewhere.md) - escapes\n"
    b"- plain line, no pointer\n"
    b"- ticket #1234 only\n"
)


def test_analysis_ties_meter_loads_and_pointers_together(tmp_path: Path) -> None:
    memory = seat(tmp_path / "memory", INDEX, **{"identity.md": "# Identity\nme\n"})
    analysis = analyze(memory)
    assert analysis.meter.bytes == len(INDEX) and analysis.meter.zone == "ok"
    assert set(analysis.loads) == {"claude-code", "kimi-code", "opencode", "codex", "gemini-cli", "read-limit"}
    assert analysis.identity_bytes == len("# Identity\nme\n")
    assert analysis.loads["opencode"].loaded_bytes == len(INDEX) + analysis.identity_bytes
    assert [d.target for d in analysis.pointers.dangling] == ["gone.md"]
    assert [e.target for e in analysis.pointers.escapes] == ["../elsewhere.md"]
    states = [entry_pointer_state(analysis, entry) for entry in analysis.index.entries]
    assert states == ["ok", "dangling", "dangling", "none", "ok"]
    assert analysis.exit_code == 2 and analysis.problem_count == 2
    assert analysis.symlinked is False and analysis.warnings == ()


def test_index_bytes_stand_in_for_the_file_and_nothing_is_written(tmp_path: Path) -> None:
    memory = seat(tmp_path / "memory", INDEX, **{"identity.md": "x\n", "gone.md": "# Gone\n"})
    edited = INDEX.replace(b"[Gone](gone.md)", b"[Gone](gon.md)")
    analysis = analyze(memory, index_bytes=edited)
    assert analysis.index.raw == edited
    assert [(d.target, d.suggestion) for d in analysis.pointers.dangling] == [("gon.md", "gone.md")]
    assert analysis.pointers.orphans == ["gone.md"]
    assert (memory / "MEMORY.md").read_bytes() == INDEX
    assert analyze(memory).pointers.dangling == []


def test_zones_and_exit_codes(tmp_path: Path) -> None:
    memory = seat(tmp_path / "m", b"- x\n" * 10)
    assert analyze(memory).exit_code == 0
    assert analyze(memory, limits=Limits(target=20, read_limit=100)).exit_code == 2
    over = analyze(memory, limits=Limits(target=10, read_limit=20))
    assert (over.meter.zone, over.exit_code) == ("over-limit", 3)
    assert len(over.loads["read-limit"].dropped) == 5


def test_profiles_can_be_restricted(tmp_path: Path) -> None:
    memory = seat(tmp_path / "m", b"- x\n")
    assert set(analyze(memory, profiles=("claude-code",)).loads) == {"claude-code"}


# -- bad input ---------------------------------------------------------------------------------------


def test_missing_dir_missing_index_and_a_file_for_a_dir(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such memory directory") as missing:
        analyze(tmp_path / "nope")
    assert str(tmp_path / "nope") in str(missing.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no such file") as no_index:
        analyze(tmp_path / "empty")
    assert str(tmp_path / "empty" / "MEMORY.md") in str(no_index.value)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(InputError, match="is a file, expected the memory directory"):
        analyze(tmp_path / "afile")


def test_non_utf8_reports_the_offset_and_still_counts_bytes(tmp_path: Path) -> None:
    raw = b"# idx\n- caf\xe9\n"
    analysis = analyze(seat(tmp_path / "m", raw))
    assert analysis.meter.bytes == len(raw) == 13
    assert analysis.decode_error_offset == 11
    assert any("offset 11" in warning for warning in analysis.warnings)
    assert analysis.exit_code == 2


def test_symlinked_index_is_read_and_reported(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_bytes(b"- real entry\n")
    memory = tmp_path / "m"
    memory.mkdir()
    os.symlink(real, memory / "MEMORY.md")
    analysis = analyze(memory)
    assert analysis.symlinked is True
    assert analysis.meter.bytes == len(b"- real entry\n")
    assert any("is a symlink" in warning for warning in analysis.warnings)


def test_permission_denied_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = seat(tmp_path / "m", b"- x\n")
    target = memory / "MEMORY.md"
    deny_read(target, monkeypatch)
    try:
        with pytest.raises(InputError, match="permission denied") as err:
            analyze(memory)
    finally:
        restore_read(target)
    assert str(target) in str(err.value)


def test_wikilink_states_and_front_matter_for_the_panels(tmp_path: Path) -> None:
    index = b"# Index\n- [[no-tls]] resolves\n- [[proxmox-cluster]] respelled\n- [[not-written-yet]] unwritten\n"
    memory = seat(tmp_path / "memory", index, **{
        "feedback_no_tls.md": "---\nname: no-tls\ndescription: never skip TLS checks\ntype: feedback\n---\n# x\n",
        "proxmox_cluster.md": "# Cluster\n",
    })
    analysis = analyze(memory)
    states = [entry_pointer_state(analysis, entry) for entry in analysis.index.entries]
    assert states == ["ok", "probable", "ok"]  # a respelled link reaches its file: a question, not a broken pointer
    assert [p.meant for p in analysis.pointers.probable] == ["proxmox_cluster.md"]
    assert [u.target for u in analysis.pointers.unwritten] == ["not-written-yet"]
    assert analysis.problem_count == 0  # a probable link and an unwritten memory are not problems
    assert analysis.pointers.detail("feedback_no_tls.md").description == "never skip TLS checks"
