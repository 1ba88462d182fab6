"""Driving one seat's real harness through the canary's turns against the stub, recording a run log.

Each turn is one bounded subprocess in its own process group; the group is killed when the turn ends
or times out, so no harness process outlives the run. The stub and the sandbox live only as long as
the run.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from collections.abc import Callable

from curator.canary.clis import HarnessCli
from curator.canary.sandbox import (Sandbox, codex_args, codex_servers, prepare_claude, prepare_codex, prepare_gemini,
                                   prepare_kimi, prepare_opencode)
from curator.canary.seat import Seat, read_boot_files
from curator.canary.stub import StubModel

TURN_TIMEOUT_S = 60.0
# Reported once to force compaction: kimi compacts at >= 0.85 x 200,000; opencode above 128,000.
KIMI_FORCE_TOKENS = 190_000
OPENCODE_FORCE_TOKENS = 150_000
SESSION_RE = re.compile(r"\bsession_[0-9a-fA-F-]{8,}\b")
CLAUDE_SESSION_RE = re.compile(r'"session_id"\s*:\s*"([0-9A-Za-z_-]{8,})"')
# Print mode, one JSON result per turn; no MCP server at all (the seat's .mcp.json servers must not
# start during a canary, and the run checks memory loading, not tools).
CLAUDE_ARGS = ("--output-format", "json", "--strict-mcp-config")

Progress = Callable[[str], None]


def run_turn(argv: list[str], box: Sandbox, timeout: float) -> dict[str, Any]:
    """One harness invocation; returns exit code, output tail, wall time. Never leaves processes behind.

    Output goes to a file, not a pipe: a helper the harness leaves running must not keep the turn
    open after the harness itself has exited.
    """
    started = time.monotonic()
    timed_out = False
    with tempfile.TemporaryFile(dir=box.root) as output:
        proc = subprocess.Popen(argv, cwd=box.cwd, env=box.env, stdin=subprocess.DEVNULL,
                                stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(proc.pid)  # the harness on timeout, and any helper it spawned, always
            proc.wait()
        output.seek(0)
        text = output.read().decode("utf-8", errors="replace")
    return {"exit_code": None if timed_out else proc.returncode, "timed_out": timed_out,
            "seconds": round(time.monotonic() - started, 3), "output": text, "output_tail": text[-2000:]}


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _state_files(box: Sandbox) -> list[str]:
    if box.state_dir is None or not box.state_dir.is_dir():
        return []
    return sorted(p.name for p in box.state_dir.iterdir())


def _record(step: str, prompt: list[str], turn: dict[str, Any], stub: StubModel, box: Sandbox) -> dict[str, Any]:
    return {"name": step, "prompt": " ".join(prompt), "exit_code": turn["exit_code"],
            "timed_out": turn["timed_out"], "seconds": turn["seconds"], "output_tail": turn["output_tail"],
            "requests": stub.take_requests(), "state_files": _state_files(box)}


def _log_head(seat: Seat, box: Sandbox, cli: HarnessCli) -> dict[str, Any]:
    return {"format": 1, "harness": seat.harness, "resident": seat.resident,
            "memory_dir": str(seat.memory_dir), "memory_dir_real": os.path.realpath(seat.memory_dir),
            "boot_files": read_boot_files(seat), "wiring": box.wiring, "cli": " ".join(cli.argv),
            "cli_source": cli.source, "steps": []}


def _session_turns(seat: Seat, cli: HarnessCli, box: Sandbox, stub: StubModel, log: dict[str, Any],
                   turns: tuple[tuple[str, str], ...], args_for: Callable[[str, str | None], list[str]],
                   session_of: Callable[[str], str | None], timeout: float, say: Progress,
                   before: Callable[[str], None] | None = None) -> None:
    """Run ``turns`` (step name, words) as one session: the first turn's output names the session
    the later turns resume. Each turn is recorded in ``log``, then ``log["session_id"]``."""
    session: str | None = None
    for step, words in turns:
        args = args_for(words, session)
        if before is not None:
            before(step)
        say(f"{seat.resident}: {seat.harness} {step} turn")
        turn = run_turn(list(cli.argv) + args, box, timeout)
        log["steps"].append(_record(step, args, turn, stub, box))
        if session is None:
            session = session_of(turn["output"])
            if session is None:
                break  # later turns cannot resume; the analysis reports them as not run
    log["session_id"] = session


def run_kimi(seat: Seat, cli: HarnessCli, root: Path, *, timeout: float = TURN_TIMEOUT_S,
             progress: Progress | None = None) -> dict[str, Any]:
    """Boot turn, an ordinary turn (which reports a huge usage), the turn that compacts, the reload turn."""
    say = progress or (lambda _msg: None)
    with StubModel() as stub:
        box = prepare_kimi(seat, root, stub.base_url)
        log = _log_head(seat, box, cli)
        def before(step: str) -> None:
            if step == "silent":
                stub.force_compaction_once(KIMI_FORCE_TOKENS)  # kimi compacts before the next turn

        _session_turns(seat, cli, box, stub, log, (("boot", "canary turn one"), ("silent", "canary turn two"),
                                                   ("compact", "canary turn three"), ("reload", "canary turn four")),
                       lambda words, sid: ["-p", words] if sid is None else ["-S", sid, "-p", words],
                       lambda output: (m.group(0) if (m := SESSION_RE.search(output)) else None),
                       timeout, say, before)
    return log


def run_opencode(seat: Seat, cli: HarnessCli, root: Path, *, timeout: float = TURN_TIMEOUT_S,
                 progress: Progress | None = None) -> dict[str, Any]:
    """One turn whose first main request reports a huge usage: OpenCode compacts inside that turn and
    carries on, so the turn holds the boot request, the summary request and the requests after it.
    (Every OpenCode invocation costs seconds of start-up; one turn covers before and after.)"""
    say = progress or (lambda _msg: None)
    with StubModel() as stub:
        box = prepare_opencode(seat, root, stub.base_url)
        log = _log_head(seat, box, cli)
        args = ["run", "canary", "turn", "one"]
        stub.force_compaction_once(OPENCODE_FORCE_TOKENS)
        say(f"{seat.resident}: opencode boot turn (compacts)")
        turn = run_turn(list(cli.argv) + args, box, timeout)
        log["steps"].append(_record("turn", args, turn, stub, box))
    return log


def run_claude(seat: Seat, cli: HarnessCli, root: Path, *, timeout: float = TURN_TIMEOUT_S,
               progress: Progress | None = None) -> dict[str, Any]:
    """Boot turn, ``/compact`` on the resumed session (print mode runs it as a command), and a turn
    on the compacted session. Claude Code compacts on request: the stub needs no forcing."""
    say = progress or (lambda _msg: None)
    with StubModel() as stub:
        box = prepare_claude(seat, root, stub.anthropic_base_url)
        log = _log_head(seat, box, cli)
        _session_turns(seat, cli, box, stub, log, (("boot", "canary turn one"), ("compact", "/compact"),
                                                   ("after-compaction", "canary turn two")),
                       lambda words, sid: ["-p", words, *CLAUDE_ARGS] if sid is None
                       else ["-p", "--resume", sid, words, *CLAUDE_ARGS],
                       lambda output: (m.group(1) if (m := CLAUDE_SESSION_RE.search(output)) else None),
                       timeout, say)
    return log


CODEX_FORCE_TOKENS = 190_000  # over the 100,000 auto-compaction limit the canary gives Codex
CODEX_SESSION_RE = re.compile(r"^session id: ([0-9a-fA-F-]{36})$", re.M)  # the header `codex exec` prints
# Over half (Gemini's default model.compressionThreshold) of the 1,048,576-token limit of its models.
GEMINI_FORCE_TOKENS = 900_000
# A read-only tool Gemini runs without asking in headless mode: its result makes a second request
# in the same process, the one Gemini compresses before.
GEMINI_TOOL_CALL = ("list_directory", {"dir_path": "."})
GEMINI_ARGS = ("--allowed-mcp-server-names", "seat-canary-no-server")  # every MCP server off


def run_codex(seat: Seat, cli: HarnessCli, root: Path, *, timeout: float = TURN_TIMEOUT_S,
              progress: Progress | None = None) -> dict[str, Any]:
    """Two ``codex exec`` turns on the seat's real CODEX_HOME, without the trust-bypass flag.

    The boot turn's one request is answered with a usage past the compaction limit, so Codex compacts
    between turns, at the start of ``codex exec resume <session>``; that turn's first request is
    answered with a tool call and the same usage, so Codex compacts again mid-turn, where only the
    ``compact`` hook event can put the files back."""
    say = progress or (lambda _msg: None)
    with StubModel() as stub:
        box = prepare_codex(seat, root, stub.base_url)
        log = _log_head(seat, box, cli)
        servers = codex_servers(seat)

        def before(step: str) -> None:
            if step == "resume":
                stub.script_tool_calls(("get_goal", {}))
            stub.force_compaction_once(CODEX_FORCE_TOKENS)

        _session_turns(seat, cli, box, stub, log, (("boot", "canary turn one"), ("resume", "canary turn two")),
                       lambda words, sid: codex_args(stub.base_url, servers, words, sid),
                       lambda output: (m.group(1) if (m := CODEX_SESSION_RE.search(output)) else None),
                       timeout, say, before)
    return log


def run_gemini(seat: Seat, cli: HarnessCli, root: Path, *, timeout: float = TURN_TIMEOUT_S,
               progress: Progress | None = None) -> dict[str, Any]:
    """A headless boot turn, then the session resumed (``--resume <id>``) for a turn whose first
    request is answered with a tool call and a usage past Gemini's compression threshold: before it
    sends the tool's result, Gemini compresses the conversation automatically, in the process whose
    next request the stub then reads. (Headless ``/compress`` does not carry into a later process, and
    ACP offers no compress command in 0.61.0.)"""
    say = progress or (lambda _msg: None)
    session = str(uuid.uuid4())
    with StubModel() as stub:
        box = prepare_gemini(seat, root, stub.anthropic_base_url)
        log = _log_head(seat, box, cli)

        def before(step: str) -> None:
            if step == "compress":
                stub.script_tool_calls(GEMINI_TOOL_CALL)
                stub.force_compaction_once(GEMINI_FORCE_TOKENS)

        _session_turns(seat, cli, box, stub, log, (("boot", "canary turn one"), ("compress", "canary turn two")),
                       lambda words, sid: [*GEMINI_ARGS, "--session-id", session, "-p", words] if sid is None
                       else [*GEMINI_ARGS, "--resume", sid, "-p", words],
                       lambda _output: session, timeout, say, before)
    return log


RUNNERS = {"kimi-code": run_kimi, "opencode": run_opencode, "claude-code": run_claude, "codex": run_codex,
           "gemini-cli": run_gemini}


def run_seat(seat: Seat, cli: HarnessCli, *, timeout: float = TURN_TIMEOUT_S,
             progress: Progress | None = None) -> dict[str, Any]:
    """Run the seat's harness in a fresh sandbox (removed afterwards) and return the run log."""
    root = Path(tempfile.mkdtemp(prefix="seat-canary-"))
    try:
        return RUNNERS[seat.harness](seat, cli, root, timeout=timeout, progress=progress)
    finally:
        shutil.rmtree(root, ignore_errors=True)
