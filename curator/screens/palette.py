"""Command palette provider: every registered action of the screen it was opened over, and the app's,
searchable. Read from the key registry, like the footer and the help screen, so the three agree."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.dom import DOMNode

from curator.keys import display_keys, effective_keys, for_target
from curator.screens.help import described_bindings, key_groups


class CuratorCommands(Provider):
    def _actions(self) -> list[tuple[str, str, str, DOMNode]]:
        """(title, action, keys, node) for the screen the palette was opened over, then the app."""
        screen = self.screen
        targets = getattr(screen, "KEY_TARGETS", None)
        out: list[tuple[str, str, str, DOMNode]] = []
        seen: set[str] = set()
        if targets is None:  # a screen whose keys are not in the registry: its bindings
            for owner in (screen, self.app):
                for keys, description in described_bindings(owner):
                    for bindings in key_groups(owner):
                        for binding in bindings:
                            if binding.description == description and description not in seen:
                                seen.add(description)
                                out.append((description, binding.action, keys, owner))
            return out
        overrides = getattr(self.app, "key_overrides", {})
        for target in (*targets, "app"):
            for action in for_target(target):
                if action.description in seen or action.target == "help":
                    continue
                seen.add(action.description)
                name = action.action.removeprefix("screen.").removeprefix("app.")
                if target == "app" or action.action.startswith("app."):
                    node: DOMNode = self.app
                elif action.action.startswith("screen.") or not hasattr(screen, "node_for_target"):
                    node = screen
                else:  # a widget's own action (mark, sort): run it on that widget
                    node = screen.node_for_target(target)
                out.append((action.description, name, display_keys(effective_keys(action, overrides)), node))
        return out

    def _run(self, action: str, node: DOMNode) -> None:
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
