"""The help screen (F1, or ? where no text is typed): every key of the screen or dialog it was opened
from, read from the key registry (so it says what the footer and the palette say), and the app's."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup, Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static

from curator.keys import TARGETS, display_keys, effective_keys, for_target, keymap_path
from curator.widgets.footer import KeysFooter
from curator.widgets.keymap import bindings
from curator.widgets.verbatim import verbatim

# Keys owned by the editor widget itself (TextArea), listed so the help is complete.
EDITOR_KEYS = [
    ("ctrl+z", "Undo the last edit (history starts again after a save, lever or reload)"),
    ("ctrl+y", "Redo in the editor"),
    ("ctrl+a / ctrl+e", "Start / end of line"),
    ("ctrl+w / ctrl+u / ctrl+k", "Delete word left / to line start / to line end"),
    ("tab", "Move focus to the panels"),
]


def registry_keys(targets: tuple[str, ...], overrides: dict[str, str]) -> list[tuple[str, str, str]]:
    """(keys, description, where) for every registered action of ``targets`` and the app's."""
    rows = []
    for target in (*targets, "app"):
        for action in for_target(target):
            rows.append((display_keys(effective_keys(action, overrides)), action.description,
                         TARGETS.get(target, target)))
    return rows


def key_groups(node: DOMNode) -> list[list[Binding]]:
    """The bindings ``node`` answers to (its own and its ancestors'), one list per key."""
    merged = node._merged_bindings
    return list(merged.key_to_bindings.values()) if merged is not None else []


def described_bindings(*nodes: DOMNode) -> list[tuple[str, str]]:
    """(keys, description) for every binding with a description, first node first, no repeats: for
    screens whose keys are not (yet) in the registry."""
    rows: list[tuple[str, str]] = []
    seen: set[str] = set()
    for node in nodes:
        by_action: dict[str, list[Binding]] = {}
        for bindings_ in key_groups(node):
            for binding in bindings_:
                if binding.description:
                    by_action.setdefault(binding.action + binding.description, []).append(binding)
        for group in by_action.values():
            keys = " / ".join(dict.fromkeys(b.key_display or b.key for b in group))
            if group[0].description not in seen:
                seen.add(group[0].description)
                rows.append((keys, group[0].description))
    return rows


# Keys a dialog's own widgets answer to (a table's arrows, a list's space), which no binding of the
# dialog names: listed so its help says what its hint line says. By screen class, (keys, what, where).
WIDGET_KEYS = {
    "PreviewScreen": [
        ("↑ / ↓", "Move in the file list; in the diff, scroll it", "re-provision preview"),
        ("pgup / pgdn", "Page through the file list or the diff", "re-provision preview"),
        ("tab / shift+tab", "File list → diff → buttons, and back", "re-provision preview"),
    ],
    "FitDialog": [
        ("tab / shift+tab", "To the steps list and back to the buttons", "fit preview"),
        ("↑ / ↓", "Move in the steps list", "fit preview, steps list"),
        ("space", "Untick / tick the step (the rest is planned again)", "fit preview, steps list"),
    ],
}


def registry_targets(screen: Screen[Any]) -> tuple[str, ...]:
    """The registry targets whose actions ``screen`` binds (its bindings carry their action ids)."""
    from curator.keys import REGISTRY

    found = [REGISTRY[b.id].target for group in key_groups(screen) for b in group
             if b.id in REGISTRY and REGISTRY[b.id].target != "app"]
    return tuple(dict.fromkeys(found))


def keys_for(screen: Screen[Any], app: App[Any]) -> list[tuple[str, str, str]]:
    targets = getattr(screen, "KEY_TARGETS", None) or registry_targets(screen)
    if getattr(screen, "fleet_below", False):  # opened from the fleet: the keys of `tui DIR` alone do not apply
        targets = tuple(t for t in targets if t != "seat")
    if not targets:  # a screen with no registry keys (none today): what its bindings describe
        return [(keys, description, "") for keys, description in described_bindings(screen, app)]
    rows = registry_keys(tuple(targets), getattr(app, "key_overrides", {}))
    if getattr(screen, "HAS_EDITOR", False):
        rows += [(keys, description, "editor") for keys, description in EDITOR_KEYS]
    for cls in type(screen).__mro__:
        rows += WIDGET_KEYS.get(cls.__name__, [])
    return rows


def grouped(keys: list[tuple[str, str, str]]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(where, [(keys, description)]) in first-seen order of ``where``."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for key, description, where in keys:
        groups.setdefault(where, []).append((key, description))
    return list(groups.items())


class HelpScreen(ModalScreen[None]):
    KEY_TARGETS = ("help",)
    # A short terminal (24 rows) gives the keys every row: no Close button (esc, q and F1 close), no gaps.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    BINDINGS = bindings("help")

    def __init__(self, keys: list[tuple[str, str, str]], title: str):
        super().__init__()
        self.keys = keys
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(verbatim(f"Keys — {self.title_text}"), classes="dialog-title")
            # Rows of wrapping cells, grouped by where the keys work: a table cut the Where column to
            # three letters at 120 columns and hid it at 80, and cut long descriptions.
            with VerticalScroll(id="help-keys", can_focus=True):
                for where, rows in grouped(self.keys):
                    yield Static(verbatim(where or "this screen", "bold $accent"), classes="help-where")
                    for keys, description in rows:
                        with HorizontalGroup(classes="help-row"):
                            yield Static(verbatim(keys, "bold"), classes="help-key")
                            yield Static(verbatim(description), classes="help-action")

            yield Static(verbatim("ctrl+p: every action, searchable · rebind keys: docs/keys.md"), classes="hint")
            # The path is long: on a short terminal (24 rows) its lines go to the keys instead.
            yield Static(verbatim(f"Rebind any key by its id in {keymap_path()} (see docs/keys.md). Mouse works too."),
                         classes="hint keymap-path")
            with HorizontalGroup(classes="buttons"):
                yield Button("Close (esc)", id="close", variant="primary")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#help-keys").focus()  # ↑↓ PgUp PgDn scroll it

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
