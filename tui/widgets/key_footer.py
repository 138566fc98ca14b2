"""The main screen's line of keys: what the keys do now, as every modal has its own.

It follows the workbench's state: idle (send, new line, ``/`` commands, ``@`` files, keys,
quit), with text in the prompt (Ctrl+C clears it), a turn running (Esc cancels, Enter
queues) and calls waiting for approval (F8). The keys are read from the bindings the
workbench declares, so a hint cannot name a key that does something else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.keys import format_key
from textual.reactive import reactive
from textual.widgets import Static

from ..screens.key_help import key_help

_KEY_NAMES = {
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "space": "Space",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
}


def key_label(key: str) -> str:
    """How a key reads in a hint: ``ctrl+c`` as ``Ctrl+C``, ``escape`` as ``Esc``,
    ``f1`` as ``F1``, ``question_mark`` as ``?``."""
    *modifiers, name = key.split("+")
    if name in _KEY_NAMES:
        name = _KEY_NAMES[name]
    elif name[:1] == "f" and name[1:].isdigit():
        name = name.upper()
    else:
        name = format_key(name)
        if modifiers and len(name) == 1:
            name = name.upper()
    return "+".join([*(modifier.capitalize() for modifier in modifiers), name])


@dataclass(frozen=True)
class KeyHint:
    """One hint: the key of ``action`` in the workbench's bindings (or ``key`` when no
    binding declares it, as the prompt's Enter), then what it does."""

    what: str
    action: str = ""
    key: str = ""


IDLE = (
    KeyHint("send", key="Enter"),
    KeyHint("new line", action="newline"),
    KeyHint("commands", key="/"),
    KeyHint("files", key="@"),
    KeyHint("keys", action="show_keys"),
    KeyHint("quit", action="interrupt"),
)
"""The hints of an idle workbench with an empty prompt."""

TYPING = (
    KeyHint("send", key="Enter"),
    KeyHint("new line", action="newline"),
    KeyHint("history", key="↑↓"),
    KeyHint("files", key="@"),
    KeyHint("clear", action="interrupt"),
)
"""The hints of an idle workbench while a prompt is being written."""

RUNNING = (
    KeyHint("cancel", action="cancel_turn"),
    KeyHint("cancel", action="interrupt"),
    KeyHint("queue a prompt", key="Enter"),
    KeyHint("keys", action="show_keys"),
)
"""The hints while a turn runs."""

APPROVALS = KeyHint("approvals", action="open_inbox")
"""The hint first in line while calls wait for approval."""


def bound_keys(bindings: Iterable[BindingType]) -> dict[str, str]:
    """Each action of ``bindings`` to the label of its first key (the first binding of
    an action wins)."""
    keys: dict[str, str] = {}
    for binding in bindings:
        if isinstance(binding, Binding):
            action, key = binding.action, binding.key
        else:
            key, action = binding[0], binding[1]
        keys.setdefault(action, key_label(key.split(",")[0].strip()))
    return keys


class KeyFooter(Static):
    """The line of keys under the prompt; longer than the pane is wide, it
    ends with an ellipsis.

    Args:
        bindings: The workbench's bindings (the app's and the prompt's), where each hint's
            key is looked up by its action.
    """

    DEFAULT_CSS = """
    KeyFooter {
        height: 1;
        padding: 0 1;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    busy: reactive[bool] = reactive(False)
    """Whether a turn of the front session runs."""
    typing: reactive[bool] = reactive(False)
    """Whether the prompt holds text."""
    waiting: reactive[int] = reactive(0)
    """Calls waiting for approval, in every session."""

    def __init__(self, bindings: Iterable[BindingType], **kwargs) -> None:
        super().__init__(**kwargs)
        self._keys = bound_keys(bindings)

    def hints(self) -> list[tuple[str, str]]:
        """The ``(key, what it does)`` pairs shown now."""
        shown: Sequence[KeyHint] = RUNNING if self.busy else TYPING if self.typing else IDLE
        pairs = [self._pair(hint) for hint in shown]
        if self.waiting:
            key, _ = self._pair(APPROVALS)
            pairs.insert(0, (key, f"approvals ({self.waiting} waiting)"))
        return pairs

    def _pair(self, hint: KeyHint) -> tuple[str, str]:
        return (self._keys.get(hint.action, hint.key) if hint.action else hint.key), hint.what

    def render(self) -> Content:
        return key_help(self.hints())
