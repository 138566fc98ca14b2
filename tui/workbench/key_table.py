"""What the workbench's keys do, declared once, each bound key named by its action.

The keys are the app's bindings (``bindings.APP_BINDINGS``), the prompt's and Textual's own;
:data:`KEY_ROWS` say what they do, naming each bound key by its action (``{show_keys}``), so
the words follow the bindings. From
them come the keys paragraph of ``/help`` (:func:`keys_paragraph`) and the keys tables of the
README and of the ``keys`` doc (:func:`keys_table`; ``python3 -m
agent_tui.tui.workbench.key_table`` rewrites both). The key-hint footer reads its keys from the
same bindings (:mod:`..widgets.key_footer`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from textual.app import App
from textual.binding import Binding

from ...core.text.generated_part import rewrite_parts, with_part
from ..widgets.key_footer import bound_keys
from .bindings import APP_BINDINGS, PROMPT_BINDINGS
from .key_map import KeyMap


@dataclass(frozen=True)
class KeyRow:
    """One row of the keys table. ``{action}`` in a text stands for the key bound to that
    action (the app's, the prompt's or Textual's own bindings).

    Attributes:
        keys: The keys, as the table's first column shows them.
        what: What they do, as the table's second column says it.
        brief: Its items in ``/help``'s keys paragraph (none: not listed there).
    """

    keys: str
    what: str
    brief: tuple[str, ...] = ()


KEY_ROWS: tuple[KeyRow, ...] = (
    KeyRow("Enter", "send the prompt", ("Enter send",)),
    KeyRow("{newline} (or Alt+Enter)", "new line in the prompt", ("{newline} new line",)),
    KeyRow("↑ / ↓ in the prompt", "walk the prompt history", ("↑/↓ history",)),
    KeyRow("{search_history} in the prompt", "search the project's earlier prompts (this "
           "session's and earlier sessions'): type words to narrow, the same key or ↑ for "
           "an older match, ↓ a newer one, Enter puts it in the prompt, Esc leaves",
           ("{search_history} search earlier prompts",)),
    KeyRow("{paste_image} in the prompt", "attach the image in the clipboard (a screenshot): "
           "read with wl-paste or xclip, saved in the session's folder and named `@path` in "
           "the prompt; with no image there, paste the workbench's copied text",
           ("{paste_image} paste an image",)),
    KeyRow("{show_keys}, or `?` in the empty prompt",
           "the keys and slash commands (as `/help`)",
           ("{show_keys} or ? (empty prompt) these keys",)),
    KeyRow("{cancel_turn}", "cancel the running turn: the stream stops and running commands "
           "are killed (their whole process group)", ("{cancel_turn} cancel the running turn",)),
    KeyRow("{cycle_mode}", "cycle the approval mode: default → auto-edit → plan → yolo",
           ("{cycle_mode} cycle approval mode",)),
    KeyRow("{toggle_side} / {toggle_tool_log} / {toggle_todos}",
           "show or hide the side panel (hidden at first below 104 columns) / tool log / "
           "todo list",
           ("{toggle_side} side panel", "{toggle_tool_log} tool log", "{toggle_todos} todos")),
    KeyRow("{resize_side(-4)} / {resize_side(4)}", "narrow / widen the side panel",
           ("{resize_side(-4)}/{resize_side(4)} narrow/widen the side panel",)),
    KeyRow("{review_changes}", "review the session's changes hunk by hunk (as `/diff`), "
           "accept or reject them",
           ("{review_changes} review the changes (/diff)",)),
    KeyRow("{open_inbox}", "the approval inbox: every call of every open session waiting for "
           "approval (as `/inbox`): j/k move, y allow once, n deny, a always allow in its "
           "session, d details, r allow every read-only call",
           ("{open_inbox} approval inbox",)),
    KeyRow("{switch_sessions}", "the open sessions, front and background (as `/switch`): "
           "Enter brings one to the front, c stops its prompt, x closes it",
           ("{switch_sessions} open sessions (front and background)",)),
    KeyRow("{focus_conversation}, then j/k, Enter, c", "into the conversation; move between "
           "blocks; expand a tool block; copy a block (Esc returns to the prompt)",
           ("{focus_conversation} to the conversation, then j/k between blocks, Esc back to "
            "the prompt", "Enter expands a tool block", "c copies a block")),
    KeyRow("{browse_sessions}", "the session browser", ("{browse_sessions} session browser",)),
    KeyRow("{command_palette}", "the command palette: every slash command, mode, theme and "
           "pane toggle", ("{command_palette} command palette",)),
    KeyRow("{interrupt}", "during a turn, cancel it (as Esc); idle, clear the prompt; on an "
           "empty prompt, press it twice within a second to quit (a toast says which "
           "happened)",
           ("{interrupt} cancels the turn, clears the prompt, or (twice on an empty prompt) "
            "quits",)),
    KeyRow("{quit}", "quit", ("{quit} quit",)),
)
"""What the workbench's keys do, in the order help lists them."""

_ACTION = re.compile(r"\{([^{}]+)\}")


def bound(moved: KeyMap | None = None) -> dict[str, str]:
    """Each action to the label of its key: the workbench's bindings first (as ``moved``,
    the ``[keys]`` table, moves them), then the prompt's, then Textual's own (``quit``,
    ``command_palette``)."""
    ours = [*APP_BINDINGS, *PROMPT_BINDINGS]
    return bound_keys([*(moved.bindings(ours) if moved else ours), *App.BINDINGS,
                       Binding(App.COMMAND_PALETTE_BINDING, "command_palette")])


def with_keys(text: str, keys: dict[str, str] | None = None) -> str:
    """``text`` with each ``{action}`` replaced by the label of its key.

    Raises:
        KeyError: no binding has that action.
    """
    keys = bound() if keys is None else keys
    return _ACTION.sub(lambda match: keys[match[1]], text)


def actions_named(rows: Iterable[KeyRow] = KEY_ROWS) -> set[str]:
    """The actions whose keys ``rows`` name, in either column or in ``/help``."""
    return {match for row in rows for text in (row.keys, *row.brief)
            for match in _ACTION.findall(text)}


def keys_paragraph(moved: KeyMap | None = None) -> str:
    """The keys paragraph of ``/help``: ``**Keys** — Enter send · …``, with the keys the
    ``[keys]`` table (``moved``) gives."""
    keys = bound(moved)
    items = [with_keys(item, keys) for row in KEY_ROWS for item in row.brief]
    return "**Keys** — " + " · ".join(items)


def keys_table() -> str:
    """The keys as a Markdown table (the README's, the ``keys`` doc's)."""
    keys = bound()
    rows = ["| Key | What it does |", "|---|---|"]
    rows += [f"| {with_keys(row.keys, keys)} | {row.what} |" for row in KEY_ROWS]
    return "\n".join(rows)


BEGIN = ("<!-- keys table: generated from tui/workbench/key_table.py by "
         "python3 -m agent_tui.tui.workbench.key_table -->")
END = "<!-- end of keys table -->"
ROOT = Path(__file__).resolve().parent.parent.parent
FILES_WITH_THE_TABLE = ("README.md", "tools/docs/keys.md")
"""The files (from the repository's root) that hold the table between :data:`BEGIN` and
:data:`END`."""


def with_table(text: str) -> str:
    """``text`` with the part between :data:`BEGIN` and :data:`END` replaced by the table.

    Raises:
        ValueError: ``text`` has no such part.
    """
    return with_part(text, BEGIN, END, keys_table())


def main() -> int:
    """Rewrite the tables in :data:`FILES_WITH_THE_TABLE`; 0."""
    return rewrite_parts((ROOT / name for name in FILES_WITH_THE_TABLE), BEGIN, END, keys_table(),
                         "keys table")


if __name__ == "__main__":
    raise SystemExit(main())
