"""Text fields that never type an alt+ key: in tmux (and any terminal that holds Esc for a moment)
Esc followed quickly by a letter arrives as one read, ESC + the letter, which Textual reports as
``alt+<letter>`` with the letter as its character, and a text widget would type it.

Here it is what the user did: Esc, then the key. Esc runs first (it leaves the field the way Esc does
there); the key is sent on once Esc's focus change has happened, to whatever has focus then. If focus
is still in text (Esc closed a dialog and the editor has focus again) the key is dropped, never typed.

The field's own keys (backspace, arrows, ctrl+u, enter) also run in the order they came, with the
letters between them: see ``own_binding_now``.

No Input import here: the editor uses this, and the first frame loads no Input (see text_input.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import events

if TYPE_CHECKING:  # what the mix-in is mixed into: a widget (its app, its screen)
    from textual.widget import Widget as _TextWidget
else:
    _TextWidget = object


def read_esc_and_a_key_as_alt() -> None:
    """Textual's parser turns ESC + some keys into the symbol macOS's Option types with them
    (``"\x1b2"`` is "™", ``"\x1b4"`` "¢"), a character no field can tell from a typed one, so Esc
    then 2 in one read typed ™. Without those entries it reports ``alt+2``, which ``EscThenKey``
    sends on as Esc, then 2, like every other ESC + key. Idempotent; the table is read per key."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    table = cast("dict[str, object]", ANSI_SEQUENCES_KEYS)  # a plain dict, typed as a Mapping
    for sequence in [s for s, meant in table.items() if len(s) == 2 and s[0] == "\x1b" and isinstance(meant, str)]:
        del table[sequence]


def alt_typed(event: events.Key) -> str | None:
    """The key behind ``alt+<printable>`` (``"a"`` for alt+a, ``"slash"`` for alt+/), else None."""
    if not event.key.startswith("alt+") or not event.is_printable:
        return None
    return event.key.removeprefix("alt+")


class EscThenKey(_TextWidget):
    """Mix in before a text widget's class (``class IndexEditor(EscThenKey, TextArea)``): its own
    ``_on_key`` runs first and keeps alt+<printable> out of the text."""

    async def _on_key(self, event: events.Key) -> None:
        key = alt_typed(event)
        if key is None:
            await self.own_binding_now(event)
            return
        event.stop()
        event.prevent_default()  # the text widget's own _on_key (the typing) is not run
        app = self.app
        # Esc's bindings, as a lone Esc finds them: priority ones first, then along the focus chain.
        if not await app._check_bindings("escape", priority=True):
            await app._check_bindings("escape")

        def then_the_key() -> None:
            # Queued after the focus change Esc asked for (Widget.focus is deferred the same way).
            from curator.widgets.footer import is_text_field

            if not is_text_field(app.focused):
                app.simulate_key(key)

        app.call_later(then_the_key)

    async def own_binding_now(self, event: events.Key) -> None:
        """A key bound on the text widget itself (backspace, arrows, ctrl+u, enter…) runs as it
        arrives, in order with the letters around it. Textual runs such a binding only once the key
        has bubbled up to the app, and a letter that came right behind it (one read, or typed ahead
        while the app is busy) is typed first: "ctrl+u abc" cleared the abc, "down x" typed x a line
        too high."""
        if event.is_printable:
            return
        own = next((bindings for node, bindings in self.screen._binding_chain if node is self), None)
        for binding in own.key_to_bindings.get(event.key, ()) if own is not None else ():
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()  # the widget's own _on_key does not handle it again
                return

