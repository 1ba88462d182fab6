"""A JSONC span scanner: just enough of JSON5 to find an object's members and its closing brace."""

from __future__ import annotations

from typing import NoReturn

import json5

from generators.not_adoptable import NotAdoptable


class Scan:
    """Just enough of JSON5 to find an object's members and its closing brace. The text has already
    parsed (its projection was built), so a surprise here means "do not touch": NotAdoptable."""

    def __init__(self, text: str):
        self.text = text

    def fail(self, at: int) -> NoReturn:
        raise NotAdoptable(f"cannot place the owned keys (unexpected text at character {at})")

    def skip(self, i: int) -> int:
        """Past whitespace and comments."""
        text = self.text
        while i < len(text):
            if text[i] in " \t\r\n\ufeff\u00a0\u2028\u2029":
                i += 1
            elif text.startswith("//", i):
                end = text.find("\n", i)
                i = len(text) if end < 0 else end
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end < 0:
                    self.fail(i)
                i = end + 2
            else:
                break
        return i

    def string_end(self, i: int) -> int:
        text, quote = self.text, self.text[i]
        i += 1
        while i < len(text):
            if text[i] == "\\":
                i += 2
            elif text[i] == quote:
                return i + 1
            else:
                i += 1
        self.fail(i)

    def value_end(self, i: int) -> int:
        text = self.text
        if i >= len(text):
            self.fail(i)
        if text[i] in "\"'":
            return self.string_end(i)
        if text[i] in "{[":
            depth = 0
            while i < len(text):
                i = self.skip(i)
                char = text[i] if i < len(text) else ""
                if char in "\"'":
                    i = self.string_end(i)
                    continue
                if char in "{[":
                    depth += 1
                elif char in "}]":
                    depth -= 1
                    if depth == 0:
                        return i + 1
                elif not char:
                    break
                i += 1
            self.fail(i)
        start = i
        while i < len(text) and text[i] not in ",]}/ \t\r\n":
            i += 1
        if i == start:
            self.fail(i)
        return i

    def elements(self, start: int) -> tuple[list[tuple[int, int]], int]:
        """(elements as (start, end), index of the closing bracket) of the array at ``start``."""
        text = self.text
        if text[start] != "[":
            self.fail(start)
        found = []
        i = self.skip(start + 1)
        while i < len(text) and text[i] != "]":
            end = self.value_end(i)
            found.append((i, end))
            i = self.next_item(end, "]")
        if i >= len(text):
            self.fail(i)
        return found, i

    def next_item(self, end: int, close: str) -> int:
        """Past the comma after an item ending at ``end``, or at the closing ``close``."""
        i = self.skip(end)
        if i < len(self.text) and self.text[i] == ",":
            return self.skip(i + 1)
        if i >= len(self.text) or self.text[i] != close:
            self.fail(i)
        return i

    def members(self, start: int) -> tuple[list[tuple[str, int, int, int]], int]:
        """(members as (key, key start, value start, value end), index of the closing brace)."""
        text = self.text
        if text[start] != "{":
            self.fail(start)
        found = []
        i = self.skip(start + 1)
        while i < len(text) and text[i] != "}":
            key_start = i
            if text[i] in "\"'":
                i = self.string_end(i)
                key = json5.loads(text[key_start:i])
            else:
                while i < len(text) and text[i] not in ": \t\r\n/":
                    i += 1
                key = text[key_start:i]
            i = self.skip(i)
            if i >= len(text) or text[i] != ":":
                self.fail(i)
            value_start = self.skip(i + 1)
            value_end = self.value_end(value_start)
            found.append((key, key_start, value_start, value_end))
            i = self.next_item(value_end, "}")
        if i >= len(text):
            self.fail(i)
        return found, i
