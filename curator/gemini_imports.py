"""Where Gemini CLI would take an ``@word`` in a context file as an import.

Gemini CLI 0.61.0 scans every loaded context file for imports before the model sees it: an ``@``
at the start of the text or after a space, tab or line break, followed by a run up to the next
whitespace that begins with ``.``, ``/`` or an ASCII letter. Inside a code span (a run of backticks
up to the same run; fences are runs of three) it is left alone; anywhere else it is replaced by the
imported file or, failing that, by an ``<!-- Import failed: … -->`` comment — so a line such as
``I am @seat-x`` does not reach the model as written. This is a port of its ``findImports`` and
``findCodeRegions`` (bundle ``chunk-*.js`` of ``@google/gemini-cli`` 0.61.0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CODE = re.compile(r"(`+)([\s\S]*?)\1")
_SPACE = " \t\n\r"


@dataclass(frozen=True)
class Import:
    line: int  # 1-based
    column: int  # 1-based, in characters
    word: str  # the text after the @, as Gemini would try to import it

    def describe(self, name: str) -> str:
        return (f"{name} line {self.line}: `@{self.word}` outside code: Gemini CLI takes it as an import and the "
                "line reaches the model changed (write it in backticks)")


def imports_outside_code(text: str) -> list[Import]:
    """Every ``@word`` Gemini would try to import, in order."""
    regions = [(m.start(), m.end()) for m in _CODE.finditer(text)]
    found: list[Import] = []
    at = 0
    while True:
        at = text.find("@", at)
        if at < 0:
            return found
        if at > 0 and text[at - 1] not in _SPACE:
            at += 1
            continue
        end = at + 1
        while end < len(text) and text[end] not in _SPACE:
            end += 1
        word = text[at + 1:end]
        first = word[:1]
        if first and (first in "./" or (first.isascii() and first.isalpha())) \
                and not any(start <= at < stop for start, stop in regions):
            line = text.count("\n", 0, at) + 1
            found.append(Import(line, at - (text.rfind("\n", 0, at) + 1) + 1, word))
        at = end + 1
