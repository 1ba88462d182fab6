"""The footer: the keys live in the current focus, most important first, recomposed once per burst.

Order comes from the key registry's ``rank`` (save, panels, preview, undo… before help and quit), not
from where a binding is declared, so the keys that matter stay in view at 80 columns whatever has
focus. Textual's ``Footer`` schedules a full recompose for every bindings signal, and a screen sends
several in a row as it mounts and takes focus; here they coalesce into one.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from curator.keys import REGISTRY


def rank_of(binding) -> int:
    action = REGISTRY.get(binding.id or "")
    return action.rank if action is not None else 50


class KeysFooter(Footer):
    _recompose_pending = False

    def __init__(self, **kwargs):
        super().__init__(compact=True, show_command_palette=False, **kwargs)

    def bindings_changed(self, screen) -> None:
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
        shown: dict[str, tuple] = {}  # one key per action: the first binding found for it
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show and (binding.id or binding.action) not in shown:
                shown[binding.id or binding.action] = (binding, enabled, tooltip)
        ordered = sorted(shown.values(), key=lambda item: rank_of(item[0]))
        self.styles.grid_size_columns = len(ordered)
        for binding, enabled, tooltip in ordered:
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)
