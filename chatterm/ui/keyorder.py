"""Keys typed into a text field in a burst take effect in the order they were typed.

Textual hands a key to the focused widget and runs a binding only once the key has come back up to the app, by
which time the keys read with it from the terminal have been handed on already: a text field types those at once,
so with a burst (a text expander, a macro, `tmux send-keys`) a Backspace or a cursor move would land after the
text that followed it. A key bound by the focused text field itself is therefore run as a callback queued to the
field, behind the keys before it. (The composer, a TextArea, does the same from its own key handler.)
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.widgets import Input


def in_order(app: App[Any], event: events.Key) -> bool:
    """Queue the focused text field's own binding for `event` behind the keys before it; False when the key is not
    one of those (Textual handles it as it does any key)."""
    field = app.focused
    if event.is_forwarded or not isinstance(field, Input):
        return False
    chain = app.screen._binding_chain
    if any(binding.priority for _, bindings in chain for binding in bindings.key_to_bindings.get(event.key, ())):
        return False  # (run by Textual before any widget sees the key)
    own = [binding for binding in field._bindings.key_to_bindings.get(event.key, ()) if not binding.priority]
    if not own:
        return False
    field.call_later(_run, field, own)
    return True


async def _run(field: Input, bindings: list[Binding]) -> None:
    """Run the first of the field's bindings for a key whose action runs (as Textual tries them)."""
    for binding in bindings:
        if await field.app.run_action(binding.action, field):
            return
