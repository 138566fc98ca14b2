"""The welcome at the top of a new session's conversation: what it runs on, and where
to begin.

A view element only: nothing of it reaches the model or the session log, so a resumed
session (redrawn from its log) starts without it.
"""

from __future__ import annotations

from textual.content import Content

from ..outside_text import visible
from ..screens.key_help import KEY_STYLE
from .blocks import Block


def welcome_text(model: str, folder: str, mode: str, keys_key: str) -> Content:
    """Two lines: agent-tui, the model, the folder and the approval mode; then the three
    things to know: ``/`` commands, ``@`` files, ``?`` or ``keys_key`` (F1) for the keys."""
    # The model and the folder come from config, the environment and the file system.
    return Content.assemble(
        ("agent-tui", "bold"),
        " · ",
        visible(model) or "no model yet",
        " · ",
        visible(folder),
        " · approval mode ",
        (visible(mode), "bold"),
        "\n",
        ("/", KEY_STYLE),
        " commands  ",
        ("@", KEY_STYLE),
        " files  ",
        ("?", KEY_STYLE),
        " or ",
        (keys_key, KEY_STYLE),
        " keys",
    )


class WelcomeLine(Block):
    """The welcome of a new session (:func:`welcome_text`), in quiet colours.

    A block of the transcript as the others: a long session unmounts it with the oldest
    blocks and brings it back, first, when the person scrolls up to it.
    """

    DEFAULT_CSS = """
    WelcomeLine {
        padding: 0 1;
        color: $text-muted;
    }
    WelcomeLine:focus {
        background: $boost;
    }
    """

    def revive(self) -> WelcomeLine:
        """A fresh, mountable copy (the conversation unmounts its oldest blocks)."""
        return WelcomeLine(self.content)
