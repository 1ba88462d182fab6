"""The levers as MCP tools over stdio: answers name entries by id, line and title; writes go through
the seat store (undo works) and end with the meter line; the merge takes the agent's own line."""

from __future__ import annotations

import re

from curator.index_model import parse_index
from tests.support.mcp import seat, serve

INDEX = (
    "# Seat memory index\n"
    "\n"
    "## Craft hooks\n"
    "- [Deploy notes](deploy.md) — deploy with `make ship`; never on Fridays.\n"
    "- Always deploy with `make ship`, never on Fridays; ask ops first (see #4412).\n"
    "- [Tests](tests.md) — run pytest with -q before pushing; the suite takes two minutes on CI and "
    "fails fast on the first error, so read the first traceback, not the last one.\n"
    "- 2024-01-05 the staging database moved to db2; old dumps stay on db1 for a month.\n"
)


def ids(memory) -> list[str]:
    return [e.id for e in parse_index((memory / "MEMORY.md").read_bytes()).entries]


async def test_check_and_candidates_name_entries_by_id_line_and_title(tmp_path):
    memory, state = seat(tmp_path, index=INDEX, **{"deploy.md": "# Deploy\n", "tests.md": "# Tests\n"})
    deploy, always, tests, _ = ids(memory)
    async with serve(memory, state) as call:
        error, text = await call("check")
        assert not error
        lines = text.split("\n")
        assert lines[0].startswith(f"meter: MEMORY.md {len(INDEX.encode()):,} B, 7 lines, under target")
        assert "pointer problems: 1" in lines  # alpha.md, which the seat helper writes, is linked from nowhere
        assert f'{tests} (line 6) "Tests"' in text
        error, text = await call("candidates")
        assert f'{deploy} (line 4) "Deploy notes", {always} (line 5) "Always deploy with `make ship`' in text


async def test_merge_with_the_agents_own_line_then_undo(tmp_path):
    memory, state = seat(tmp_path, index=INDEX, **{"deploy.md": "# Deploy\n", "tests.md": "# Tests\n"})
    deploy, always, _, _ = ids(memory)
    mine = "- [Deploy notes](deploy.md) — `make ship`, never on Fridays; ask ops first (#4412)."
    async with serve(memory, state) as call:
        error, text = await call("merge", ids=[deploy, always], text=mine)
        assert not error, text
        lines = text.split("\n")
        assert lines[0].startswith("applied: ")
        assert lines[1].startswith(f'entries: {deploy} (line 4) "Deploy notes", {always} (line 5) "Always deploy with')
        assert re.match(r"meter: MEMORY\.md ", lines[-1])
        assert mine + "\n" in (memory / "MEMORY.md").read_text()
        error, text = await call("undo")
        assert not error
        assert (memory / "MEMORY.md").read_text() == INDEX


async def test_archive_search_restore_round_trip(tmp_path):
    memory, state = seat(tmp_path, index=INDEX, **{"deploy.md": "# Deploy\n", "tests.md": "# Tests\n"})
    dated = ids(memory)[3]
    async with serve(memory, state) as call:
        error, text = await call("archive", ids=[dated])
        assert not error, text
        assert f'entries: {dated} (line 7) "2024-01-05 the staging database moved to db2; old dumps' in text
        assert "db2" not in (memory / "MEMORY.md").read_text() and "db2" in (memory / "ARCHIVE.md").read_text()
        error, text = await call("archive_search", query="staging database")
        hit = re.search(r"^(\S+) \(ARCHIVE\.md line (\d+)\) \"", text, re.M)
        assert hit, text
        error, text = await call("restore", id=hit.group(1))
        assert not error, text
        assert "db2" in (memory / "MEMORY.md").read_text()


async def test_fit_plans_then_applies_the_steps_the_agent_keeps(tmp_path):
    memory, state = seat(tmp_path, index=INDEX, **{"deploy.md": "# Deploy\n", "tests.md": "# Tests\n"})
    async with serve(memory, state, "--target", "200", "--read-limit", "1000") as call:
        error, plan = await call("fit")
        assert not error
        steps = re.findall(r"^\[x\] step (\d+) (\w+), saves [\d,]+ B, line ([\d–-]+): (\S+) \(line \d+\)", plan, re.M)
        assert steps, plan
        assert plan.split("\n")[-1].startswith("apply with fit(apply=true, keep=[")
        keep = int(steps[0][0])
        assert await call("fit", apply=True, keep=[99]) == (
            True, f"Error: no step 99 in the plan (it has {len(steps)} steps); nothing was written")
        before = (memory / "MEMORY.md").read_bytes()
        error, text = await call("fit", apply=True, keep=[keep])
        assert not error, text
        assert re.search(rf"^\[x\] step {keep} ", text, re.M)
        assert all(not re.search(rf"^\[x\] step {n} ", text, re.M) for n, *_ in steps if int(n) != keep)
        assert "applied: " in text and (memory / "MEMORY.md").read_bytes() != before
        await call("undo")
        assert (memory / "MEMORY.md").read_bytes() == before


async def test_fit_names_the_questions_with_their_evidence_and_writes_none(tmp_path):
    index = INDEX + "- The queue moved to the new broker — done\n"
    memory, state = seat(tmp_path, index=index, **{"deploy.md": "# Deploy\n", "tests.md": "# Tests\n"})
    async with serve(memory, state) as call:
        error, text = await call("fit", apply=True)
        assert not error, text
        assert "question: archive this entry that looks finished?" in text
        assert "line 8: done (a clause opens with it) in «- The queue moved to the new broker — done»" in text
        assert "nothing to apply" in text and (memory / "MEMORY.md").read_text() == index


async def test_trim_suggests_and_applies_one(tmp_path):
    memory, state = seat(tmp_path, index=INDEX, **{"deploy.md": "# Deploy\n", "tests.md": "# Tests\n"})
    tests = ids(memory)[2]
    async with serve(memory, state) as call:
        error, text = await call("trim", apply_id=tests)
        assert not error, text
        assert text.startswith("applied: ") and f'{tests} (line 6) "Tests"' in text
        assert len((memory / "MEMORY.md").read_bytes()) < len(INDEX.encode())
        assert await call("trim", apply_id="nope") == (True, "Error: no entry with id nope in MEMORY.md")


async def test_fold_lists_facets_plans_and_applies_a_section(tmp_path):
    index = INDEX + "\n## Releases\n- tag releases from main only\n- write the changelog before the tag\n"
    memory, state = seat(tmp_path, index=index, **{"deploy.md": "# Deploy\n", "tests.md": "# Tests\n"})
    async with serve(memory, state) as call:
        error, text = await call("fold")
        assert not error and "section 'Releases': 2 entries" in text
        error, plan = await call("fold", section="Releases")
        assert not error and plan.startswith("plan: ") and "MEMORY.md keeps: - [Releases](" in plan
        assert (memory / "MEMORY.md").read_text() == index  # a plan writes nothing
        error, text = await call("fold", section="Releases", apply=True)
        assert not error, text
        after = (memory / "MEMORY.md").read_text()
        assert "- tag releases from main only\n" not in after and "- [Releases](folded-releases.md)" in after
        assert "- tag releases from main only\n" in (memory / "folded-releases.md").read_text()
        await call("undo")
        assert (memory / "MEMORY.md").read_text() == index
