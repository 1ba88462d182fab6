"""Trims keep every fact: tighten never drops a parenthetical, number, name or status word; split keeps
the clause that carries the lesson in the index; CJK text has clause breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.errors import InputError
from curator.index_model import parse_index
from curator.levers.text import clauses
from curator.levers.trim import facts, lesson_split, plan_trim


def _seat(tmp_path: Path, line: str, detail: str = "d.md") -> Path:
    (tmp_path / "MEMORY.md").write_text(f"# Index\n\n## Notes\n{line}\n", encoding="utf-8")
    (tmp_path / detail).write_text("# D\n\nold detail\n", encoding="utf-8")
    return tmp_path


def _tightened(tmp_path: Path, line: str) -> str:
    memory = _seat(tmp_path, line)
    index = parse_index((memory / "MEMORY.md").read_bytes())
    return plan_trim(memory, index, index.entries[0].id, kind="tighten").files["MEMORY.md"].decode()


@pytest.mark.parametrize("line, kept", [
    ("- Use JoinResult (Key 7) in order to join; JoinResult key 7 is the one.", "JoinResult (Key 7)"),
    ("- **E-228** (READY): basically ready to ship; READY since Monday.", "**E-228** (READY):"),
])
def test_tighten_keeps_a_parenthetical_that_repeats_words_of_its_line(tmp_path, line, kept):
    assert kept in _tightened(tmp_path, line)


def test_tighten_keeps_a_repeated_name(tmp_path):
    after = _tightened(tmp_path, "- Flights to Bora Bora  go via Papeete in order to save a day.")
    assert "Bora Bora go via Papeete to save a day" in after


def test_facts_name_numbers_names_code_links_parentheticals_and_status_words():
    found = facts("- JoinResult (Key 7) via `make ship` and [docs](d.md) — done in v1.2")
    assert {"JoinResult", "(Key 7)", "7", "`make ship`", "[docs](d.md)", "done", "v1.2"} <= set(found)
    assert "basically" not in facts("- Basically run it")


def test_tighten_that_would_drop_a_fact_is_not_offered(tmp_path, monkeypatch):
    from curator.levers import trim

    monkeypatch.setattr(trim, "_tighten", lambda text: text.replace(" (Key 7)", ""))  # a rule gone wrong
    memory = _seat(tmp_path, "- Use JoinResult (Key 7)  here.")
    index = parse_index((memory / "MEMORY.md").read_bytes())
    with pytest.raises(InputError, match=r"would drop \(Key 7\), 7, Key"):
        plan_trim(memory, index, index.entries[0].id, kind="tighten")


STORY = "I merged before CI finished twice in March and broke main for 3 hours (session abc)"


def test_split_keeps_a_weak_spots_counter_in_the_index(tmp_path):
    line = f"- [**Rushing merges**](d.md) — {STORY} → counter: wait for green CI, every time."
    memory = _seat(tmp_path, line)
    index = parse_index((memory / "MEMORY.md").read_bytes())
    change = plan_trim(memory, index, index.entries[0].id, kind="split")
    kept = change.files["MEMORY.md"].decode()
    assert "→ counter: wait for green CI, every time." in kept and "twice in March" not in kept
    assert STORY in change.files["d.md"].decode()


@pytest.mark.parametrize("body, kept, moved", [
    ("The ledger broke in July; two writers raced on flush; never run the migration twice; it happened twice.",
     "The ledger broke in July; never run the migration twice", "two writers raced on flush; it happened twice."),
    ("Deploy story: prod broke in May when the base image moved — fix: pin the base image by digest",
     "Deploy story: prod broke in May when the base image moved — fix: pin the base image by digest", None),
    ("Never run the migration twice in one deploy; the second run re-applies step 3.",
     "Never run the migration twice in one deploy", "the second run re-applies step 3."),
])
def test_the_lesson_clause_stays_and_only_the_story_moves(body, kept, moved):
    parts = lesson_split(body)
    if moved is None:
        assert parts is None  # nothing but the lesson after the first clause: no split offered
    else:
        assert parts == (kept, moved)


def test_cjk_text_breaks_into_clauses_without_spaces():
    assert clauses("部署前先跑测试。否则会出错；记得备份！") == ["部署前先跑测试。", "否则会出错；", "记得备份！"]
    assert clauses("デプロイ前にテストを実行する。失敗したら戻す") == ["デプロイ前にテストを実行する。", "失敗したら戻す"]


def test_a_chinese_entry_splits_and_keeps_its_rule(tmp_path):
    line = "- [部署](d.md) 部署失败了两次，原因是缓存没清，花了三个小时才找到。不要在周五部署。后来我们改了流程，加了检查。"
    memory = _seat(tmp_path, line)
    index = parse_index((memory / "MEMORY.md").read_bytes())
    change = plan_trim(memory, index, index.entries[0].id, kind="split")
    kept = change.files["MEMORY.md"].decode()
    assert "部署失败了两次，原因是缓存没清，花了三个小时才找到。不要在周五部署。" in kept
    assert "后来我们改了流程，加了检查。" in change.files["d.md"].decode()


def test_every_rule_clause_stays_and_warnings_too():
    body = ("[x](x.md) — 첫 대량발송(2026-06-16, 1033명). 멱등로그 경로분리→경로혼용=이중발송. "
            "CLI로 보낸 레터는 버튼 누르지 말 것. 🔒 admin 전용. Upstash 하드닝 보류(B)")
    kept, moved = lesson_split(body)
    assert kept == "[x](x.md) — 첫 대량발송(2026-06-16, 1033명). CLI로 보낸 레터는 버튼 누르지 말 것. 🔒 admin 전용."
    assert moved == "멱등로그 경로분리→경로혼용=이중발송. Upstash 하드닝 보류(B)"


def test_an_arrow_inside_a_clause_is_no_lesson_mark():
    body = "[d](d.md) — 가이드 구현. 카탈로그(46 variant)+5팔레트 토큰→python-pptx 빌드. QA는 Windows 렌더"
    kept, moved = lesson_split(body)
    assert kept == "[d](d.md) — 가이드 구현." and moved.startswith("카탈로그(46 variant)+5팔레트 토큰→python-pptx 빌드.")
