"""The real harness CLIs, offline, against the canary's stub answering with scripted tool calls:

1. Claude Code calls the seat's curator MCP server (through ToolSearch, as it loads deferred MCP tools)
   and the memory dir changes exactly as the seat store changes it;
2. Claude Code and Kimi Code are asked to Write a MEMORY.md past the read limit: the cap guard blocks
   it, the file is unchanged, and the next request the stub receives carries the guard's reason;
3. an index with frontmatter and HTML comment blocks is cut by the real Claude Code where the
   claude-code profile says.

Each test skips, with the reason, when its CLI is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.canary.clis import CliNotFound, find_cli
from curator.canary.runner import run_turn
from curator.canary.sandbox import prepare_claude, prepare_kimi
from curator.canary.seat import seats_from_fleet
from curator.canary.stub import StubModel
from curator.index_model import parse_index
from curator.load_sim import simulate
from generators import composer
from generators.manifest import load_manifest

CLAUDE, KIMI = "@canary-claude", "@canary-kimi"
SERVER = "canary-seat-curator"
MANIFEST = f"""\
instance_root = "instances"
mcp_prefix = "canary-"
default_model = "stub"

[[residents]]
agent_id = "{CLAUDE}"
harness = "claude-code"
repo = "repos/claude"

[[residents]]
agent_id = "{KIMI}"
harness = "kimi-code"
repo = "repos/kimi"
"""
TIMEOUT = 120
pytestmark = [pytest.mark.canary, pytest.mark.xdist_group("canary")]


def cli_or_skip(harness: str):
    try:
        return find_cli(harness)
    except CliNotFound as err:
        pytest.skip(f"{harness} CLI not installed: {err}")


def born_seat(tmp_path: Path, agent_id: str):
    (tmp_path / "fleet.toml").write_text(MANIFEST)
    for repo in ("claude", "kimi"):
        (tmp_path / "repos" / repo).mkdir(parents=True, exist_ok=True)
    fleet = load_manifest(tmp_path / "fleet.toml")
    composer.apply_fleet(fleet, agent_id)
    return seats_from_fleet(fleet, agent_id)[0]


def tool_results(requests: list[dict]) -> list[str]:
    """Every tool result the harness sent back, as text (Anthropic ``tool_result`` or OpenAI ``tool``)."""
    found = []
    for body in requests:
        for message in body.get("messages", []):
            content = message.get("content")
            if message.get("role") == "tool":
                found.append(content if isinstance(content, str) else json.dumps(content))
            elif isinstance(content, list):
                found += [json.dumps(part.get("content")) for part in content
                          if isinstance(part, dict) and part.get("type") == "tool_result"]
    return found


def claude_turn(seat, tmp_path: Path, stub: StubModel, words: str) -> dict:
    cli = cli_or_skip("claude-code")
    box = prepare_claude(seat, tmp_path / "box", stub.anthropic_base_url)
    return run_turn(list(cli.argv) + ["-p", words, "--output-format", "json"], box, TIMEOUT)


def test_claude_code_calls_the_seats_mcp_server_and_the_store_makes_the_change(tmp_path):
    cli_or_skip("claude-code")
    seat = born_seat(tmp_path, CLAUDE)
    index = seat.memory_dir / "MEMORY.md"
    before = index.read_bytes()
    old = before.decode().splitlines()[0]
    tool = f"mcp__{SERVER}__str_replace"
    with StubModel() as stub:
        stub.script_tool_calls(("ToolSearch", {"query": f"select:{tool}", "max_results": 1}),
                               (tool, {"path": "/memories/MEMORY.md", "old_str": old, "new_str": old + " (curated)"}))
        turn = claude_turn(seat, tmp_path, stub, "canary: edit memory")
        results = tool_results(stub.requests)
    assert turn["exit_code"] == 0, turn["output_tail"]
    assert any("The memory file has been edited." in r and "meter: MEMORY.md" in r for r in results), results
    assert index.read_bytes() == before.replace(old.encode(), (old + " (curated)").encode(), 1)


@pytest.mark.parametrize("harness", ["claude-code", "kimi-code"])
def test_a_write_past_the_read_limit_is_blocked_and_the_model_reads_why(tmp_path, harness):
    cli = cli_or_skip(harness)
    seat = born_seat(tmp_path, CLAUDE if harness == "claude-code" else KIMI)
    index = seat.memory_dir / "MEMORY.md"
    before = index.read_bytes()
    big = "- " + "x" * 25_000 + "\n"
    with StubModel() as stub:
        if harness == "claude-code":
            stub.script_tool_calls(("Write", {"file_path": str(index), "content": big}))
            box = prepare_claude(seat, tmp_path / "box", stub.anthropic_base_url)
            turn = run_turn(list(cli.argv) + ["-p", "canary: write memory", "--output-format", "json"], box, TIMEOUT)
        else:
            stub.script_tool_calls(("Write", {"path": str(index), "content": big, "mode": "overwrite"}))
            box = prepare_kimi(seat, tmp_path / "box", stub.base_url)
            turn = run_turn(list(cli.argv) + ["-p", "canary: write memory"], box, TIMEOUT)
        results = tool_results(stub.requests)
    assert turn["exit_code"] == 0, turn["output_tail"]
    assert index.read_bytes() == before
    reasons = [r for r in results if "seat-curator cap guard: blocked" in r]
    assert reasons and f"mcp__{SERVER}__fit" in reasons[0], results


def test_real_claude_code_cuts_an_index_with_frontmatter_and_comments_where_the_profile_says(tmp_path):
    cli_or_skip("claude-code")
    seat = born_seat(tmp_path, CLAUDE)
    head = "---\nname: index\ndescription: the hot index\n---\n\n<!-- fleet note,\nover two lines -->\n\n"
    body = "".join(f"- entry {n:03d}: " + "lesson " * 12 + "\n" for n in range(1, 241))
    raw = (head + "# Memory\n" + body).encode()
    (seat.memory_dir / "MEMORY.md").write_bytes(raw)
    expected = simulate(parse_index(raw), None, "claude-code")
    with StubModel() as stub:
        turn = claude_turn(seat, tmp_path, stub, "canary: boot")
        sent = json.dumps(stub.requests)
    assert turn["exit_code"] == 0, turn["output_tail"]
    assert expected.warning and json.dumps(expected.warning)[1:-1] in sent
    assert "name: index" not in sent and "fleet note" not in sent  # stripped before it loads


def test_kimi_code_loads_the_seats_own_mcp_json_and_skips_the_repos(tmp_path):
    """Why the fleet wires kimi-code's servers in $KIMI_CODE_HOME/mcp.json: kimi-code 2.1.0 skips a
    project-level .kimi-code/mcp.json in a folder it does not trust."""
    cli = cli_or_skip("kimi-code")
    seat = born_seat(tmp_path, KIMI)
    entry = json.loads((seat.instance_home / "mcp.json").read_text())  # only the curator server is wired
    offered = {}
    for where in ("seat", "repo"):
        with StubModel() as stub:
            box = prepare_kimi(seat, tmp_path / f"box-{where}", stub.base_url)  # (the canary's copy leaves mcp.json out)
            target = box.env["KIMI_CODE_HOME"] + "/mcp.json" if where == "seat" else str(seat.repo / ".kimi-code/mcp.json")
            Path(target).parent.mkdir(exist_ok=True)
            Path(target).write_text(json.dumps(entry))
            turn = run_turn(list(cli.argv) + ["-p", "canary: list tools"], box, TIMEOUT)
            assert turn["exit_code"] == 0, turn["output_tail"]
            offered[where] = {tool.get("function", {}).get("name") for body in stub.requests
                              for tool in body.get("tools") or []}
            Path(target).unlink()
    assert {f"mcp__{SERVER}__{name}" for name in ("view", "str_replace", "fit", "archive")} <= offered["seat"]
    assert not any(name and name.startswith("mcp__") for name in offered["repo"])
