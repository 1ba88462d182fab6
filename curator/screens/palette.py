"""Command palette provider: every described binding of the current screen and the app, searchable.

Built from the same bindings as the footer and the help screen, so the three never disagree.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from curator.screens.help import described_bindings


class CuratorCommands(Provider):
    def _actions(self) -> list[tuple[str, str, str, object]]:
        """(title, action, keys, node) for the screen the palette was opened over, then the app."""
        screen = self.screen
        out, seen = [], set()
        for node in (screen, self.app):
            for bindings in node._merged_bindings.key_to_bindings.values():
                for binding in bindings:
                    if binding.description and binding.description not in seen:
                        seen.add(binding.description)
                        keys = next(k for k, d in described_bindings(node) if d == binding.description)
                        out.append((binding.description, binding.action, keys, node))
        for title, action in getattr(screen, "PALETTE_EXTRA", []):
            if title not in seen:
                out.append((title, action, "", screen))
        return out

    def _run(self, action: str, node: object) -> None:
        self.app.call_later(self.app.run_action, action, node)

    async def discover(self) -> Hits:
        for title, action, keys, node in self._actions():
            yield DiscoveryHit(Content(title), partial(self._run, action, node), help=keys or None)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, action, keys, node in self._actions():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self._run, action, node), help=keys or None)
