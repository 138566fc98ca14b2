"""The workbench's own key bindings and the prompt's: the lists the app and the prompt bind,
and the footer hints and the key help (:mod:`.key_table`) read."""

from __future__ import annotations

from textual.binding import Binding

APP_BINDINGS: list[Binding] = [
    Binding("escape", "cancel_turn", "Cancel", show=False),
    Binding("ctrl+c", "interrupt", "Cancel / clear / quit", show=False, priority=True),
    Binding("ctrl+up", "focus_conversation", "Blocks", show=False, priority=True),
    Binding("ctrl+r", "browse_sessions", "Sessions", show=False, priority=True),
    Binding("shift+tab", "cycle_mode", "Mode", show=False, priority=True),
    Binding("f2", "toggle_side", "Side panel", show=False, priority=True),
    Binding("f3", "toggle_tool_log", "Tool log", show=False, priority=True),
    Binding("f4", "toggle_todos", "Todos", show=False, priority=True),
    Binding("f6", "resize_side(4)", "Wider side", show=False, priority=True),
    Binding("f5", "resize_side(-4)", "Narrower side", show=False, priority=True),
    Binding("f7", "review_changes", "Review changes", show=False, priority=True),
    Binding("f8", "open_inbox", "Approval inbox", show=False, priority=True),
    Binding("f9", "switch_sessions", "Open sessions", show=False, priority=True),
    Binding("f1", "show_keys", "Keys", show=False, priority=True),
]

PROMPT_BINDINGS: list[Binding] = [
    Binding("ctrl+j,alt+enter,shift+enter", "newline", "New line", show=False),
]
