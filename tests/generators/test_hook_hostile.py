"""The identity-anchor hook against hostile files, state and session ids: it runs inside the harness
on every prompt, so it must never follow a symlink, block, read without a cap, write outside its
own state dir, or mix up two sessions."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from generators import hook_format
from generators.scripts import identity_anchor_hook as hook
from tests.support.hooks import BOOT, ClaudeSeat, Seat, expected_injection, complaint, marker
REFUSED = "<!-- {name}: not loaded: {why} -->\n"


@pytest.fixture
def seat(tmp_path):
    return Seat(tmp_path)


def _payload(sid="s-1", **extra) -> str:
    return json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": sid, "cwd": "/x", **extra})


def _boot_with(seat: Seat, memory: bytes | str, identity_name: str = "identity.md") -> bytes:
    files = {"MEMORY.md": memory, identity_name: (seat.memory / identity_name).read_bytes()}
    return hook_format.injected(str(seat.memory), files, BOOT)


# ------------------------------------------------------------------------ boot files (item 8)


def test_symlinked_memory_file_is_refused_and_its_target_never_printed(seat, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("API_KEY=do-not-leak\n")
    (seat.memory / "MEMORY.md").unlink()
    (seat.memory / "MEMORY.md").symlink_to(secret)
    result = seat.event("UserPromptSubmit")
    assert result.returncode == 0
    assert b"do-not-leak" not in result.stdout
    assert REFUSED.format(name="MEMORY.md", why="a symlink").encode() in result.stdout
    assert result.stdout == _boot_with(seat, "a symlink")
    assert b"<!-- identity.md -->\n# Identity" in result.stdout  # the other boot file still loads


def test_memory_file_linked_to_dev_zero_is_refused_at_once(seat):
    (seat.memory / "MEMORY.md").unlink()
    (seat.memory / "MEMORY.md").symlink_to("/dev/zero")
    result = seat.event("UserPromptSubmit")
    assert result.returncode == 0 and len(result.stdout) < 4096
    assert result.stdout == _boot_with(seat, "a symlink")


def test_fifo_boot_file_never_blocks(seat):
    (seat.memory / "identity.md").unlink()
    os.mkfifo(seat.memory / "identity.md")
    result = seat.event("UserPromptSubmit")  # the old hook blocked here until the 30 s timeout
    assert result.returncode == 0
    assert REFUSED.format(name="identity.md", why="not a regular file").encode() in result.stdout
    assert b"<!-- MEMORY.md -->\n# Seat memory index" in result.stdout


def test_directory_as_boot_file_is_refused(seat):
    (seat.memory / "identity.md").unlink()
    (seat.memory / "identity.md").mkdir()
    result = seat.event("UserPromptSubmit")
    assert REFUSED.format(name="identity.md", why="not a regular file").encode() in result.stdout


def test_boot_file_over_the_byte_cap_is_refused_at_the_cap_and_one_at_it_loads(seat):
    at_cap = b"- x\n" * (hook.BYTE_CAP // 4)
    assert len(at_cap) == hook.BYTE_CAP
    (seat.memory / "MEMORY.md").write_bytes(at_cap)
    assert seat.event("UserPromptSubmit", sid="at-cap").stdout == _boot_with(seat, at_cap)
    (seat.memory / "MEMORY.md").write_bytes(at_cap + b"y")
    result = seat.event("UserPromptSubmit", sid="over-cap")
    assert result.stdout == _boot_with(seat, f"larger than {hook.BYTE_CAP} bytes")
    assert len(result.stdout) < 4096


def test_symlinked_memory_dir_is_refused(seat, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "MEMORY.md").write_text("# someone else's index\n")
    (elsewhere / "identity.md").write_text("# someone else\n")
    real = seat.memory.with_name("memory.real")
    seat.memory.rename(real)
    seat.memory.symlink_to(elsewhere)
    result = seat.event("UserPromptSubmit")
    assert result.returncode == 0
    assert b"someone else" not in result.stdout
    why = "its directory is a symlink or not a directory"
    assert result.stdout == hook_format.injected(str(seat.memory), {"MEMORY.md": why, "identity.md": why}, BOOT)


def test_the_refusal_notice_is_counted_like_everything_else():
    out = hook_format.injected("/m", {"MEMORY.md": "a symlink", "identity.md": b"# Identity\n"})
    assert out.count(b"\n<!-- MEMORY.md: not loaded: a symlink -->\n<!-- identity.md -->\n# Identity\n") == 1


# ------------------------------------------------------------------------ state dir (item 9)


def test_symlinked_compacted_marker_never_truncates_its_target(seat, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    seat.event("UserPromptSubmit")
    (seat.state / marker("s-1", "compacted")).symlink_to(victim)
    assert seat.event("PostCompact").returncode == 0
    assert victim.read_text() == "precious\n"
    reload = seat.event("UserPromptSubmit")  # the symlink counts as the compaction mark and is removed
    assert reload.stdout == expected_injection(seat, "post-compact-reload")
    assert victim.read_text() == "precious\n"
    assert not (seat.state / marker("s-1", "compacted")).is_symlink()


def test_dangling_done_symlink_never_creates_its_target(seat, tmp_path):
    target = tmp_path / "planted"
    seat.state.mkdir(parents=True)
    (seat.state / marker("s-1", "done")).symlink_to(target)
    for _ in range(2):
        result = seat.event("UserPromptSubmit")
        assert result.returncode == 0
    assert not target.exists() and not target.is_symlink()


def test_symlinked_state_dir_is_never_written_through(seat, tmp_path):
    redirect = tmp_path / "redirect"
    redirect.mkdir()
    seat.home.mkdir(parents=True)
    (seat.home / "identity-anchor").symlink_to(redirect)
    for event in ("UserPromptSubmit", "PostCompact", "UserPromptSubmit"):
        result = seat.event(event)
        assert (result.returncode, result.stdout) == (0, b"")  # state cannot be kept: silent
    assert list(redirect.iterdir()) == []


@pytest.mark.parametrize("env", [{}, {"HOME": "", "KIMI_CODE_HOME": ""}, {"KIMI_CODE_HOME": "relative/home"},
                                 {"HOME": "relative"}])
def test_without_an_absolute_home_state_stays_in_the_seats_own_home(seat, tmp_path, env):
    repo = tmp_path / "repo"
    repo.mkdir()
    first = seat.event("UserPromptSubmit", env=env, cwd=repo)
    assert first.stdout == expected_injection(seat, BOOT)
    assert seat.event("UserPromptSubmit", env=env, cwd=repo).stdout == b""  # the state was kept
    assert (seat.plan.instance_home / "identity-anchor" / marker("s-1", "done")).is_file()
    assert list(repo.iterdir()) == []


def test_home_without_kimi_code_home_is_kimis_default(seat, tmp_path):
    user = tmp_path / "user"
    seat.event("UserPromptSubmit", env={"HOME": str(user)})
    assert (user / ".kimi-code" / "identity-anchor" / marker("s-1", "done")).is_file()


# ------------------------------------------------------------------------ session ids (item 10)


@pytest.mark.parametrize("first, second", [("a/b", "a_b"), ("é", "ü"), ("会话一", "会话二"), ("5", 5),
                                           ("x" * 300 + "1", "x" * 300 + "2"), ("a b", "a_b")])
def test_distinct_session_ids_each_get_their_boot(seat, first, second):
    assert seat.event("UserPromptSubmit", sid=first).stdout == expected_injection(seat, BOOT)
    assert seat.event("UserPromptSubmit", sid=second).stdout == expected_injection(seat, BOOT)
    assert seat.event("UserPromptSubmit", sid=first).stdout == b""
    assert seat.event("UserPromptSubmit", sid=second).stdout == b""


@pytest.mark.parametrize("length", [250, 256, 5000])
def test_a_session_id_of_any_length_keeps_its_state(seat, length):
    sid = "s" * length
    assert seat.event("UserPromptSubmit", sid=sid).stdout == expected_injection(seat, BOOT)
    assert seat.event("UserPromptSubmit", sid=sid).stdout == b""
    assert seat.event("PostCompact", sid=sid).returncode == 0
    assert seat.event("UserPromptSubmit", sid=sid).stdout == expected_injection(seat, "post-compact-reload")


def test_prompts_without_a_session_id_share_no_state_and_always_boot(seat):
    for payload in ({"hook_event_name": "UserPromptSubmit"},
                    {"hook_event_name": "UserPromptSubmit", "session_id": None},
                    {"hook_event_name": "UserPromptSubmit", "session_id": ""},
                    {"hook_event_name": "UserPromptSubmit"}):
        assert seat.run(json.dumps(payload)).stdout == expected_injection(seat, BOOT)
    assert seat.event("UserPromptSubmit", sid="real").stdout == expected_injection(seat, BOOT)  # not pre-empted
    assert not seat.state.exists() or [p.name for p in seat.state.iterdir()] == [marker("real", "done")]


def test_state_names_are_distinct_and_fit_a_file_name():
    ids = ["a/b", "a_b", "a-b", "ab", "é", "ü", "e\u0301", "\ud800", "5", 5, 5.0, True, 1, [1], {"a": 1},
           "x" * 59, "x" * 60, "x" * 61, "x" * 4000, "x" * 4001, "s" + "x" * 59, "sx"]
    names = [hook.state_name(i) for i in ids]
    assert len(set(names)) == len(ids)
    assert all(len((n + ".compacted").encode()) <= 255 and n.isalnum() and n.isascii() for n in names)
    assert [hook.state_name(i) for i in (None, "")] == [None, None]


# ------------------------------------------------------------------------ hostile stdin


@pytest.mark.parametrize("mark, codec", [(b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"),
                                         (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
                                         (b"\x00\x00\xfe\xff", "utf-32-be")])
def test_a_payload_with_a_byte_order_mark_still_boots(seat, mark, codec):
    prompt = mark + _payload(prompt="héllo").encode(codec)
    first = seat.run(prompt)
    assert (first.returncode, first.stdout, first.stderr) == (0, expected_injection(seat, BOOT), b"")
    again = seat.run(prompt)  # the session's state was kept under the same id
    assert (again.stdout, again.stderr) == (b"", b"")
    assert [p.name for p in seat.state.iterdir()] == [marker("s-1", "done")]


def test_a_bom_before_whitespace_and_the_object_still_boots(seat):
    result = seat.run(b"\xef\xbb\xbf\r\n  " + _payload().encode() + b"\n")
    assert (result.stdout, result.stderr) == (expected_injection(seat, BOOT), b"")


def test_claude_session_start_with_a_bom_prints_identity(tmp_path):
    claude = ClaudeSeat(tmp_path)
    plain = claude.session_start("startup")
    payload = json.dumps({"session_id": "c-1", "hook_event_name": "SessionStart", "source": "startup"})
    result = claude.run(b"\xef\xbb\xbf" + payload.encode())
    assert (result.returncode, result.stdout, result.stderr) == (0, plain.stdout, b"")
    assert result.stdout.startswith(b"<seat-memory-layer ")


def test_bytes_that_are_not_utf8_inside_the_payload_still_boot(seat):
    raw = _payload(prompt="PROMPT").encode().replace(b"PROMPT", b"caf\xe9 \xff\xfe")
    result = seat.run(raw)
    assert (result.returncode, result.stdout, result.stderr) == (0, expected_injection(seat, BOOT), b"")


def test_session_ids_that_are_not_utf8_stay_apart(seat):
    one, two = (_payload(sid="ID").encode().replace(b"ID", bad) for bad in (b"\xff", b"\xfe"))
    assert seat.run(one).stdout == expected_injection(seat, BOOT)
    assert seat.run(two).stdout == expected_injection(seat, BOOT)
    assert seat.run(one).stdout == b"" and seat.run(two).stdout == b""
    assert len(list(seat.state.iterdir())) == 2


@pytest.mark.parametrize("stdin, what", [
    (b"", "is empty"),
    (b" \r\n\t", "is empty"),
    (b"\xef\xbb\xbf", "is empty"),
    (b"hello", "is not JSON (Expecting value: line 1 column 1 (char 0))"),
    (b'{"hook_event_name": "UserPromptSubmit", "session_id": "s-1"', "is not JSON (Expecting ',' delimiter"),
    (b'{"hook_event_name": "UserPromptSubmit"}{}', "is not JSON (extra data after the first value, char 39)"),
    (b"[1, 2]", "is a JSON array"),
    (b'"UserPromptSubmit"', "is a JSON string"),
    (b"42", "is a JSON number"),
    (b"null", "is JSON null"),
    (b"true", "is a JSON boolean"),
    pytest.param(b"[" * 100_000, "is not JSON (nested too deeply)", id="nested-100000-deep"),
    (b"\xff\xfe" + "[1]".encode("utf-16-le"), "is a JSON array"),
    (b"\x00\x01\x02\x03", "is not JSON (Expecting value"),
])
def test_stdin_that_is_not_a_json_object_is_named_on_one_stderr_line(seat, stdin, what):
    result = seat.run(stdin)
    line = complaint(result)
    assert line.startswith(f"identity-anchor hook: stdin ({len(stdin)} bytes) {what}")
    if stdin.strip(b" \r\n\t"):
        assert f"(it began {stdin[:48]!r})" in line
    assert not seat.state.exists()  # nothing was recorded: the next real prompt is the boot
    assert seat.event("UserPromptSubmit").stdout == expected_injection(seat, BOOT)


def test_a_closed_stdin_is_named_too(seat):
    result = subprocess.run(seat.command + " <&-", shell=True, capture_output=True, timeout=30,
                            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "KIMI_CODE_HOME": str(seat.home)})
    assert complaint(result).startswith("identity-anchor hook: stdin (0 bytes) is unreadable (closed)")


def test_a_payload_at_the_stdin_cap_boots_and_one_byte_more_is_refused_unread(seat):
    empty = _payload(prompt="")
    at_cap = empty.replace('"prompt": ""', '"prompt": "' + "x" * (hook.STDIN_CAP - len(empty)) + '"').encode()
    assert len(at_cap) == hook.STDIN_CAP
    result = seat.run(at_cap)
    assert (result.stdout, result.stderr) == (expected_injection(seat, BOOT), b"")
    over = at_cap.replace(b'"prompt": "', b'"prompt": "x', 1)
    line = complaint(seat.run(over.replace(b'"s-1"', b'"s-2"')))
    assert line.startswith(f"identity-anchor hook: stdin ({hook.STDIN_CAP + 1} bytes) is over {hook.STDIN_CAP} bytes")
    assert not (seat.state / marker("s-2", "done")).exists()
