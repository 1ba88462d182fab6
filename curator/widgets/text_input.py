"""The app's one-line text field: an Input that types no alt+ key (see text_fields.py)."""

from __future__ import annotations

from textual.widgets import Input

from curator.widgets.text_fields import EscThenKey


class TextInput(EscThenKey, Input):
    pass
