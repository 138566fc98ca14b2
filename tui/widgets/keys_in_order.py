"""Text fields whose editing keys take effect in the order they were typed.

Textual runs a widget's key bindings (Backspace, the arrows, Ctrl+U in a text area or an
input) only once the key has bubbled up from the widget to the app, a few message hops
later, while the characters typed after it are inserted by the widget at once. When keys
come in one read of the terminal (a fast typist while the workbench is busy drawing a
stream) they were applied out of order: a, b, Backspace, c gave "ab", and Ctrl+U, g, o gave
"". Here the field runs its own bindings as it handles the key, in order.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input, TextArea


class KeysInOrder:
    """A mixin for a focusable text field (before the field's class in the bases): its own
    bindings run in typing order.

    Not a Widget itself: Textual takes a widget's default CSS and component classes from its
    first widget base, which must be the field's class.
    """

    async def _on_key(self, event: events.Key) -> None:
        # Textual calls each class's _on_key down the MRO until one prevents the default:
        # the field's own handler (which inserts characters) runs next unless a binding ran.
        await run_own_binding(self, event)  # type: ignore[arg-type]


async def run_own_binding(widget: Widget, event: events.Key) -> bool:
    """Run ``widget``'s (non-priority) binding of ``event``'s key now; True if one ran.

    ``widget`` is the first in Textual's chain from the focused widget up, so no other
    binding would have run for the key; priority bindings ran before the key got here.
    """
    for binding in widget._bindings.key_to_bindings.get(event.key, ()):
        if not binding.priority and await widget.app.run_action(binding.action, widget):
            event.prevent_default()
            event.stop()
            return True
    return False


class LineInput(KeysInOrder, Input):
    """Textual's Input, its editing keys in typing order."""


class TextEditor(KeysInOrder, TextArea):
    """Textual's TextArea, its editing keys in typing order."""
