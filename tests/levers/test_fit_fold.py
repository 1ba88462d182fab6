"""Fit reaches the target by folding facets, asks (never archives) about what only looks finished, is
not stopped by dangling links already there, and asks (never splits) about CJK entries' lessons."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from curator.cli import main
from curator.index_model import parse_index
from curator.levers.finished import finished_evidence
from curator.levers.fit import plan_fit
from curator.levers.fit_checks import broken_lines, unkept_clauses, well_formed
from curator.levers.fold import facets as fold_facets
from curator.levers.standing import standing_rule
from curator.pointers import check_pointers
from curator.store import SeatStore

DAY = date(2026, 12, 1)
PAD = "keeps the lesson in one line and the story in the linked file, verbatim, every time"


def _seat(tmp_path: Path, index: str, files: dict[str, str]) -> tuple[Path, SeatStore]:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(index, encoding="utf-8")
    for name, text in files.items():
        (memory / name).write_text(text, encoding="utf-8")
    return memory, SeatStore.open(memory, state_dir=tmp_path / "state")


def _all(memory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(memory.iterdir())}


def _flat_claude_index() -> tuple[str, dict[str, str]]:
    """A Claude Code auto-memory index: one title, every entry a link to a typed memory file."""
    lines, files = ["# Memory Index", ""], {}
    for kind, count in (("project_wee", 30), ("feedback", 25), ("user", 6)):
        for n in range(count):
            name = f"{kind}-{n:02}.md" if kind == "project_wee" else f"{kind}_{n:02}.md"
            lines.append(f"- [{kind} note {n}]({name}) — {PAD} ({n})")
            files[name] = f"---\nname: {kind} note {n}\n---\n\nDetail {n}.\n"
    return "\n".join(lines) + "\n", files


def test_fit_reaches_the_target_on_a_flat_index_by_folding_link_prefixes(tmp_path):
    index, files = _flat_claude_index()
    memory, store = _seat(tmp_path, index, files)
    before = _all(memory)
    raw = store.read("MEMORY.md")
    target = len(raw) // 2
    plan = plan_fit(memory, parse_index(raw), target=target, today=DAY)
    assert plan.reached and plan.counts["fold"] >= 1 and {s.kind for s in plan.steps} == {"fold"}
    assert plan.problems_after <= plan.problems_before == 0
    new_index = plan.change.files["MEMORY.md"].decode()
    fold_lines = [line for line in new_index.splitlines() if "](folded-" in line]
    assert fold_lines and all(" entries: " in line for line in fold_lines)
    assert unkept_clauses(raw, dict(plan.change.files)) == []
    store.apply(plan.change)
    assert not check_pointers(memory).orphans  # every moved link's file is reached through its fold file
    store.undo()
    assert _all(memory) == before


def test_finished_entries_become_a_question_never_an_archive_step(tmp_path, capsys):
    done = [f"- Migrated service {n} to the new queue — done" for n in range(8)]
    notes = [f"- Note {n}: {PAD}." for n in range(20)]
    index = ("# Index\n\nWhat left the index: [ARCHIVE.md](ARCHIVE.md).\n\n## Lane anchors\n" + "\n".join(done)
             + "\n\n## Craft notes\n" + "\n".join(notes) + "\n")
    memory, store = _seat(tmp_path, index, {})
    raw = store.read("MEMORY.md")
    plan = plan_fit(memory, parse_index(raw), target=len(raw) - 1500, today=DAY)
    assert [s.kind for s in plan.steps] == ["fold"] and plan.reached  # the notes fold; nothing archived
    assert plan.change is not None and "ARCHIVE.md" not in plan.change.files
    (question,) = plan.questions
    assert question.question.startswith("archive these 8 entries that look finished?")
    assert set(question.evidence) == {"done"} and len(question.lines) == 8
    assert set(question.where) == {"a clause opens with it"}
    assert question.texts[0] == "- Migrated service 0 to the new queue — done"
    assert main(["fit", str(memory), "--target", str(len(raw) - 1500), "--json",
                 "--state-dir", str(tmp_path / "state")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["questions"][0]["question"] == question.question and data["questions"][0]["kind"] == "archive"
    assert data["questions"][0]["evidence"][0] == {"line": question.lines[0], "mark": "done",
                                                   "where": "a clause opens with it", "text": question.texts[0]}
    assert main(["fit", str(memory), "--target", str(len(raw) - 1500), "--state-dir", str(tmp_path / "state")]) == 0
    out = capsys.readouterr().out
    assert f"line {question.lines[0]}: done (a clause opens with it) in «- Migrated service 0" in out


def test_dangling_links_already_there_do_not_stop_steps(tmp_path):
    notes = [f"- [Note {n}](gone-{n}.md) — {PAD}." for n in range(2)]  # their files were deleted long ago
    notes += [f"- Note {n}: {PAD}." for n in range(2, 30)]
    done = ["- [Old exporter](gone-x.md) — superseded by the v2 exporter"]
    index = ("# Index\n\nWhat left the index: [ARCHIVE.md](ARCHIVE.md).\n\n## Craft notes\n" + "\n".join(notes)
             + "\n\n## Lane anchors\n" + "\n".join(done) + "\n")
    memory, store = _seat(tmp_path, index, {})
    raw = store.read("MEMORY.md")
    plan = plan_fit(memory, parse_index(raw), target=len(raw) - 1500, today=DAY)
    # Three links to deleted files, and the link to an ARCHIVE.md not written yet: the fold moves two of
    # them verbatim (still dangling, none added), and nothing is archived.
    assert plan.problems_before == 4 and plan.problems_after == 4
    assert {s.kind for s in plan.steps} == {"fold"} and plan.reached
    assert [q.evidence for q in plan.questions] == [("superseded",)]


def test_a_chinese_index_gets_split_questions_never_split_steps(tmp_path):
    story = "原因是缓存没有清理，排查花了三个小时，最后在日志里找到了线索，" * 3
    entries = [f"- [部署{n}](deploy-{n}.md) 第{n}次部署失败了。{story}后来改了流程。" for n in range(12)]
    files = {f"deploy-{n}.md": f"# 部署{n}\n\n细节。\n" for n in range(12)}
    notes = [f"- 笔记{n}：发布前先看一眼仪表盘，确认队列是空的，再动手。{n}" for n in range(28)]
    index = "# 记忆索引\n\n## 经验\n" + "\n".join(entries) + "\n\n## 笔记\n" + "\n".join(notes) + "\n"
    memory, store = _seat(tmp_path, index, files)
    raw = store.read("MEMORY.md")
    plan = plan_fit(memory, parse_index(raw), target=len(raw) - 2000, today=DAY)
    assert plan.counts["trim"] == 0 and plan.reached  # which clause is the lesson is the bearer's call
    assert [s.kind for s in plan.steps] == ["fold"] and "笔记" in plan.steps[0].reason
    assert not any(name.startswith("deploy-") for name in plan.change.files)  # no story moved on its own
    (split,) = [q for q in plan.questions if q.kind == "split"]
    assert len(split.lines) >= 3
    assert split.evidence[0].startswith("keeps «[部署0](deploy-0.md) 第0次部署失败了。") and "into deploy-0.md" in split.evidence[0]
    assert unkept_clauses(raw, dict(plan.change.files)) == []


def _history_index() -> str:
    """A working history (one big section, three dated sub-sections of different sizes) and a few notes."""
    parts = ["# Index", "", "## Notes", *(f"- Note {n}: {PAD}." for n in range(3)), "", "## Work history"]
    for day, count in (("2026-05-08", 30), ("2026-05-09", 12), ("2026-05-10", 8)):
        parts += ["", f"### {day}", *(f"- {day} item {n}: {PAD}." for n in range(count))]
    return "\n".join(parts) + "\n"


def test_fit_folds_as_little_as_reaches_the_target_not_a_whole_history(tmp_path):
    memory, store = _seat(tmp_path, _history_index(), {})
    raw = store.read("MEMORY.md")
    index = parse_index(raw)
    (mid,) = [f for f in fold_facets(index) if f.name == "2026-05-09"]
    plan = plan_fit(memory, index, target=len(raw) - mid.nbytes, today=DAY)
    # No day alone but the 30-entry one reaches the target; the 12- and the 8-entry days together do,
    # moving half as much: those two fold, the largest first, and fit stops once under.
    assert [s.reason.split(":")[0] for s in plan.steps] == ["section '2026-05-09'", "section '2026-05-10'"]
    assert plan.reached and plan.before - plan.after < 2 * mid.nbytes
    assert "2026-05-08 item 0" in plan.change.files["MEMORY.md"].decode()
    # When one facet alone reaches with less than any set of smaller ones, it alone folds.
    (small,) = [f for f in fold_facets(index) if f.name == "2026-05-10"]
    one = plan_fit(memory, index, target=len(raw) - small.nbytes // 2, today=DAY)
    assert [s.reason.split(":")[0] for s in one.steps] == ["section '2026-05-10'"] and one.reached
    assert unkept_clauses(raw, dict(plan.change.files)) == []


def test_fit_never_folds_away_an_entry_that_states_a_standing_rule(tmp_path):
    refs = [f"- [link](ref_{n}.md) — reference {n}: {PAD}." for n in range(6)]
    refs.insert(3, "- [link](ref_deploy.md) — [Deploy] staging is the ONLY deploy target; NEVER `deploy:prod`.")
    files = {f"ref_{n}.md": f"# Ref {n}\n" for n in range(6)} | {"ref_deploy.md": "# Deploy\n"}
    index = "# Index\n\n## References\n" + "\n".join(refs) + "\n\n## Hard rules\n" + "\n".join(
        f"- Rule {n}: {PAD}." for n in range(12)) + "\n"
    memory, store = _seat(tmp_path, index, files)
    raw = store.read("MEMORY.md")
    plan = plan_fit(memory, parse_index(raw), target=len(raw) - 400, today=DAY)
    (step,) = plan.steps
    assert step.kind == "fold" and len(step.entry_ids) == 6 and plan.reached
    assert "standing rules stay in the index (line 7: NEVER)" in step.reason
    new_index = plan.change.files["MEMORY.md"].decode()
    assert "NEVER `deploy:prod`" in new_index  # the rule stays hot, where it stood
    assert "- Rule 0:" in new_index  # a section headed as rules never folds under fit
    (folded,) = [line for line in new_index.splitlines() if "](folded-references" in line]
    assert "link; link" not in folded and "reference 0" in folded  # the hooks name the entries
    assert unkept_clauses(raw, dict(plan.change.files)) == []
    store.apply(plan.change)
    assert not check_pointers(memory).orphans


@pytest.mark.parametrize(("text", "word"), [
    ("- staging is the ONLY target; NEVER `deploy:prod`", "NEVER"),
    ("- ALWAYS run the linter first", "ALWAYS"),
    ("- You MUST NOT push on Fridays", "MUST NOT"),
    ("- DO NOT port-kill :4321", "DO NOT"),
    ("- 운영 서버에 직접 배포 금지", "금지"),
    ("- 절대 main에 직접 푸시하지 말 것", "절대"),
    ("- 上线前必须跑全部测试", "必须"),
    ("- 本番への直接デプロイは禁止", "禁止"),
    ("- НИКОГДА не трогать прод", "НИКОГДА"),
    ("- never mind the cache, it warms itself", ""),  # lower case prose is no rule mark
    ("- the Mustang build, Neverland tests", ""),  # inside a word
])
def test_standing_rule_words_by_language(text, word):
    assert standing_rule(text) == word


def test_a_rules_heading_makes_its_entries_standing_rules():
    assert standing_rule("- keep the lane green", "Hard rules (they bit)") == "under 'Hard rules (they bit)'"
    assert standing_rule("- keep the lane green", "규칙") == "under '규칙'"
    assert standing_rule("- keep the lane green", "Rulers and scales") == ""


@pytest.mark.parametrize(("old", "new", "ok"), [
    ("- a  b in order to c", "- a b to c", True),
    ("- [x](x.md) — head → lesson", "→ lesson", False),  # the marker and the head are gone
    ("- head, then the rest", "- , then the rest", False),  # starts with a piece of a sentence
    ("- one\n  two", "- one two", False),  # a line lost
])
def test_a_rewritten_entry_must_keep_its_shape(old, new, ok):
    assert well_formed(old, new) == ok


@pytest.mark.parametrize(("text", "heading", "evidence"), [
    ("- [⛔ RESOLVED / benign](topic.md) — fixed at source", "", ("fixed", "a clause opens with it")),
    ("- Estate storm = CircleCI outage, #279 DONE; a rerun fakes recovery", "", ("DONE", "in capitals")),
    ("- Migrated the queue — done", "", ("done", "a clause opens with it")),
    ("- [x] shipped the export", "", ("[x]", "a ticked box opens it")),
    ("- the export", "Done", ("under 'Done'", "the section's heading")),
    ("- never mark a ticket done without tests", "", ("", "")),
])
def test_finished_evidence_says_the_word_and_where_it_stands(text, heading, evidence):
    assert finished_evidence(text, heading) == evidence


def test_broken_lines_finds_new_lines_that_start_with_a_piece_of_a_sentence():
    before = b"- [x](x.md) \xe2\x80\x94 head \xe2\x80\x94 story \xe2\x86\x92 lesson\n- kept\n"
    after = "- → lesson, the head gone\n- kept\n- ) a bracket\n".encode()
    assert broken_lines(before, after) == ["- → lesson, the head gone", "- ) a bracket"]
    assert broken_lines(before, before) == []
