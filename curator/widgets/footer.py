"""The footer, recomposed once per burst of binding changes.

Textual's ``Footer`` schedules a full recompose (a widget per key) for every bindings signal, and a
screen sends several in a row as it mounts and takes focus. Here they coalesce into one.
"""

from __future__ import annotations

from textual.widgets import Footer


class KeysFooter(Footer):
    _recompose_pending = False

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
