"""A memory file's YAML front matter: the ``name``, ``type`` and ``description`` it declares.

Claude Code's memory convention gives each detail file front matter (``name``, ``description``,
``metadata.type``: user | feedback | project | reference) and links memories with ``[[name]]``.
The block is found by markdown-it (``mdit_py_plugins.front_matter``) and read with PyYAML's safe
loader; front matter that is not valid YAML, or not a mapping, declares nothing (the file is still
checked like any other).
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml
from markdown_it.token import Token


@dataclass(frozen=True)
class FrontMatter:
    """What a memory file declares about itself ('' where it declares nothing)."""

    name: str = ""
    type: str = ""  # `type:` or `metadata.type:`
    description: str = ""
    valid: bool = True  # False: a front-matter block was there but is not a YAML mapping


NONE = FrontMatter()


def front_matter_text(tokens: list[Token]) -> str | None:
    """The YAML text of the document's front matter (only a first block counts), or None."""
    if tokens and tokens[0].type == "front_matter":
        return tokens[0].content
    return None


def _text(value: object) -> str:
    # Only scalars are taken: a mapping or list where a name should be is no name.
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return " ".join(str(value).split())
    return ""


def parse_front_matter(text: str | None) -> FrontMatter:
    if text is None:
        return NONE
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError, ValueError):  # garbage, or nesting deeper than Python goes
        return FrontMatter(valid=False)
    if data is None:
        return NONE
    if not isinstance(data, dict):
        return FrontMatter(valid=False)
    metadata = data.get("metadata")
    kind = data.get("type")
    if kind is None and isinstance(metadata, dict):
        kind = metadata.get("type")
    return FrontMatter(_text(data.get("name")), _text(kind), _text(data.get("description")))
