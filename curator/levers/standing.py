"""Standing rules: the words with which the bearer states a rule that must stay in the hot index.

An entry holding one (NEVER, ALWAYS, MUST, DO NOT, …, in the bearer's capitals; 절대, 금지, 必须,
禁止, … in scripts without case), or sitting under a heading that names its entries rules
(``## Standing rules``, ``## 규칙``), is a rule the seat must see at every start: ``fit`` never folds it
away on its own (a facet holding one folds without it; the rule stays where it stands). The
``fold`` lever, run by the bearer on entries they name, is not bound by it. Beside the finished
words of ``curator.levers.finished``; ``tests/levers/test_fit_fold.py`` pins each language.
"""

from __future__ import annotations

import re

# In capitals only, as the bearer wrote them to stress a rule ("never" in running prose is no rule mark).
STANDING_CAPITALS: dict[str, tuple[str, ...]] = {
    "en": ("NEVER", "ALWAYS", "MUST", "MUST NOT", "DO NOT", "DON'T", "DONT", "SHALL NOT", "NO EXCEPTIONS"),
    "ru": ("НИКОГДА", "ВСЕГДА", "НЕЛЬЗЯ", "ОБЯЗАТЕЛЬНО", "ЗАПРЕЩЕНО"),
}
# Scripts without case: the word itself states the rule.
STANDING_WORDS: dict[str, tuple[str, ...]] = {
    "ko": ("절대", "금지", "반드시", "필수"),
    "ja": ("絶対", "禁止", "必ず", "厳禁"),
    "zh": ("必须", "禁止", "严禁", "绝不", "务必", "切勿"),
}

# A heading that names its entries rules ("## Standing rules", "## 규칙") makes each a standing rule.
RULE_HEADINGS = ("rule", "rules", "규칙", "원칙", "ルール", "規則", "规则", "规定", "原则", "правила", "правило")

_CAPS = sorted({w for words in STANDING_CAPITALS.values() for w in words}, key=len, reverse=True)
_CAPITAL = re.compile(r"(?<![\w'-])(" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in _CAPS) + r")(?![\w'-])")
_WORD = re.compile("(" + "|".join(re.escape(w) for words in STANDING_WORDS.values() for w in words) + ")")


_HEADING = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in RULE_HEADINGS) + r")(?!\w)", re.IGNORECASE)


def standing_rule(text: str, heading: str = "") -> str:
    """The first word of ``text`` (a whole entry) that states a standing rule, as written, or the
    rules heading it sits under (``under 'Standing rules'``); '' if none."""
    if heading and _HEADING.search(heading):
        return f"under '{heading}'"
    found = [m for m in (_CAPITAL.search(text), _WORD.search(text)) if m]
    return min(found, key=lambda m: m.start()).group(1) if found else ""
