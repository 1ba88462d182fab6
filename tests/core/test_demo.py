"""The demo fleet: four seats in the states the README promises, built by the real generators."""

from __future__ import annotations

import json
import re

import pytest

from curator.analysis import analyze
from curator.cli import main
from curator.demo import CLAUDE_SEAT, DIVERGENT_SEAT, EXAMPLE_SEATS, GROWN, HEALTHY, build_demo, example_memory
from curator.errors import InputError
from curator.meter import claude_code_budget
from generators.manifest import load_manifest


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return build_demo(tmp_path_factory.mktemp("demo") / "fleet")


def statuses(demo, agent_id):
    plan = next(p for p in demo.plans if p.agent_id == agent_id)
    return {art.path.name: art.status for art in plan.artifacts}


def test_every_seat_has_its_repo_so_the_canary_can_run_there(demo):
    fleet = load_manifest(demo.fleet_path)
    assert fleet.residents and all(resident.repo.is_dir() for resident in fleet.residents)


def test_healthy_seat_is_all_match_and_under_target(demo):
    assert set(statuses(demo, HEALTHY).values()) == {"MATCH"}
    assert len(statuses(demo, HEALTHY)) == 8
    analysis = analyze(demo.memory_dir(HEALTHY))
    assert analysis.meter.zone == "ok"
    assert analysis.pointers.problem_count == 0


def test_grown_seat_is_over_target_with_every_problem_the_demo_shows(demo):
    assert set(statuses(demo, GROWN).values()) == {"MATCH"}
    memory = demo.memory_dir(GROWN)
    analysis = analyze(memory)
    assert analysis.meter.zone == "over-target"
    assert analysis.meter.bytes == (memory / "MEMORY.md").stat().st_size
    dangling = {d.target for d in analysis.pointers.dangling}
    assert "test-matrix.md#flaky-suite" in dangling  # a missing file
    assert "craft.md#profiling" in dangling  # a missing heading
    assert analysis.pointers.orphans == ["old-shard-notes.md"]


@pytest.mark.parametrize("agent_id", [GROWN, CLAUDE_SEAT])
def test_bearer_files_are_the_bundled_examples_byte_for_byte(demo, agent_id):
    memory = demo.memory_dir(agent_id)
    bundled = example_memory(EXAMPLE_SEATS[agent_id])
    assert sorted(p.name for p in memory.iterdir()) == sorted(bundled)
    for name, content in bundled.items():
        assert (memory / name).read_bytes() == content
        assert (memory / name).stat().st_mode & 0o777 == 0o600


def test_claude_seat_is_all_match_and_its_settings_name_its_memory(demo):
    got = statuses(demo, CLAUDE_SEAT)
    assert set(got.values()) == {"MATCH"}
    assert {"settings.json", ".mcp.json", "identity_anchor_hook.py", "MEMORY.md"} <= set(got)
    plan = next(p for p in demo.plans if p.agent_id == CLAUDE_SEAT)
    settings = json.loads((plan.instance_home / "settings.json").read_text(encoding="utf-8"))
    assert settings["autoMemoryDirectory"] == str(demo.memory_dir(CLAUDE_SEAT))


def test_claude_seat_is_over_the_byte_target_yet_claude_code_loads_it_whole(demo):
    memory = demo.memory_dir(CLAUDE_SEAT)
    raw = (memory / "MEMORY.md").read_bytes()
    analysis = analyze(memory)
    assert analysis.meter.zone == "over-target" and analysis.meter.bytes == len(raw)
    budget = claude_code_budget(raw)
    assert not budget.over
    assert budget.chars < analysis.limits.target < len(raw)  # the two counts disagree, both honestly
    load = analysis.loads["claude-code"]
    assert load.cut_line is None and load.warning is None
    assert load.lost_entries == () and load.loaded_bytes == len(raw)
    assert analysis.pointers.problem_count == 0


def test_claude_seat_detail_files_link_by_name_and_one_names_a_memory_not_written_yet(demo):
    memory = demo.memory_dir(CLAUDE_SEAT)
    names, wikilinks = set(), set()
    for path in memory.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        front = re.match(r"---\n(.*?)\n---\n", text, re.S)
        if front:  # Claude Code's own memory file: name, description, metadata.type
            fields = dict(re.findall(r"^(name|description): (.+)$", front.group(1), re.M))
            assert fields["name"] == path.stem and fields["description"]
            assert re.search(r"^metadata:\n  type: (user|feedback|project|reference)$", front.group(1), re.M)
            names.add(fields["name"])
        wikilinks.update(re.findall(r"\[\[([^\]]+)\]\]", text))
    assert len(names) >= 4
    assert wikilinks - names == {"schema-registry-migration"}
    assert len(wikilinks & names) >= 3


def test_divergent_seat_names_its_config_and_hook(demo):
    got = statuses(demo, DIVERGENT_SEAT)
    assert got["config.toml"] == "DIVERGENT"
    assert got["identity_anchor_hook.py"] == "DIVERGENT"
    assert [s for s in got.values() if s == "DIVERGENT"] == ["DIVERGENT", "DIVERGENT"]


def test_reopening_an_existing_demo_changes_nothing(demo):
    before = {p: p.read_bytes() for p in demo.root.rglob("*") if p.is_file()}
    again = build_demo(demo.root)
    assert again.reused
    assert {p: p.read_bytes() for p in demo.root.rglob("*") if p.is_file()} == before


def test_a_non_empty_unrelated_dir_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not an empty directory"):
        build_demo(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_demo_no_tui_prints_paths_and_exits_zero(tmp_path, capsys):
    assert main(["demo", "--dir", str(tmp_path / "d"), "--no-tui"]) == 0
    out = capsys.readouterr().out
    assert "Built the demo fleet" in out
    assert "@neo-kimi-kestrel (kimi-code): 2 DIVERGENT, 6 MATCH" in out
    assert "@neo-claude-vega (claude-code): 8 MATCH" in out
    assert (tmp_path / "d" / "fleet.toml").is_file()


def test_without_dir_one_per_user_demo_is_reused_and_says_how_to_remove_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert main(["demo", "--no-tui"]) == 0
    out = capsys.readouterr().out
    root = tmp_path / "home" / ".local" / "share" / "seat-curator" / "demo"
    assert out.startswith(f"Built the demo fleet in {root}\n")
    assert f"remove it with `rm -r {root}`" in out and "demo --fresh" in out
    assert main(["demo", "--no-tui"]) == 0  # the second run reopens the same one: no new directory
    assert capsys.readouterr().out.startswith(f"Reopened the demo fleet in {root}\n")
    assert sorted(p.name for p in root.parent.iterdir()) == ["demo"]


def test_fresh_rebuilds_a_demo_and_refuses_anything_else(tmp_path, capsys):
    root = tmp_path / "d"
    first = build_demo(root)
    memory = first.memory_dir(GROWN) / "MEMORY.md"
    memory.write_bytes(b"# edited in the demo\n")
    assert main(["demo", "--no-tui", "--fresh", "--dir", str(root)]) == 0
    assert capsys.readouterr().out.startswith("Built the demo fleet")
    assert memory.read_bytes() == example_memory("wren")["MEMORY.md"]

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "fleet.toml").write_text("instance_root = 'seats'\n")
    assert main(["demo", "--no-tui", "--fresh", "--dir", str(mine)]) == 1
    assert "is not a demo this command built" in capsys.readouterr().err
    assert (mine / "fleet.toml").read_text() == "instance_root = 'seats'\n"


def test_every_harness_has_a_seat_and_the_gemini_bearers_bare_at_word_is_a_caution(demo):
    from curator.demo import CODEX_SEAT, GEMINI_SEAT
    from generators.manifest import HARNESSES
    assert sorted({p.harness for p in demo.plans}) == sorted(HARNESSES)
    assert set(statuses(demo, CODEX_SEAT).values()) == {"MATCH"}
    assert set(statuses(demo, GEMINI_SEAT).values()) == {"MATCH"}  # identity.md is the bearer's
    load = analyze(demo.memory_dir(GEMINI_SEAT)).loads["gemini-cli"]
    assert load.cautions and "`@neo-codex-orion`" in load.cautions[0] and "identity.md" in load.cautions[0]
