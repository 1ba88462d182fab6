"""The finished marks fit archives on: the bearer's own status words, in five languages, never a date."""

from __future__ import annotations

import pytest

from curator.levers.finished import FINISHED_WORDS, finished_mark

FINISHED = [
    "- ✅ Phase 1: auth refactor",
    "- [x] migrate the queue",
    "- DONE: migrate the queue",
    "- Migrate the DB — done 2026-01-03",
    "- ~~Use the old broker~~ (2026-01-02)",
    "- Old auth flow (superseded by [new](auth.md))",
    "- Bug 17: fixed in v1.2",
    "- **Shipped** search v2",
    "- Status: closed",
    "- E-228 auth (resolved)",
    "- Ticket #44 — closed by PR #90",
    "- The v1 exporter → obsolete",
    "- SHIPPED the billing page",
    "- Migrate the DB ✅",
    "| Privy login | ✅ Complete | 100% |",
    "- 인증 리팩터링 — 완료",
    "- 로그 정리 (해결됨)",
    "- 認証の移行（完了）",
    "- 【対応済み】ログ整理",
    "- 迁移队列：已完成",
    "- 旧接口（已废弃）",
    "- Миграция очереди — готово",
    "- Старый API (устарело)",
]
OPEN = [
    "- Never mark a ticket done without tests",
    "- Present UI design before coding — 2026-05-19",
    "- Plan approved, code not started",
    "- Open question: waiting; do not implement until answered",
    "- Freeze from 2026-12-15",
    "- Rule: closed PRs are not reopened",
    "- ~~old rule~~ use the new rule always",
    "- Phase 1 done, phase 2 in progress",
    "- Done means green CI",
    "- Complete the migration before Friday",
    "- Not done: the cache warmer",
    "- 完成后再部署",
    "- 未完了のタスク：ログ",
    "- 작업 진행 중 — 완료 예정",
    "- Не готово: кэш",
    "| **Frontend** | 95% | ✅ YES |",
    "- ✅ use the cache / ❌ never the raw table",
    "- Works today: ✅ fast search",
]


@pytest.mark.parametrize("text", FINISHED)
def test_the_bearers_status_word_marks_an_entry_finished(text):
    assert finished_mark(text)


@pytest.mark.parametrize("text", OPEN)
def test_a_rule_a_plan_a_date_or_an_open_item_is_not_finished(text):
    assert finished_mark(text) == ""


@pytest.mark.parametrize("heading", ["Done", "Completed tasks", "已完成", "完了", "완료된 작업", "Закрыто"])
def test_a_heading_that_says_finished_marks_its_entries(heading):
    assert finished_mark("- cleaned up the logs", heading) == f"under '{heading}'"


@pytest.mark.parametrize("heading", ["Decisions", "Definition of done", "Done criteria", "Sprint (2024-01-02)"])
def test_other_headings_mark_nothing(heading):
    assert finished_mark("- cleaned up the logs", heading) == ""


def test_one_list_holds_every_language():
    assert set(FINISHED_WORDS) == {"en", "ko", "ja", "zh", "ru"}
    english = set(FINISHED_WORDS["en"])
    assert {"done", "completed", "closed", "shipped", "resolved", "superseded", "obsolete"} <= english
