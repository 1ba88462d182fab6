"""Memory text shown exactly as written: never parsed as Textual markup.

Memory lines are full of ``[brackets]`` (``- [note](a.md)``); a plain ``str`` given to a label or a
table cell would be read as markup and lose them. Everything user-authored goes through here.
"""

from __future__ import annotations

from textual.content import Content


def verbatim(text: object, style: str = "") -> Content:
    """``text`` as literal content (no markup), optionally styled."""
    content = Content(str(text))
    return content.stylize(style) if style else content


def diff_content(diff: str) -> Content:
    """A unified diff, literal, with added / removed / hunk lines coloured (and their +/- kept)."""
    lines = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "$success"
        elif line.startswith("-"):
            style = "$error"
        elif line.startswith("@@"):
            style = "$accent"
        else:
            style = ""
        lines.append(verbatim(line, style))
    return Content("\n").join(lines) if lines else Content("(no differences)")
