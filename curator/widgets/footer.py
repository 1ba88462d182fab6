"""The footer: the keys live in the current focus, most important first, recomposed once per burst.

Order comes from the key registry's ``rank`` (save, panels, preview, undo… before help and quit), not
from where a binding is declared, so the keys that matter stay in view at 80 columns whatever has
focus; a key that does not fit whole is left out with all after it, never cut mid-word (F1 lists
them all). Textual's ``Footer`` schedules a full recompose for every bindings signal, and a screen sends
several in a row as it mounts and takes focus; here they coalesce into one.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.keys import key_to_character
from textual.widgets import Footer, TextArea
from textual.widgets._footer import FooterKey

from curator.keys import REGISTRY

FooterItem = tuple[Binding, bool, str]  # a key to show: its binding, enabled, its tooltip


def rank_of(binding: Binding) -> tuple[int, bool]:
    """Footer order: the registry's rank; on a tie a screen's own key before the app-wide one (``q``
    before ``ctrl+q`` where both quit)."""
    action = REGISTRY.get(binding.id or "")
    return (action.rank if action is not None else 50), (binding.id or "").startswith("app.")


def is_text_field(widget: object) -> bool:
    """The editor or an Input. Input is looked up, not imported: no Input exists before its module is
    loaded, and the first frame of the index screen has none (start-up pays for nothing unneeded)."""
    input_module = sys.modules.get("textual.widgets._input")
    return isinstance(widget, TextArea) or (input_module is not None and isinstance(widget, input_module.Input))


def types_text(key: str) -> bool:
    """True for a key that types a character (``q``, ``space``, ``slash``), not ``ctrl+q`` or ``escape``."""
    character = key_to_character(key)
    return character is not None and character.isprintable()


class KeysFooter(Footer):
    _recompose_pending = False
    _fitted_width = 0  # the terminal width the keys shown were fitted to

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(compact=True, show_command_palette=False, **kwargs)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or self._recompose_pending:
            return
        if self.is_attached and screen is self.screen:
            self._recompose_pending = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_pending = False
        await self.recompose()

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        ordered = self.fitting(self.wanted())
        self.styles.grid_size_columns = len(ordered)
        for binding, enabled, tooltip in ordered:
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)

    def fitting(self, ordered: list[FooterItem]) -> list[FooterItem]:
        """The keys that fit whole in the terminal's width, most important first: the footer ends with
        a whole key, never a word cut in half (F1 lists the rest)."""
        width = self._fitted_width = self.app.size.width
        room, out = width + 1, list[FooterItem]()  # + 1: the last key needs no gap after it
        for item in ordered:
            binding = item[0]
            need = cell_len(self.app.get_key_display(binding)) + 1 + cell_len(binding.description) + 1
            if need > room:
                break
            room -= need
            out.append(item)
        return out

    def on_resize(self) -> None:
        if self._fitted_width != self.app.size.width and self._bindings_ready and not self._recompose_pending:
            self._recompose_pending = True
            self.call_after_refresh(self._recompose_once)

    def wanted(self) -> list[FooterItem]:
        """(binding, enabled, tooltip) of the keys to show for the current focus, in footer order."""
        # While a text field has focus its letters are text, not commands: leave them out (and name
        # a key's other binding, esc say, in their place).
        typing = is_text_field(self.screen.focused)
        shown: dict[str, FooterItem] = {}  # one key per action: the first binding found for it
        # A screen may name a key by what it would do now (Undo: archive line 12), or leave out one
        # with nothing to act on ("") that still answers when pressed.
        label_of = getattr(self.screen, "footer_label", lambda binding: None)
        no_fleet = getattr(self.app, "fleet_path", True) is None
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if typing and not binding.priority and types_text(binding.key):
                continue
            if no_fleet and binding.id == "app.reprovision":
                continue  # nothing to re-provision without a fleet (pressed, it says so)
            label = label_of(binding)
            if label == "":
                continue
            if label is not None:
                binding = replace(binding, description=label)
            if binding.show and (binding.id or binding.action) not in shown:
                if typing and binding.key_display:
                    binding = replace(binding, key_display=None)
                shown[binding.id or binding.action] = (binding, enabled, tooltip)
        ordered: list[FooterItem] = []
        labels: set[str] = set()
        for item in sorted(shown.values(), key=lambda item: rank_of(item[0])):
            if item[0].description not in labels:  # "q Quit" and "^q Quit": the first only
                labels.add(item[0].description)
                ordered.append(item)
        return ordered
