"""The registry's actions as Textual bindings: ``BINDINGS = bindings("index")`` on each screen, panel
and dialog. Each binding carries its action id, so ``App.set_keymap`` (fed from the user's keys.toml)
rebinds it wherever it is used."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from curator.keys import for_target


# Targets whose keys must beat the focused text widget's own bindings (TextArea binds f6, f7, ctrl+a…):
# a user who rebinds an editor-time action to such a key gets the action, not the widget's default.
OVER_TEXT = frozenset({"app", "index", "editor"})


def bindings(target: str) -> list[BindingType]:
    return [
        Binding(a.keys, a.action, a.footer_label, show=a.show, key_display=a.key_display,
                priority=a.priority or target in OVER_TEXT, id=a.id)
        for a in for_target(target)
    ]
