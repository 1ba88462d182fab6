"""Checks that a file changed only where it was meant to."""

from __future__ import annotations

import difflib
import re


def only_insertions(before: str, after: str) -> bool:
    """Every byte of ``before`` is still in ``after``, in order, untouched: the change only inserts."""
    opcodes = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    return all(tag in ("equal", "insert") for tag, *_ in opcodes)


def outside_unchanged(before: str, after: str, held: list[str]) -> bool:
    """``after`` is ``before`` with each of the ``held`` texts (each once in ``before``, in order)
    replaced by something, and not one other byte changed."""
    chunks, rest = [], before
    for text in held:
        head, found, rest = rest.partition(text)
        assert found, f"{text!r} not in the file once, in order"
        chunks.append(head)
    chunks.append(rest)
    pattern = "(.*?)".join(re.escape(chunk) for chunk in chunks)
    return re.fullmatch(pattern, after, flags=re.DOTALL) is not None
