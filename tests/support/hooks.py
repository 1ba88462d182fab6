"""The emitted identity-anchor hook, run as the harnesses run it: a kimi-code seat and a claude-code seat."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

from generators import composer, hook_format, kimi
from generators.script_source import HOOK_SCRIPT, identity_hook
from generators.scripts import identity_anchor_hook
from tests.support.fleets import KIMI, make_fleet

BOOT = "session-boot"


def marker(sid, kind: str) -> str:
    """The name of a session's state file, as the hook names it."""
    return f"{identity_anchor_hook.state_name(sid)}.{kind}"


RELOAD = "post-compact-reload"


class Seat:
    """A provisioned kimi-code seat in a directory with a space in its name (quoting must hold)."""

    def __init__(self, tmp_path: Path):
        self.fleet = make_fleet(tmp_path / "fleet dir")
        plans = composer.apply_fleet(self.fleet, KIMI)
        self.plan = plans[0]
        self.memory = self.plan.memory_dir
        config = tomllib.loads((self.plan.instance_home / "config.toml").read_text())
        self.command = config["hooks"][0]["command"]
        self.home = tmp_path / "kimi home"
        self.state = self.home / "identity-anchor"

    def run(self, stdin: bytes | str, *, home: Path | None = None, env: dict | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        """``env`` replaces HOME and KIMI_CODE_HOME (PATH is always set)."""
        data = stdin.encode() if isinstance(stdin, str) else stdin
        if env is None:
            env = {"HOME": str(self.home.parent), "KIMI_CODE_HOME": str(home or self.home)}
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
        return subprocess.run(self.command, shell=True, input=data, capture_output=True, env=env, timeout=30,
                              cwd=cwd)

    def event(self, name: str, sid: object = "s-1", **extra) -> subprocess.CompletedProcess:
        run_args = {k: extra.pop(k) for k in ("home", "env", "cwd") if k in extra}
        return self.run(json.dumps({"hook_event_name": name, "session_id": sid, "cwd": "/x",
                                    "client_type": "cli", **extra}), **run_args)


def expected_injection(seat: Seat, trigger: str, *, wake: bool = False, names=("MEMORY.md", "identity.md")) -> bytes:
    """What the hook must print for ``seat`` at ``trigger``: the named files in the envelope."""
    files = {n: (seat.memory / n).read_bytes() for n in names}
    return hook_format.injected(str(seat.memory), files, trigger, wake)


def complaint(result) -> str:
    """The one stderr line the hook writes for stdin that is not a JSON object (exit 0, no stdout)."""
    assert (result.returncode, result.stdout) == (0, b"")
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("identity-anchor hook: stdin ("), result.stderr
    assert "not the JSON object the harness sends; nothing loaded" in lines[0]
    return lines[0]


class ClaudeSeat:
    """The hook emitted for a claude-code seat (SessionStart, identity.md only), run as settings.json
    runs it: its command through a shell, the Claude Code payload on stdin."""

    def __init__(self, tmp_path: Path):
        self.memory = tmp_path / "claude seat" / "memory"
        self.memory.mkdir(parents=True)
        (self.memory / "MEMORY.md").write_text("# Seat memory index\n\n- loaded natively, never by the hook\n")
        (self.memory / "identity.md").write_text("# Identity\n\nagent: claude-1\n")
        self.home = tmp_path / "claude seat"
        self.script = self.home / "hooks" / HOOK_SCRIPT
        self.script.parent.mkdir()
        self.script.write_bytes(identity_hook("claude-code", self.memory, self.home, ("identity.md",)))
        self.command = kimi.hook_command(kimi.resolve_interpreter(), self.script)

    def run(self, stdin: bytes | str) -> subprocess.CompletedProcess:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}  # no HOME: the hook keeps no state
        return subprocess.run(self.command, shell=True, input=data, capture_output=True, env=env, timeout=30,
                              cwd=self.home)

    def session_start(self, source: str, sid: str = "c-1") -> subprocess.CompletedProcess:
        return self.run(json.dumps({"session_id": sid, "transcript_path": "/x/t.jsonl", "cwd": "/repo",
                                    "hook_event_name": "SessionStart", "source": source}))
