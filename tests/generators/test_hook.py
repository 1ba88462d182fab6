"""The emitted identity-anchor hook, run as a subprocess exactly as kimi-code runs it (the command
string from config.toml, through a shell), through the spec §5 contract matrix; plus the byte
counter the curator uses and the wake-envelope script."""

from __future__ import annotations

import ast
import fcntl
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from generators import composer, hook_format, kimi
from generators.script_source import HOOK_SCRIPT, WAKE_SCRIPT, emit_script, script_source
from tests.support.fleets import OPENCODE, make_fleet
from tests.support.hooks import BOOT, ClaudeSeat, RELOAD, Seat, complaint, expected_injection, marker


@pytest.fixture
def seat(tmp_path):
    return Seat(tmp_path)


def test_command_is_absolute_quoted_and_uses_the_real_interpreter(seat):
    interp = kimi.resolve_interpreter()
    assert seat.command.startswith(f"'{interp}' -I -S '")
    assert "/fleet dir/" in seat.command and os.path.isabs(interp)
    assert "shims" not in interp


def test_contract_matrix_for_one_session(seat):
    boot = seat.event("UserPromptSubmit", prompt=[{"type": "text", "text": "hi"}], is_steer=False)
    assert boot.returncode == 0 and boot.stderr == b""
    assert boot.stdout == expected_injection(seat, BOOT)
    assert boot.stdout.startswith(f'<seat-memory-layer source="{seat.memory}" trigger="session-boot">\n'.encode())
    assert b"<!-- MEMORY.md -->\n# Seat memory index" in boot.stdout
    assert b"<!-- identity.md -->\n# Identity" in boot.stdout
    assert boot.stdout.endswith(b"</seat-memory-layer>\n")
    assert b"seat-pointers" not in boot.stdout.split(b"<!-- MEMORY.md -->")[0]  # detail files not injected

    ordinary = seat.event("UserPromptSubmit")
    assert (ordinary.returncode, ordinary.stdout) == (0, b"")
    compact = seat.event("PostCompact", trigger="auto")
    assert (compact.returncode, compact.stdout) == (0, b"")
    assert (seat.state / marker("s-1", "compacted")).exists()
    reload = seat.event("UserPromptSubmit")
    assert reload.stdout == expected_injection(seat, RELOAD)
    assert not (seat.state / marker("s-1", "compacted")).exists()
    after = seat.event("UserPromptSubmit")
    assert (after.returncode, after.stdout) == (0, b"")
    assert sorted(p.name for p in seat.state.iterdir()) == [marker("s-1", "done")]


GARBAGE = ["not json", "{", "[1, 2]", "\xff\xfe", '{"hook_event_name": "UserPromptSubmit"} x', ""]


@pytest.mark.parametrize("stdin", GARBAGE)
def test_garbage_stdin_says_one_line_and_exits_zero(seat, stdin):
    result = seat.run(stdin.encode("latin-1"))
    complaint(result)
    assert not seat.state.exists() or not any(seat.state.glob("*.done"))


def test_other_events_are_silent(seat):
    for event in ("Stop", "SessionStart", "PreCompact", "Notification"):
        result = seat.event(event)
        assert (result.returncode, result.stdout) == (0, b"")
    assert not (seat.state / marker("s-1", "done")).exists()  # the boot is still ahead
    assert seat.event("UserPromptSubmit").stdout == expected_injection(seat, BOOT)


def test_session_id_with_path_tricks_stays_in_the_state_dir(seat, tmp_path):
    result = seat.event("UserPromptSubmit", sid="../../escape/../x y")
    assert result.stdout == expected_injection(seat, BOOT)
    assert [p.name for p in seat.state.iterdir()] == [marker("../../escape/../x y", "done")]
    assert not (tmp_path / "escape").exists()


def test_missing_boot_file_is_skipped(seat):
    (seat.memory / "identity.md").unlink()
    result = seat.event("UserPromptSubmit")
    assert result.stdout == expected_injection(seat, BOOT, names=("MEMORY.md",))
    assert b"<!-- identity.md -->" not in result.stdout


def test_wake_route_reminder_when_an_envelope_exists(seat):
    seat.home.mkdir(parents=True)
    (seat.home / "wake-envelope.json").write_text("{}")
    result = seat.event("UserPromptSubmit")
    assert result.stdout == expected_injection(seat, BOOT, wake=True)
    assert b"<!-- wake-route -->" in result.stdout


def test_unwritable_state_dir_is_silent_and_exit_zero(seat, tmp_path):
    blocked = tmp_path / "blocked home"
    blocked.mkdir()
    (blocked / "identity-anchor").write_text("a file where the state dir should be")
    result = seat.run(json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s"}), home=blocked)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    if os.geteuid() != 0:  # root ignores permission bits, so this half only runs unprivileged
        readonly = tmp_path / "readonly home"
        (readonly / "identity-anchor").mkdir(parents=True)
        (readonly / "identity-anchor").chmod(0o500)
        result = seat.run(json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s"}), home=readonly)
        assert (result.returncode, result.stdout) == (0, b"")


def test_injected_bytes_equals_the_hooks_real_stdout(seat):
    (seat.memory / "MEMORY.md").write_bytes("# Index\n\n- ünïcode line without final newline".encode())
    first = seat.event("UserPromptSubmit")
    files = {n: (seat.memory / n).read_bytes() for n in ("MEMORY.md", "identity.md")}
    assert len(first.stdout) == hook_format.injected_bytes(str(seat.memory), files, BOOT, False)
    seat.event("PostCompact")
    again = seat.event("UserPromptSubmit")
    assert len(again.stdout) == hook_format.injected_bytes(str(seat.memory), files, RELOAD, False)
    assert len(again.stdout) - len(first.stdout) == len(RELOAD) - len(BOOT)


def test_emitted_scripts_are_the_sources_with_only_literals_replaced(seat):
    emitted = (seat.plan.instance_home / "hooks" / HOOK_SCRIPT).read_bytes().split(b"\n")
    source = script_source(HOOK_SCRIPT).split(b"\n")
    changed = [i for i, (a, b) in enumerate(zip(emitted, source)) if a != b]
    assert len(emitted) == len(source) and len(changed) == 2
    assert [emitted[i] for i in changed] == [
        f"MEMORY_DIR = {str(seat.memory)!r}  # seat-curator:literal".encode(),
        f"SEAT_HOME = {str(seat.plan.instance_home)!r}  # seat-curator:literal".encode()]
    assert emit_script(WAKE_SCRIPT) == script_source(WAKE_SCRIPT)
    mode = (seat.plan.instance_home / "hooks" / HOOK_SCRIPT).stat().st_mode
    assert stat.S_IMODE(mode) == 0o700


def test_hook_imports_nothing_from_the_project():
    source = script_source(HOOK_SCRIPT).decode()
    # (what only the type checker reads, under `if TYPE_CHECKING:`, is never imported)
    checker_only = {n for node in ast.parse(source).body if isinstance(node, ast.If)
                    and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                    for n in range(node.lineno, node.end_lineno + 1)}
    imports = {line.split()[1] for n, line in enumerate(source.splitlines(), 1)
               if line.strip().startswith(("import ", "from ")) and n not in checker_only}
    assert imports <= {"sys", "posix", "nt", "_json", "json", "_sha256", "_sha2", "hashlib", "_signal"}, imports


# ---------------------------------------------------------------------------- the same hook for Claude Code


@pytest.fixture
def claude(tmp_path):
    return ClaudeSeat(tmp_path)


@pytest.mark.parametrize("source, trigger", [("startup", BOOT), ("resume", BOOT), ("clear", BOOT),
                                             ("compact", RELOAD)])
def test_claude_session_start_prints_identity_only(claude, source, trigger):
    result = claude.session_start(source)
    assert (result.returncode, result.stderr) == (0, b"")
    identity = (claude.memory / "identity.md").read_bytes()
    assert result.stdout == hook_format.injected_at_session_start(str(claude.memory), {"identity.md": identity},
                                                                  source)
    assert result.stdout.startswith(
        f'<seat-memory-layer source="{claude.memory}" trigger="{trigger}">\n'.encode())
    assert b"<!-- identity.md -->\n# Identity\n\nagent: claude-1\n" in result.stdout
    assert b"MEMORY.md -->" not in result.stdout and b"loaded natively, never" not in result.stdout
    assert b"wake-route" not in result.stdout
    assert result.stdout.endswith(b"</seat-memory-layer>\n")


def test_claude_hook_is_stateless_every_boundary_prints_again(claude):
    first, second = claude.session_start("startup"), claude.session_start("startup")
    assert first.stdout == second.stdout and first.stdout
    assert sorted(p.name for p in claude.home.rglob("*")) == sorted(
        ["memory", "MEMORY.md", "identity.md", "hooks", HOOK_SCRIPT])  # nothing written anywhere


@pytest.mark.parametrize("stdin", ["not json", "{", "[1, 2]", "\xff\xfe", '{"hook_event_name": "SessionStart"} x', ""])
def test_claude_garbage_says_one_line_and_exits_zero(claude, stdin):
    complaint(claude.run(stdin.encode("latin-1")))


@pytest.mark.parametrize("stdin", ['{"hook_event_name": "SessionStart"}',
                                   '{"hook_event_name": "SessionStart", "source": "bogus"}',
                                   '{"hook_event_name": "SessionStart", "source": ["startup"]}',
                                   '{"hook_event_name": "UserPromptSubmit", "session_id": "c-1"}',
                                   '{"hook_event_name": "PostCompact", "session_id": "c-1"}'])
def test_claude_other_events_are_silent(claude, stdin):
    result = claude.run(stdin.encode("latin-1"))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_claude_missing_identity_prints_the_empty_block(claude):
    (claude.memory / "identity.md").unlink()
    result = claude.session_start("startup")
    assert result.returncode == 0
    assert result.stdout == hook_format.injected_at_session_start(str(claude.memory), {}, "startup")


def test_kimi_hook_stays_silent_on_a_claude_session_start(seat):
    result = seat.event("SessionStart", source="startup", transcript_path="/x/t.jsonl")
    assert (result.returncode, result.stdout) == (0, b"")


# ---------------------------------------------------------------------------- wake-envelope script


@pytest.fixture
def wake_script(tmp_path):
    fleet = make_fleet(tmp_path / "f")
    plan = composer.apply_fleet(fleet, OPENCODE)[0]
    return plan.instance_home / WAKE_SCRIPT


def _wake(script: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
    return subprocess.run([sys.executable, "-I", str(script), *args], capture_output=True, env=full_env, timeout=30)


def test_wake_envelope_written_atomically_with_mode_0600(wake_script, tmp_path):
    data_home = tmp_path / "data home"
    result = _wake(wake_script, "--data-home", str(data_home), "--port", "4096", "--session-id", "ses_1",
                   "--project-id", "p1", "--directory", "/repo", OPENCODE_SERVER_USERNAME="u",
                   OPENCODE_SERVER_PASSWORD="pw")
    assert result.returncode == 0, result.stderr
    target = data_home / "opencode" / "wake-envelope.json"
    envelope = json.loads(target.read_text())
    assert {k: v for k, v in envelope.items() if k != "updatedAt"} == {
        "hostname": "127.0.0.1", "port": 4096, "sessionId": "ses_1", "projectId": "p1", "directory": "/repo",
        "username": "u", "password": "pw"}
    assert envelope["updatedAt"].endswith("Z")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["wake-envelope.json"]  # no temp file left


@pytest.mark.parametrize("port", ["0", "65536", "http", "-1"])
def test_wake_envelope_rejects_bad_ports_and_writes_nothing(wake_script, tmp_path, port):
    result = _wake(wake_script, "--data-home", str(tmp_path / "d"), "--port", port, "--session-id", "s",
                   "--project-id", "p", "--directory", "/r")
    assert result.returncode == 2 and b"port" in result.stderr
    assert not (tmp_path / "d").exists()


def test_wake_envelope_removes_the_temp_files_killed_runs_left_and_no_other(wake_script, tmp_path):
    directory = tmp_path / "d" / "opencode"
    directory.mkdir(parents=True)
    dead = directory / ".wake-envelope.json.0123abcd.seat-curator.tmp"  # nobody holds it: a killed run's
    dead.write_text('{"port": 1')
    live = directory / ".wake-envelope.json.89abcdef.seat-curator.tmp"  # a run still writing holds it
    live.write_text('{"port": 2')
    others = [".wake-envelope.json.abcd1234.tmp", ".other.json.0123abcd.seat-curator.tmp",
              ".wake-envelope.json.0123ABCD.seat-curator.tmp"]
    for name in others:
        (directory / name).write_text("not ours to remove")
    with open(live) as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        result = _wake(wake_script, "--data-home", str(tmp_path / "d"), "--port", "4096", "--session-id", "s",
                       "--project-id", "p", "--directory", "/r")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in directory.iterdir()) == sorted(others + [live.name, "wake-envelope.json"])
