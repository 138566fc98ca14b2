"""Small panels: the side panel and its todo list and context gauge, and the status bar."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Static

from ..outside_text import visible
from .waiting import Awaited, spinner_frame

if TYPE_CHECKING:  # the engine's events load after the first frame
    from ...core.events import Usage

THRESHOLDS = (50, 60, 70, 80)
_ITEM = re.compile(r"^(?P<indent>\s*)[-*] \[(?P<mark>[ xX])\] (?P<task>.*)$")


def format_tokens(count: int) -> str:
    """12345 -> ``12.3K``."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1000:
        return f"{count / 1000:.1f}K"
    return str(count)


def format_cost(cost: float | None) -> str:
    """Dollars, or ``n/a`` where litellm knows no price."""
    return "n/a" if cost is None else f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


CONVERSATION_MIN_WIDTH = 60
"""Columns the conversation keeps beside the side panel."""
SIDE_PANEL_WIDTH = 44
"""The side panel's width in cells, its border included, until the person resizes it."""
NARROW_BELOW = CONVERSATION_MIN_WIDTH + SIDE_PANEL_WIDTH
"""Terminal widths below this are narrow: the side panel starts hidden there (F2 shows it)."""
BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]
"""The screen's width classes (``HORIZONTAL_BREAKPOINTS``) the stylesheet hides the side
panel by."""


class SidePanel(Vertical):
    """The side panel (context gauge, todos, tool log); F5/F6 make it narrower or wider.

    On a narrow terminal (``NARROW_BELOW``) it starts hidden so the conversation keeps
    ``CONVERSATION_MIN_WIDTH`` columns; ``toggle()`` (F2) shows or hides it at any width, and
    the person's choice then holds when the terminal is resized.
    """

    MIN_WIDTH = 24
    MAX_WIDTH = 120

    width_cells: reactive[int | None] = reactive(None)
    """Its width in cells once the person resized it; None while the stylesheet's holds."""

    def resize(self, delta: int) -> None:
        """Make the panel ``delta`` cells wider (narrower if negative), within bounds."""
        current = self.width_cells
        if current is None:
            current = int(self.styles.width.value) if self.styles.width else SIDE_PANEL_WIDTH
        self.width_cells = max(self.MIN_WIDTH, min(self.MAX_WIDTH, current + delta))

    def watch_width_cells(self, cells: int | None) -> None:
        if cells is not None:
            self.styles.width = cells

    def toggle(self) -> None:
        """Hide the panel if it shows, else show it, whatever the terminal's width."""
        # Classes, not `display`: the stylesheet's narrow rule must not override the choice.
        shown = self.display
        self.set_class(shown, "hidden")
        self.set_class(not shown, "shown")


class TodoPane(Static):
    """The agent's todo list, live: ☐ open, ☑ done, nesting kept."""

    source: str = ""
    """The markdown checkbox list as the agent wrote it."""

    def show(self, content: str) -> None:
        """Show a markdown checkbox list."""
        self.source = content
        text = Text()
        # The agent wrote the list: Text.append is literal, and escapes are made visible.
        for line in map(visible, content.strip().splitlines()):
            match = _ITEM.match(line)
            if match is None:
                text.append(line.strip() + "\n", "bold")
                continue
            done = match["mark"] in "xX"
            text.append(match["indent"] + ("☑ " if done else "☐ "))
            text.append(match["task"] + "\n", "dim strike" if done else "")
        text.rstrip()
        self.update(text if text else Text("No todos yet.", "italic dim"))


def cache_line(usage: Usage | None) -> str:
    """The prompt cache's part of ``usage`` ("" when there is none or the provider reported
    none)."""
    if usage is None or not (usage.cache_read_tokens or usage.cache_write_tokens):
        return ""
    share = usage.cache_read_tokens / usage.prompt_tokens if usage.prompt_tokens else 0.0
    return (f"cache: {share:.0%} of input read · "
            f"{format_tokens(usage.cache_write_tokens)} written")


def reasoning_line(usage: Usage | None) -> str:
    """The reasoning's share of the output tokens of ``usage`` ("" when the model reported
    none)."""
    if usage is None or not usage.reasoning_tokens:
        return ""
    return (f"reasoning: {format_tokens(usage.reasoning_tokens)} of "
            f"{format_tokens(usage.completion_tokens)} output tokens")


class ContextGauge(Static):
    """Tokens in context against the window, with marks at 50/60/70/80 %, and costs."""

    tokens: reactive[int] = reactive(0)
    """Tokens in the context now."""
    window: reactive[int] = reactive(0)
    """The model's context window."""
    call_cost: reactive[float | None] = reactive(None)
    """Cost of the last model call."""
    session_cost: reactive[float | None] = reactive(None)
    """Cost of the session so far."""
    session_usage: reactive[Usage | None] = reactive(None)
    """Tokens of the session so far (None before the first call): its prompt cache's reads
    and writes, and its reasoning tokens, are shown."""
    level: reactive[int] = reactive(0)
    """The highest thinning threshold crossed (0: none)."""
    compactions: reactive[int] = reactive(0)
    """How often the conversation was compacted."""

    def render(self) -> Text:
        width = max(10, self.size.width - 2)
        share = self.tokens / self.window if self.window else 0.0
        filled = round(min(1.0, share) * width)
        marks = {round(width * t / 100) for t in THRESHOLDS}
        bar = Text()
        for i in range(width):
            if i < filled:
                style = "bold red" if share >= 0.8 else "bold yellow" if share >= 0.5 else "bold green"
                bar.append("█", style)
            else:
                bar.append("┊" if i in marks else "░", "dim")
        window = format_tokens(self.window) if self.window else "?"
        bar.append(f"\n{format_tokens(self.tokens)} / {window} tokens ({share:.0%})")
        bar.append(f"\nlast call {format_cost(self.call_cost)} · session "
                   f"{format_cost(self.session_cost)}", "dim")
        for line in (cache_line(self.session_usage), reasoning_line(self.session_usage)):
            if line:
                bar.append(f"\n{line}", "dim")
        if self.level or self.compactions:
            bar.append(f"\nthinned at {self.level} %" if self.level else "\n", "yellow")
            if self.compactions:
                bar.append(f"{' · ' if self.level else ''}compacted ×{self.compactions}",
                           "yellow")
        return bar


class StatusBar(Static):
    """Model, approval mode, project, session and whether the agent is busy."""

    model: reactive[str] = reactive("")
    mode: reactive[str] = reactive("default")
    project: reactive[str] = reactive("")
    session_id: reactive[str] = reactive("")
    busy: reactive[bool] = reactive(False)
    queued: reactive[int] = reactive(0)
    network: reactive[bool] = reactive(False)
    sandbox: reactive[str] = reactive("none")
    background: reactive[int] = reactive(0)
    """Open sessions besides the front one."""
    inbox: reactive[int] = reactive(0)
    """Calls of every session waiting for approval."""
    escalated_to: reactive[str] = reactive("")
    """The stronger model the running prompt was handed to ("" when none)."""
    awaited: Awaited | None = None
    """What the running prompt waits for (None: not known, shown as busy)."""
    moment: float = 0.0
    """When ``awaited`` was last shown (the wait timer's tick)."""

    def show_waiting(self, awaited: Awaited | None, moment: float) -> None:
        """Show what the running prompt waits for as it stands at ``moment``."""
        self.awaited, self.moment = awaited, moment
        self.refresh()

    def render(self) -> Text:
        text = Text()
        if self.busy and self.awaited is not None:
            # Quotes outside text (a command, a provider's message): literal, escapes shown.
            text.append(f" {spinner_frame(self.moment)} "
                        f"{visible(self.awaited.text(self.moment))} ", "bold reverse")
        else:
            text.append(" ● busy " if self.busy else " ○ idle ",
                        "bold reverse" if self.busy else "")
        # Model, project and session id come from config, the environment and session logs:
        # appended as literal text with escapes made visible.
        text.append(f" {visible(self.model) or 'no model'} ", "bold")
        if self.escalated_to:
            text.append(f"↑ {visible(self.escalated_to)} ", "bold yellow")
        if self.inbox:  # what waits for the person first: a narrow terminal keeps it
            text.append(f"│ {self.inbox} awaiting approval (F8) ", "bold yellow")
        text.append(f"│ mode: {visible(self.mode)} ",
                    "bold yellow" if self.mode == "yolo" else "")
        text.append("│ net: on " if self.network else "│ net: off ",
                    "bold yellow" if self.network else "")
        if self.sandbox != "none":
            text.append(f"│ sandbox: {visible(self.sandbox)} ", "bold green")
        if self.queued:
            text.append(f"│ {self.queued} queued ", "italic")
        if self.background:
            text.append(f"│ {self.background} more open (F9) ", "italic")
        # Last: the part a narrow terminal cuts (the stylesheet ends the line in "…").
        text.append(f"│ {visible(self.project)} │ session {visible(self.session_id)}")
        return text
