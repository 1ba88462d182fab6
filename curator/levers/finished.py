"""Finished marks: the bearer's own words that say an entry is over (done, shipped, superseded, …).

What ``fit`` asks the bearer about, with the evidence (the word and where it stands): it never
archives on it alone, for a word may describe a topic ("fixed at source"), a ticket ("#279 DONE"),
a quoted symptom or a technical state ("Fixed" as a GPS fix), and only the bearer knows. A date is
never one (it may date when a standing lesson was learned, or a freeze still to come); a status word is one only where it stands as a status: the
entry opens with it (``✅``, ``- [x]``, ``DONE:``, ``~~struck~~``), it sits in brackets (``(done)``,
``【完了】``), after a status key (``status: shipped``, ``状态：已完成``), as the first word of a
clause (``… — resolved in #12``, ``… → 완료``), in bold or capitals (``**Closed**``, ``SHIPPED``); or
the entry sits under a heading that says so (``## Done``, ``## 已完成``). A rule that merely uses the
word ("never mark a ticket done without tests") is not finished, and nor is an entry that also says
it is still open ("phase 1 done, phase 2 in progress", ``未完了``).

One list, by language; ``tests/levers/test_fit_finished.py`` pins each. The words that state a
standing rule (NEVER, 금지, 必须, …), which ``fit`` never folds away, are listed beside these in
``curator.levers.standing``.
"""

from __future__ import annotations

import re

# Words that, standing as a status, say the entry is finished.
FINISHED_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("done", "completed", "complete", "closed", "shipped", "resolved", "superseded", "obsolete",
           "fixed", "merged", "finished", "retired", "deprecated", "replaced by", "superseded by", "wontfix"),
    "ko": ("완료", "완료됨", "완료된", "해결", "해결됨", "종료", "폐기", "대체됨", "배포 완료", "머지됨"),
    "ja": ("完了", "完了済み", "済み", "対応済み", "解決済み", "終了", "廃止", "クローズ", "リリース済み"),
    "zh": ("已完成", "完成", "已解决", "已关闭", "已上线", "已发布", "已废弃", "废弃", "已过时", "已合并", "已修复"),
    "ru": ("готово", "сделано", "завершено", "выполнено", "закрыто", "решено", "устарело", "заменено",
           "исправлено"),
}
FINISHED_SIGNS = ("✅", "✔", "☑", "🏁")
# Words that say the entry is still open: with one of them, a finished word is only part of the story.
OPEN_WORDS = ("in progress", "wip", "todo", "to do", "pending", "next:", "next step", "waiting", "blocked",
              "not started", "open question", "ongoing", "planned", "remaining", "not yet",
              "진행 중", "진행중", "대기", "미완료", "예정",
              "進行中", "対応中", "未完了", "未対応", "予定", "待ち",
              "进行中", "未完成", "待办", "待定", "计划", "未解决",
              "в работе", "в процессе", "не готово", "не сделано", "ожидает", "планируется")
_NEGATED = re.compile(r"(?:\b(?:not|never|no|isn't|wasn't|aren't|не)|[未不没미안])\s*\**\s*$", re.I)
STATUS_KEYS = ("status", "state", "상태", "状態", "状态", "статус", "состояние")

_WORDS = sorted({w for words in FINISHED_WORDS.values() for w in words}, key=len, reverse=True)
_WORD = "(?:" + "|".join(re.escape(w) for w in _WORDS) + ")"
# What may follow a status word: the end, punctuation, a date or number, or a word that says when, by what
# or where ("shipped in v2", "superseded by X") -- never a noun it qualifies ("closed PRs stay closed").
_STATUS_END = (r"(?=\s*$|\s*[.,;:!?)\]}，。；：！？）】」—–|→(（-]|\s*\d|\s+(?:in|by|on|at|via|into|as|with|since|from|"
               r"for|per|after|before|v\d)\b)")
_LEAD = r"^(?:\s*(?:[-*+]|\d+[.)])\s+)?(?:\[[xX]\]\s*)?(?:\*\*|__)?\s*"
_PATTERNS = (
    ("opens with it", re.compile(_LEAD + "(" + _WORD + r")" + r"(?:\*\*|__)?\s*(?:[:：—–\-|,.!]|\s\d|$)", re.I)),
    ("in brackets", re.compile(r"[(\[（【「]\s*(" + _WORD + ")" + _STATUS_END, re.I)),
    ("after a status key", re.compile(r"(?:" + "|".join(STATUS_KEYS) + r")\s*[:：=—–-]\s*\**\s*(" + _WORD + ")", re.I)),
    ("a clause opens with it", re.compile(r"(?:[—–→|;；:：,，]|\s-)\s*(?:\*\*)?(" + _WORD + ")" + _STATUS_END, re.I)),
    ("in bold", re.compile(r"\*\*\s*(" + _WORD + r")\s*\*\*", re.I)),
)
_CAPITALS = re.compile(r"(?<![\w-])(DONE|COMPLETED|CLOSED|SHIPPED|RESOLVED|SUPERSEDED|OBSOLETE|FIXED|MERGED|WONTFIX)(?![\w-])")
_CHECKED = re.compile(_LEAD.removesuffix(r"(?:\[[xX]\]\s*)?(?:\*\*|__)?\s*") + r"\[[xX]\]\s")
_DONE_THINGS = (r"(?:tasks?|items?|work|features?|tickets?|epics?|issues?|projects?|stories|phases?|milestones?|"
                r"작업|과제|タスク|作業|任务|工作|задачи|работы)")
_SIGNS = "(" + "|".join(FINISHED_SIGNS) + ")\ufe0f?"
_SIGN_OPENS = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+|\|\s*)?(?:\[[xX ]\]\s*)?(?:\*\*|__)?\s*" + _SIGNS)
_SIGN_BESIDE_WORD = re.compile(_SIGNS + r"\s*(?:\*\*)?\s*(?=" + _WORD + r")|(?<=[\w*)])\s*" + _SIGNS + r"\s*\|?\s*$",
                               re.IGNORECASE)
_STRUCK = re.compile(r"~~(?!~).+?~~")
_DATES_AND_MARKS = re.compile(r"[\W_\d]+|" + "|".join(re.escape(w) for w in _WORDS), re.I)


def _negated(text: str, at: int) -> bool:
    return bool(_NEGATED.search(text[max(0, at - 12):at]))


def still_open(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in OPEN_WORDS) or "- [ ]" in text


def finished_mark(text: str, heading: str = "") -> str:
    """The words of ``text`` (an entry's first line) or of its ``heading`` that mark it finished, as
    written ('' when nothing does, or when it also says it is still open)."""
    return finished_evidence(text, heading)[0]


def finished_evidence(text: str, heading: str = "") -> tuple[str, str]:
    """(the words that mark ``text`` finished, where they stand: 'opens with it', 'in brackets', …);
    ('', '') when nothing does. Evidence for the bearer, who judges whether the entry is over."""
    first = text.partition("\n")[0]
    if still_open(first):
        return "", ""
    if _CHECKED.match(first):
        return "[x]", "a ticked box opens it"
    sign = _SIGN_OPENS.match(first) or _SIGN_BESIDE_WORD.search(first)
    if sign and "❌" not in first:  # a check mark that opens or ends the entry, or stands beside a status word
        return next(group for group in sign.groups() if group), "a check mark"
    struck = _STRUCK.findall(first)
    if struck and not _DATES_AND_MARKS.sub("", _STRUCK.sub("", re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", first))):
        return struck[0], "the whole line is struck through"  # a date or a status beside it aside
    for why, pattern in _PATTERNS:
        for found in pattern.finditer(first):
            if not _negated(first, found.start(1)):
                return found.group(1), why
    capital = _CAPITALS.search(first)
    if capital and not _negated(first, capital.start(1)):
        return capital.group(1), "in capitals"
    if heading and not still_open(heading):
        title = heading.strip(" #*_")
        for _why, pattern in _PATTERNS[:2]:
            titled = pattern.search(title)
            if titled and not _negated(title, titled.start(1)):
                return f"under '{heading}'", "the section's heading"
        if re.fullmatch(r"(?:" + _WORD + r")\s*" + _DONE_THINGS, title, re.I):  # "## Completed tasks"
            return f"under '{heading}'", "the section's heading"
    return "", ""
