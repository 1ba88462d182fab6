"""The cap guard hook, run as the harnesses run it (python -I -S, JSON on stdin): a write that takes
MEMORY.md past the read limit is blocked (exit 2, the reason on stderr naming the MCP levers); every
other call passes in silence; stdin that is not the harness's object gets one stderr line, exit 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generators.script_source import CAP_GUARD_SCRIPT, emit_script

GUARD = CAP_GUARD_SCRIPT
LIMIT = 1000


def guard(tmp_path: Path, harness: str) -> tuple[Path, Path]:
    memory = tmp_path / "memory"
    memory.mkdir(exist_ok=True)
    (memory / "MEMORY.md").write_text("# M\n\n- one lesson\n")
    script = tmp_path / f"guard-{harness}.py"
    script.write_bytes(emit_script(GUARD, {"HARNESS": harness, "MEMORY_DIR": str(memory), "READ_LIMIT": LIMIT,
                                           "MCP_SERVER": "seat-curator"}))
    return script, memory


def run(script: Path, stdin: bytes | str) -> tuple[int, str, str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run([sys.executable, "-I", "-S", str(script)], input=data, capture_output=True, timeout=30)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def call(tool: str, cwd: Path, **tool_input) -> str:
    return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(cwd), "tool_name": tool,
                       "tool_input": tool_input})


def assert_blocked(result: tuple[int, str, str], size: int) -> None:
    code, out, err = result
    assert (code, out) == (2, "")
    assert err.startswith("seat-curator cap guard: blocked. This write would make ")
    assert f"MEMORY.md {size:,} B, past its {LIMIT:,} B read limit (it is 18 B now)" in err
    for lever in ("mcp__seat-curator__fit", "mcp__seat-curator__trim", "mcp__seat-curator__merge",
                  "mcp__seat-curator__archive"):
        assert lever in err
    assert err.count("\n") == 1


def test_claude_code_write_and_edit_past_the_read_limit_are_blocked(tmp_path):
    script, memory = guard(tmp_path, "claude-code")
    index = str(memory / "MEMORY.md")
    assert_blocked(run(script, call("Write", tmp_path, file_path=index, content="x" * 1001)), 1001)
    assert_blocked(run(script, call("Edit", tmp_path, file_path=index, old_string="one", new_string="y" * 990,
                                    replace_all=False)), 18 - 3 + 990)
    assert_blocked(run(script, call("MultiEdit", tmp_path, file_path=index,
                                    edits=[{"old_string": "one", "new_string": "two"},
                                           {"old_string": "two", "new_string": "z" * 1000}])), 18 - 3 + 1000)
    relative = run(script, call("Write", memory, file_path="MEMORY.md", content="x" * 1001))
    assert_blocked(relative, 1001)
    assert (memory / "MEMORY.md").read_text() == "# M\n\n- one lesson\n"


def test_kimi_code_write_append_and_edit_past_the_read_limit_are_blocked(tmp_path):
    script, memory = guard(tmp_path, "kimi-code")
    index = str(memory / "MEMORY.md")
    assert_blocked(run(script, call("Write", tmp_path, path=index, content="x" * 1001, mode="overwrite")), 1001)
    assert_blocked(run(script, call("Write", tmp_path, path=index, content="x" * 983, mode="append")), 18 + 983)
    assert_blocked(run(script, call("Edit", tmp_path, path=index, old_string="one", new_string="y" * 990)), 18 - 3 + 990)
    assert run(script, call("Write", tmp_path, path=index, content="x" * 982, mode="append")) == (0, "", "")  # 1,000 B


@pytest.mark.parametrize("harness,key", [("claude-code", "file_path"), ("kimi-code", "path")])
def test_everything_else_passes_in_silence(tmp_path, harness, key):
    script, memory = guard(tmp_path, harness)
    index = str(memory / "MEMORY.md")
    quiet = (0, "", "")
    assert run(script, call("Write", tmp_path, **{key: index, "content": "x" * 1000})) == quiet  # at the limit
    assert run(script, call("Write", tmp_path, **{key: str(memory / "topic.md"), "content": "x" * 5000})) == quiet
    assert run(script, call("Write", tmp_path, **{key: str(tmp_path / "other" / "MEMORY.md"),
                                                  "content": "x" * 5000})) == quiet
    assert run(script, call("Edit", tmp_path, **{key: index, "old_string": "absent", "new_string": "x" * 5000})) == quiet
    assert run(script, call("Read", tmp_path, **{key: index})) == quiet
    (memory / "MEMORY.md").write_text("x" * 3000)  # already past: a write that shrinks it is how room is made
    assert run(script, call("Write", tmp_path, **{key: index, "content": "x" * 2000})) == quiet


@pytest.mark.parametrize("stdin,what", [
    (b"", "is empty"), (b"not json", "is not JSON"), (b"[1, 2]", "is JSON but not an object"),
    (b"\xff\xfe{", "is not JSON"),
])
def test_bad_stdin_gets_one_stderr_line_and_passes(tmp_path, stdin, what):
    script, _memory = guard(tmp_path, "claude-code")
    code, out, err = run(script, stdin)
    assert (code, out) == (0, "")
    assert err.startswith(f"cap guard: stdin ({len(stdin)} bytes) {what}") and err.count("\n") == 1
