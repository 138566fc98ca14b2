"""What a running prompt waits for, shown live: a spinner, the words and the time it takes.

One timer of the app (``TICK_S``) reads the clock once a tick and hands the moment down to
the few small widgets that show a wait: the status bar, the :class:`WaitingLine` at the end
of the conversation and the running tool blocks. Nothing else is drawn again, and the timer
is paused while no prompt runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.widget import Widget

from ...core.text.visible_text import visible

if TYPE_CHECKING:
    from ...core.events import StreamRestart

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_S = 0.125
"""The app's one wait timer: eight frames of the spinner a second."""
LONGEST_WORDS = 120
"""Characters of what is awaited kept (a command or a provider's message can be long)."""


def now() -> float:
    """The moment waits are measured at (``time.monotonic``; snapshots stop it)."""
    return time.monotonic()


def elapsed_text(seconds: float) -> str:
    """4.2 s, 12 s, 3 min 05 s."""
    seconds = max(0.0, seconds)
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{int(seconds)} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def spinner_frame(moment: float) -> str:
    """The spinner's frame at ``moment``."""
    return SPINNER[int(moment / TICK_S) % len(SPINNER)]


def _shortened(words: str) -> str:
    line = " ".join(words.split())
    return line if len(line) <= LONGEST_WORDS else line[: LONGEST_WORDS - 1] + "…"


@dataclass(frozen=True, slots=True)
class Awaited:
    """What the front session's prompt waits for, and since when.

    Attributes:
        what: The wait in words: "waiting for openai/gpt-4o", "running `pytest`".
        since: When it began (:func:`now`); for a retry, when the next attempt starts.
        retry: The failed call being retried: until ``since`` the wait counts down to it.
        in_conversation: Also shown at the end of the conversation (not while the answer
            streams there).
    """

    what: str
    since: float
    retry: StreamRestart | None = None
    in_conversation: bool = True

    def text(self, moment: float) -> str:
        """The wait in words at ``moment``: what, and how long so far (or the countdown)."""
        if self.retry is not None and moment < self.since:
            return _shortened(self.retry.describe(self.since - moment))
        return f"{_shortened(self.what)} · {elapsed_text(moment - self.since)}"


def running_words(name: str, summary: str, args: Any) -> str:
    """How a running call is named in a wait: ``running `pytest```, else its summary."""
    command = args.get("command") if isinstance(args, dict) else None
    if isinstance(command, str) and command.strip():
        return f"running `{' '.join(command.split())}`"
    return f"running {summary or name}"


class WaitingLine(Widget):
    """The live line at the end of the conversation: spinner, what is awaited, how long.

    The streamed answer takes its place when it starts. One row, redrawn by the app's wait
    timer without a layout: its size never changes.
    """

    DEFAULT_CSS = """
    WaitingLine {
        height: 1;
        width: 1fr;
        padding: 0 1;
        margin-top: 1;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, awaited: Awaited, moment: float) -> None:
        super().__init__()
        self.awaited = awaited
        self.moment = moment

    def show(self, awaited: Awaited, moment: float) -> None:
        """Show ``awaited`` as it stands at ``moment``."""
        self.awaited, self.moment = awaited, moment
        self.refresh()

    def render(self) -> Content:
        # What is awaited quotes outside text (a command, a provider's message): literal.
        return Content.assemble(
            (spinner_frame(self.moment), "bold $accent"),
            " ",
            visible(self.awaited.text(self.moment)),
        )
