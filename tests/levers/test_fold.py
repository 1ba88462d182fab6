"""Fold: a facet moves verbatim into one detail file; MEMORY.md keeps one line naming it; undo is exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.cli import main
from curator.errors import InputError
from curator.index_model import parse_index
from curator.levers.fold import entry_title, facets, fold_line, plan_fold
from curator.pointers import check_pointers
from curator.store import SeatStore

INDEX = (
    "# Seat memory index\n"
    "\n"
    "> Hot index — always loaded.\n"
    "\n"
    "## Identity & seat\n"
    "\n"
    "- [Identity](identity.md) — who this seat is.\n"
    "\n"
    "## Weak-spots\n"
    "\n"
    "- Merging before the tests ran → counter: run them first.\n"
    "\n"
    "## Craft hooks\n"
    "\n"
    "- [Profiling](craft.md#profiling) — profile before optimising; see [tables](#tables).\n"
    "- Use `rg`, not grep — it is faster (2x) on the monorepo.\n"
    "\n"
    "### Tables\n"
    "\n"
    "- Rows stay rows when a table moves.\n"
    "\n"
    "## Projects\n"
    "\n"
    "- [Wee setup](project_wee-setup.md) — set up wee with `make init`.\n"
    "- [Wee deploy](project_wee-deploy.md) — deploy wee on Tuesdays only.\n"
    "- [Other](project_other.md) — another project; back to [craft](#craft-hooks).\n"
)


@pytest.fixture
def seat(tmp_path: Path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(INDEX, encoding="utf-8")
    (memory / "craft.md").write_text("# Craft\n\n## Profiling\n\nFlame graphs.\n", encoding="utf-8")
    for name in ("identity", "project_wee-setup", "project_wee-deploy", "project_other"):
        (memory / f"{name}.md").write_text(f"# {name}\n", encoding="utf-8")
    return memory, SeatStore.open(memory, state_dir=tmp_path / "state")


def _index(memory: Path):
    return parse_index((memory / "MEMORY.md").read_bytes())


def test_a_section_folds_verbatim_and_one_line_names_it(seat):
    memory, store = seat
    change = plan_fold(memory, _index(memory), section="Craft hooks")
    (name,) = [n for n in change.names if n != "MEMORY.md"]
    assert name == "folded-craft-hooks.md"
    index_after = change.files["MEMORY.md"].decode()
    detail = change.files[name].decode()
    # Every moved line is in the fold file as written, but the anchor of a heading that moved too.
    assert "- Use `rg`, not grep — it is faster (2x) on the monorepo.\n" in detail
    assert "- Rows stay rows when a table moves.\n" in detail and "### Tables\n" in detail
    assert "- [Profiling](craft.md#profiling) — profile before optimising; see [tables](#tables).\n" in detail
    assert "Use `rg`" not in index_after and "### Tables" not in index_after
    # One line that links it, names the facet, counts and titles what it holds; the heading stays.
    assert ("## Craft hooks\n\n- [Craft hooks](folded-craft-hooks.md) — 3 entries: Profiling; Use rg, not grep; "
            "Rows stay rows when a table moves\n\n## Projects") in index_after
    assert change.kind == "fold" and change.bytes_saved > 0
    report = check_pointers(memory, overrides=change.files)
    assert report.problem_count == 0 and "craft.md" not in report.orphans


def test_fold_then_undo_gives_back_every_byte(seat):
    memory, store = seat
    before = {p.name: p.read_bytes() for p in memory.iterdir()}
    store.apply(plan_fold(memory, _index(memory), section="Craft hooks"))
    assert (memory / "folded-craft-hooks.md").exists()
    store.undo()
    assert {p.name: p.read_bytes() for p in memory.iterdir()} == before


def test_a_link_to_a_heading_that_moved_follows_it(seat):
    memory, _store = seat
    text = INDEX.replace("another project; back to [craft](#craft-hooks)", "another project; see [tables](#tables)")
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")
    change = plan_fold(memory, _index(memory), section="Craft hooks")
    assert "see [tables](folded-craft-hooks.md#tables)" in change.files["MEMORY.md"].decode()
    assert check_pointers(memory, overrides=change.files).problem_count == 0


@pytest.mark.parametrize("section", ["Identity & seat", "Weak-spots", "Seat memory index"])
def test_identity_weak_spots_and_the_header_never_fold(seat, section):
    memory, _store = seat
    with pytest.raises(InputError, match="never folded"):
        plan_fold(memory, _index(memory), section=section)


def test_entries_sharing_a_link_prefix_are_a_facet_and_fold_by_id(seat):
    memory, store = seat
    index = _index(memory)
    found = {f.name: f for f in facets(index)}
    assert "project_wee-*" in found and len(found["project_wee-*"].entry_ids) == 2
    assert not any(f.name in ("Identity & seat", "Weak-spots", "Seat memory index") for f in found.values())
    change = found["project_wee-*"].plan(memory, index)
    after = change.files["MEMORY.md"].decode()
    assert "- [`project_wee-*`](folded-project-wee.md) — 2 entries: Wee setup; Wee deploy\n- [Other]" in after
    detail = change.files["folded-project-wee.md"].decode()
    assert "- [Wee deploy](project_wee-deploy.md) — deploy wee on Tuesdays only.\n" in detail
    report = check_pointers(memory, overrides=change.files)
    assert report.problem_count == 0  # project_wee-*.md stay reachable through the fold file
    store.apply(change)
    assert not check_pointers(memory).orphans


def test_the_fold_line_keeps_titles_only_while_they_fit():
    long = "".join(f"- [Entry number {n} with a long title](e{n}.md) — x.\n" for n in range(40))
    entries = list(parse_index(("## S\n" + long).encode()).entries)
    line = fold_line("S", "folded-s.md", entries)
    assert line.startswith("[S](folded-s.md) — 40 entries: Entry number 0 with a long title; ")
    assert line.endswith(" more") and len(line.encode()) <= 320


@pytest.mark.parametrize("links", [
    ["link", "link", "link"],  # every link text the same generic word
    ["here", "details", "see"],  # generic words, each different
    ["Notes", "Notes", "Notes"],  # all alike: the titles would not tell the entries apart
])
def test_the_fold_line_names_entries_by_their_hook_when_link_texts_say_nothing(links):
    hooks = ["`spt` is a sibling dual-repo", "Staging: the workers.dev URL", "[Deploy] staging is the only target"]
    text = "## References\n" + "".join(f"- [{t}](r{n}.md) — {h}; more words.\n" for n, (t, h) in enumerate(zip(links, hooks)))
    entries = list(parse_index(text.encode()).entries)
    line = fold_line("References", "folded-references.md", entries)
    assert line == ("[References](folded-references.md) — 3 entries: spt is a sibling dual-repo; Staging; "
                    "[Deploy] staging is the only target")


def test_the_fold_line_tells_apart_entries_that_share_a_title():
    text = "## Log\n- `web_hmi`: ROS state from any topic\n- `web_hmi`: rename to IONIQ EV\n- `hmi_state.py`: gear map\n"
    line = fold_line("Log", "folded-log.md", list(parse_index(text.encode()).entries))
    assert line == "[Log](folded-log.md) — 3 entries: ROS state from any topic; rename to IONIQ EV; hmi_state.py"


def test_the_fold_line_keeps_link_titles_that_name_their_entries():
    text = "## S\n- [Deploy](d.md) — ship clean.\n- [link](l.md) — the one generic link here.\n- [Tests](t.md) — run all.\n"
    line = fold_line("S", "folded-s.md", list(parse_index(text.encode()).entries))
    assert line == "[S](folded-s.md) — 3 entries: Deploy; the one generic link here; Tests"


def test_cjk_titles_cut_at_a_clause_mark():
    entry = parse_index("- 部署前先跑测试。否则会出错\n".encode()).entries[0]
    assert entry_title(entry) == "部署前先跑测试"


def test_cli_plans_by_default_and_applies_with_apply(seat, capsys, tmp_path):
    memory, _store = seat
    state = ["--state-dir", str(tmp_path / "state")]
    assert main(["fold", str(memory), "Craft", "hooks", *state, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["plan"]["kind"] == "fold" and data["line"].startswith("- [Craft hooks](folded-craft-hooks.md)")
    assert (memory / "MEMORY.md").read_text() == INDEX and not (memory / "folded-craft-hooks.md").exists()
    assert main(["fold", str(memory), "Craft hooks", *state, "--apply"]) == 0
    assert (memory / "folded-craft-hooks.md").exists()
    assert main(["undo", str(memory), *state]) == 0
    assert (memory / "MEMORY.md").read_text() == INDEX and not (memory / "folded-craft-hooks.md").exists()


def test_cli_refuses_in_one_line_leaving_files(seat, capsys, tmp_path):
    memory, _store = seat
    assert main(["fold", str(memory), "Weak-spots", "--state-dir", str(tmp_path / "s")]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "never folded" in err
    assert (memory / "MEMORY.md").read_text() == INDEX


@pytest.mark.parametrize("heading", ["Weak spots", "약점", "弱点", "Слабые места"])
def test_weak_spots_in_any_language_never_fold(tmp_path, heading):
    (tmp_path / "MEMORY.md").write_text(f"# Index\n\n## {heading}\n\n- one → counter: a\n- two → counter: b\n",
                                        encoding="utf-8")
    index = parse_index((tmp_path / "MEMORY.md").read_bytes())
    assert not facets(index)
    with pytest.raises(InputError, match="never folded"):
        plan_fold(tmp_path, index, section=heading)
