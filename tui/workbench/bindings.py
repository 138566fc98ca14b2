"""The workbench's own key bindings and the prompt's: the lists the app and the prompt bind,
and the footer hints and the key help (:mod:`.key_table`) read.

Each binding's ``id`` is the action name a ``[keys]`` table in ``config.toml`` moves it by
(:mod:`.key_map`)."""

from __future__ import annotations

from textual.binding import Binding

APP_BINDINGS: list[Binding] = [
    Binding("escape", "cancel_turn", "Cancel", show=False, id="cancel_turn"),
    Binding(
        "ctrl+c", "interrupt", "Cancel / clear / quit", show=False, id="interrupt", priority=True
    ),
    Binding(
        "ctrl+up",
        "focus_conversation",
        "Blocks",
        show=False,
        id="focus_conversation",
        priority=True,
    ),
    Binding(
        "ctrl+r", "browse_sessions", "Sessions", show=False, id="browse_sessions", priority=True
    ),
    Binding("shift+tab", "cycle_mode", "Mode", show=False, id="cycle_mode", priority=True),
    Binding("f2", "toggle_side", "Side panel", show=False, id="toggle_side", priority=True),
    Binding("f3", "toggle_tool_log", "Tool log", show=False, id="toggle_tool_log", priority=True),
    Binding("f4", "toggle_todos", "Todos", show=False, id="toggle_todos", priority=True),
    Binding("f6", "resize_side(4)", "Wider side", show=False, id="widen_side", priority=True),
    Binding("f5", "resize_side(-4)", "Narrower side", show=False, id="narrow_side", priority=True),
    Binding(
        "f7", "review_changes", "Review changes", show=False, id="review_changes", priority=True
    ),
    Binding("f8", "open_inbox", "Approval inbox", show=False, id="open_inbox", priority=True),
    Binding(
        "f9", "switch_sessions", "Open sessions", show=False, id="switch_sessions", priority=True
    ),
    Binding("f1", "show_keys", "Keys", show=False, id="show_keys", priority=True),
]

PROMPT_BINDINGS: list[Binding] = [
    Binding("ctrl+j,alt+enter,shift+enter", "newline", "New line", show=False, id="newline"),
    Binding("ctrl+s", "search_history", "Search prompts", show=False, id="search_history"),
    Binding("ctrl+v", "paste_image", "Paste an image", show=False, id="paste_image"),
]
