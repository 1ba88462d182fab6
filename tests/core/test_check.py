"""`seat-curator check`: exit codes, JSON schema, human output, every bad input, the whole corpus."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from curator.cli import main
from tests.support.paths import CORPUS, REPO
from tests.support.seats import deny_read, restore_read, seat


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


CLEAN = b"# Seat memory index\n## Identity & seat\n- [Identity](identity.md) - who\n"


# -- exit codes ----------------------------------------------------------------------------------------


def test_clean_seat_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN, **{"identity.md": "# Identity\n"})
    code, out, err = run(capsys, memory)
    assert (code, err) == (0, "")
    assert f"{len(CLEAN):,} B" in out and "ok" in out and "no problems" in out


def test_over_target_exits_2_and_past_read_limit_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN, **{"identity.md": "# Identity\n"})
    assert run(capsys, memory, "--target", "50", "--read-limit", "100")[0] == 2
    code, out, _ = run(capsys, memory, "--target", "10", "--read-limit", "20")
    assert code == 3 and "over-limit" in out
    assert "read-limit never loads these entries" in out


def test_human_report_lists_lost_entries_then_counts_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = "".join(f"- lesson {n:03d}\n" for n in range(230)).encode()
    code, out, _ = run(capsys, seat(tmp_path, index, **{"identity.md": "# I\n"}))
    assert code == 0
    assert "claude-code never loads these entries:" in out
    assert "line 201: - lesson 200" in out and "line 215: - lesson 214" in out
    assert "line 216:" not in out and "… and 15 more entries (--json lists every one)" in out


def test_pointer_problem_exits_2_with_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN + b"- [rules](hard-rule.md)\n", **{"identity.md": "# I\n", "hard-rules.md": "# R\n"})
    code, out, _ = run(capsys, memory)
    assert code == 2
    assert "Pointer problems (2)" in out  # the dangling link, and the file it meant is now an orphan
    assert "hard-rule.md" in out and "hard-rules.md" in out and "no such file" in out


def test_bad_limits_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN)
    code, out, err = run(capsys, memory, "--target", "30000")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "above the read limit" in err


# -- JSON ------------------------------------------------------------------------------------------------


def test_json_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [f"- entry {n:03d} " + "x" * 80 for n in range(230)]  # ~20 KB: over target
    index = ("# Index\n## Big\n" + "\n".join(lines) + "\n- [gone](gon.md)\n").encode()
    memory = seat(tmp_path, index, **{"identity.md": "# I\n", "gone.md": "# G\n"})
    code, out, _ = run(capsys, memory, "--json")
    data = json.loads(out)
    assert code == 2 and data["exit_code"] == 2
    assert data["memory_dir"] == str(memory)
    assert (data["bytes"], data["lines"]) == (len(index), 233)
    assert (data["target"], data["read_limit"], data["zone"]) == (17_000, 24_600, "over-target")
    assert data["headroom_target"] == 17_000 - len(index)
    first = data["entries"][0]
    assert set(first) >= {"id", "section", "line", "bytes", "text", "pointers"}
    assert (first["section"], first["line"], first["bytes"]) == ("Big", 3, len(lines[0]) + 1)
    assert data["entries"][-1]["pointers"] == [{"target": "gon.md", "kind": "file", "line": 233}]
    claude = data["profiles"]["claude-code"]
    assert claude["cut_line"] == 200
    assert [d["line"] for d in claude["dropped"]] == list(range(201, 234))
    assert data["profiles"]["opencode"]["loaded_bytes"] == len(index) + 4
    assert data["profiles"]["opencode"]["dropped"] == []
    assert data["pointers"]["dangling"] == [
        {"file": "MEMORY.md", "line": 233, "target": "gon.md", "reason": "no such file", "suggestion": "gone.md"}
    ]
    assert data["pointers"]["orphans"] == ["gone.md"] and data["pointers"]["escapes"] == []


def test_profile_option_restricts_the_simulation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN)
    code, out, _ = run(capsys, memory, "--json", "--profile", "opencode", "--profile", "kimi-code")
    assert sorted(json.loads(out)["profiles"]) == ["kimi-code", "opencode"]


# -- bad input: one line naming the file, exit 1, no traceback ------------------------------------------------


def test_missing_memory_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, tmp_path / "nope")
    assert (code, out) == (1, "")
    assert err == f"seat-curator: INPUT_ERROR: {tmp_path / 'nope'}: no such memory directory\n"


def test_missing_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, tmp_path)
    assert code == 1
    assert err == f"seat-curator: INPUT_ERROR: {tmp_path / 'MEMORY.md'}: no such file\n"


def test_directory_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN)
    code, _, err = run(capsys, memory / "MEMORY.md")
    assert code == 1 and "is a file, expected the memory directory" in err and "MEMORY.md" in err


def test_non_utf8_reports_offset_and_counts_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = CLEAN + b"- bad \xff\xfe byte\n"
    memory = seat(tmp_path, raw, **{"identity.md": "# I\n"})
    code, out, _ = run(capsys, memory, "--json")
    data = json.loads(out)
    assert code == 2
    assert data["bytes"] == len(raw) == os.path.getsize(memory / "MEMORY.md")
    assert data["utf8_error_offset"] == len(CLEAN) + len(b"- bad ")
    code, out, _ = run(capsys, memory)
    assert f"not valid UTF-8 at byte offset {len(CLEAN) + 6:,}" in " ".join(out.split())


@pytest.mark.slow
def test_four_megabyte_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = (b"- " + b"y" * 97 + b"\n") * 40_000
    memory = seat(tmp_path, raw)
    code, out, _ = run(capsys, memory, "--json", "--profile", "claude-code")
    data = json.loads(out)
    assert code == 3 and data["bytes"] == 4_000_000 and data["zone"] == "over-limit"
    assert data["profiles"]["claude-code"]["loaded_bytes"] == 20_000
    assert len(data["profiles"]["claude-code"]["dropped"]) == 39_800


def test_five_megabyte_index_is_refused_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, (b"- " + b"y" * 97 + b"\n") * 50_000)
    code, out, err = run(capsys, memory, "--json")
    assert (code, out) == (1, "")
    assert err == (f"seat-curator: TOO_LARGE: {memory / 'MEMORY.md'}: is 5,000,000 B; the analysis works on files "
                   "up to 4 MiB (4,194,304 B), and a harness reads only the first ~25 KB: split it first\n")


def test_symlinked_index_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "elsewhere.md"
    real.write_bytes(CLEAN)
    memory = tmp_path / "memory"
    memory.mkdir()
    os.symlink(real, memory / "MEMORY.md")
    code, out, _ = run(capsys, memory)
    assert code in (0, 2)
    assert "is a symlink" in out and str(real) in out
    data = json.loads(run(capsys, memory, "--json")[1])
    assert data["symlinked"] is True and data["bytes"] == len(CLEAN)


def test_in_a_pipe_long_paths_and_cells_are_never_wrapped_or_cut(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """What a CI log shows is complete, whatever the width: the symlink message and every pointer
    record stay whole on one line, even when the temp path alone is longer than 80 columns."""
    deep = tmp_path / ("a-directory-name-long-enough-to-pass-eighty-columns-" * 2)
    deep.mkdir()
    real = deep / "elsewhere-with-a-long-name.md"
    far_target = "test-matrix-with-a-long-name.md#fixtures-for-the-profiling-first-rule"
    real.write_bytes(CLEAN + f"- [matrix]({far_target})\n".encode())
    memory = deep / "memory"
    memory.mkdir()
    (memory / "identity.md").write_text("# I\n")
    (memory / "test-matrix-with-a-long-name.md").write_text("# Fixtures for the profiling-first rules\n")
    os.symlink(real, memory / "MEMORY.md")
    assert len(str(real)) > 80
    code, out, _ = run(capsys, memory)
    assert code == 2
    lines = out.splitlines()
    assert f"warning: {memory / 'MEMORY.md'} is a symlink to {real}; " in out
    assert any(line.startswith(f"warning: {memory / 'MEMORY.md'} is a symlink to {real}") for line in lines)
    record = next(line for line in lines if far_target in line)
    assert record.strip().startswith(f"MEMORY.md:4: {far_target}: ")
    assert "did you mean test-matrix-with-a-long-name.md#fixtures-for-the-profiling-first-rules?" in record


def test_a_temp_file_left_by_an_interrupted_save_is_a_warning(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN, **{"identity.md": "# Identity\n"})
    temp = memory / ".MEMORY.md.k3x_9qaz.tmp"
    temp.write_bytes(CLEAN + b"- the lesson that was being saved\n")
    os.utime(temp, (1_000_000_000, 1_000_000_000))  # long ago: no save is still writing it
    code, out, _ = run(capsys, memory)
    assert code == 0  # a warning, not a failure: MEMORY.md itself is intact
    assert "warning:" in out and str(temp) in out  # whole, never wrapped in a pipe
    data = json.loads(run(capsys, memory, "--json")[1])
    assert data["exit_code"] == 0
    assert any(".MEMORY.md.k3x_9qaz.tmp" in w and "interrupted save of MEMORY.md" in w for w in data["warnings"])
    assert temp.read_bytes().endswith(b"being saved\n")  # left for the bearer to compare


def test_permission_denied(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    memory = seat(tmp_path, CLEAN)
    target = memory / "MEMORY.md"
    deny_read(target, monkeypatch)
    try:
        code, _, err = run(capsys, memory)
    finally:
        restore_read(target)
    assert code == 1 and err == f"seat-curator: INPUT_ERROR: {target}: permission denied\n"


def test_real_command_no_traceback(tmp_path: Path) -> None:
    """Through the installed entry point: exit 1, one line on stderr."""
    result = subprocess.run([sys.executable, "-m", "curator", "check", str(tmp_path / "missing")],
                            capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


# -- the corpus: never crashes, sizes equal wc -c --------------------------------------------------------------

CORPUS_MD = sorted(p for p in CORPUS.rglob("*.md")) if CORPUS.is_dir() else []


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS_MD, reason="corpus not present")
def test_check_never_crashes_on_any_corpus_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wc = subprocess.run(["wc", "-c", *map(str, CORPUS_MD)], capture_output=True, text=True, check=True).stdout
    sizes = {line.split(maxsplit=1)[1]: int(line.split()[0]) for line in wc.splitlines() if not line.endswith(" total")}
    checked = 0
    for number, path in enumerate(CORPUS_MD):
        if path.name == "MEMORY.md":
            memory = path.parent  # checked in place, read-only, siblings and all
        else:
            memory = tmp_path / f"seat{number}"
            memory.mkdir()
            shutil.copyfile(path, memory / "MEMORY.md")
        code, out, err = run(capsys, memory, "--json")
        assert code in (0, 2, 3), (path, err)
        data = json.loads(out)
        assert data["bytes"] == sizes[str(path)], path
        assert sum(entry["bytes"] for entry in data["entries"]) <= data["bytes"]
        checked += 1
    assert checked == len(CORPUS_MD) > 100


@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus not present")
def test_corpus_known_findings(capsys: pytest.CaptureFixture[str]) -> None:
    # 0SxD/memory-export: one link leaves the folder; one unlinked note is an orphan (README.md and
    # LICENSE-PENDING.md are there for people, not memories).
    data = json.loads(run(capsys, CORPUS / "0SxD__memory-export", "--json")[1])
    assert [e["target"] for e in data["pointers"]["escapes"]] == ["../handoff_files/session_0_handoff_2026-04-11.md"]
    assert data["pointers"]["orphans"] == ["NOTES.md"]
    # AdielMag/ClashUp: 20,425 B and 195 lines, over target, under the read limit.
    code, out, _ = run(capsys, CORPUS / "AdielMag__ClashUp/.claude/memory", "--json")
    data = json.loads(out)
    assert (code, data["bytes"], data["lines"], data["zone"]) == (2, 20_425, 195, "over-target")


def test_pre_commit_hook_manifest() -> None:
    text = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "id: seat-curator-check" in text and "entry: seat-curator check" in text


def test_the_harness_warning_past_the_cut_is_shown_and_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = "".join(f"- entry {n:03d} " + "x" * 190 + "\n" for n in range(152)).encode()
    memory = seat(tmp_path, index, **{"identity.md": "# I\n"})
    code, out, _ = run(capsys, memory, "--profile", "claude-code")
    warning = next(line for line in out.splitlines() if line.startswith("claude-code tells the model: "))
    assert "> WARNING: MEMORY.md is 30.1KB (limit: 24.4KB)" in warning and "starting at line 124" in warning
    data = json.loads(run(capsys, memory, "--json", "--profile", "claude-code")[1])
    assert data["profiles"]["claude-code"]["warning"] == warning.removeprefix("claude-code tells the model: ")
    clean = json.loads(run(capsys, seat(tmp_path / "clean", CLEAN), "--json")[1])
    assert all(profile["warning"] is None for profile in clean["profiles"].values())


def test_unwritten_wikilinks_are_information_in_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = seat(tmp_path, CLEAN + b"- [Build](build.md) \xe2\x80\x94 see [[release-checklist]]\n",
                  **{"identity.md": "# I\n", "build.md": "---\nname: build\n---\n# Build\n"})
    code, out, _ = run(capsys, memory)
    assert code == 0  # the harness's own convention: worth writing later, not an error
    assert "Unwritten memories (1 wikilink(s) naming no file yet, not a problem): [[release-checklist]]" in out
    data = json.loads(run(capsys, memory, "--json")[1])
    assert data["pointers"]["unwritten"] == [{"file": "MEMORY.md", "line": 4, "target": "release-checklist"}]
