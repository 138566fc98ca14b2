#!/usr/bin/env python3
"""The measured floor: a bare Textual app doing agent-tui's streaming work, and nothing else.

Run it where the peers harness runs agent-tui (`../shared/bench-peers/`), in its place:

    AGENT_TUI=/work/main/benchmarks/stream_floor.py \\
        /tmp/peers/harness-venv/bin/python ../shared/bench-peers/bench.py \\
        --peers agent-tui --kinds s200,s1000 --reps 3 --out /tmp/floor-1

It takes agent-tui's flags as the harness passes them (`--model M --api-base URL --api-key K`)
and has the workbench's screen shape at 120x40 in the large: a scrolling conversation on the
left with the prompt box, a key-hint line under it, a side column on the right (context,
todos, tool log) and a status bar. Typing echoes in a TextArea; Enter posts the prompt to
`{api_base}/chat/completions` with `stream: true` (httpx, in an async worker on the app's
loop; one tool is declared, as agent-tui declares its tools) and appends each delta to the
answer through Textual's own Markdown streaming (`Markdown.get_stream` and
`MarkdownStream.write`), the conversation anchored to its end.

`stream_floor_lines.py` is the same app with the answer drawn as plain text instead: one
widget of wrapped lines through Textual's line API (`render_line`), each delta rewrapping only
the answer's last line and repainting the rows that changed. No Markdown parse, no styling:
the least a Textual app can do to show a growing wrapped answer, so its figures bound what
Textual's event loop, layout and compositor allow here.

Nothing of agent-tui runs: no engine, no litellm, no stream worker process, none of its
tuning (switch interval, frame rate, garbage-collection freezing, paged answers). Textual's
defaults throughout, so the figures are what Python and Textual give for this work here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from typing import TYPE_CHECKING, Literal

from rich.segment import Segment
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable, Static, TextArea

if TYPE_CHECKING:
    from textual.widgets import Markdown

TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a text file of the project.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "The file's path."}},
            "required": ["path"],
        },
    },
}
"""One tool declared with each request, as agent-tui declares its tools."""


class PromptArea(TextArea):
    """The prompt: Enter sends, everything else edits as a TextArea does."""

    class Submitted(Message):
        """The person pressed Enter on a prompt."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text = self.text.strip()
            if text:
                self.clear()
                self.post_message(self.Submitted(text))
            return
        await super()._on_key(event)


class LinesAnswer(Widget):
    """An answer as plain wrapped lines, drawn through Textual's line API.

    A delta rewraps only the answer's last source line; the rows that changed are repainted,
    and a new height asks for a layout (Textual then repaints the widget, as it does for any
    widget whose size changes)."""

    DEFAULT_CSS = "LinesAnswer { height: auto; }"

    def __init__(self) -> None:
        super().__init__()
        self._sources: list[str] = [""]
        self._rows: list[str] = []
        self._tail_start = 0
        self._wrap_width = 0

    def _wrap(self, source: str, width: int) -> list[str]:
        return textwrap.wrap(source, width, drop_whitespace=True) or [""]

    def _rewrap_all(self, width: int) -> None:
        self._wrap_width = width
        self._rows = []
        for source in self._sources[:-1]:
            self._rows.extend(self._wrap(source, width))
        self._tail_start = len(self._rows)
        self._rows.extend(self._wrap(self._sources[-1], width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._wrap_width:
            self._rewrap_all(max(1, width))
        return len(self._rows)

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        text = self._rows[y] if y < len(self._rows) else ""
        return Strip([Segment(text.ljust(width))], width)

    def write(self, delta: str) -> None:
        """Append a piece of the answer; repaint what it changed."""
        *done, last = (self._sources.pop() + delta).split("\n")
        width = self._wrap_width
        if not width:
            self._sources.extend(done + [last])
            return
        rows_before = len(self._rows)
        first_changed = self._tail_start
        del self._rows[self._tail_start :]
        for source in done:
            self._sources.append(source)
            self._rows.extend(self._wrap(source, width))
        self._tail_start = len(self._rows)
        self._sources.append(last)
        self._rows.extend(self._wrap(last, width))
        if len(self._rows) != rows_before:
            self.refresh(layout=True)
        else:
            self.refresh(Region(0, first_changed, width, len(self._rows) - first_changed))


class StreamFloor(App[None]):
    """The workbench's screen shape around one streamed Markdown answer."""

    CSS = """
    #main { height: 1fr; }
    #left { width: 1fr; }
    #conversation { height: 1fr; padding: 0 1; }
    #welcome { color: $text-muted; margin-bottom: 1; }
    .you { border: round $accent; border-title-color: $accent; padding: 0 1; margin: 0 0 1 0; }
    .error { color: $error; }
    #prompt { height: auto; min-height: 3; max-height: 10; border: round $primary; }
    #hints { height: 1; color: $text-muted; padding: 0 1; }
    #side { width: 44; border-left: solid $panel; }
    .side-title { background: $panel; text-style: bold; padding: 0 1; }
    #gauge { height: auto; min-height: 4; padding: 0 1; }
    #todo-section { height: auto; max-height: 12; margin-bottom: 1; }
    #todos { height: auto; max-height: 11; padding: 0 1; }
    #tool-log { height: 1fr; }
    #tool-table { height: 1fr; min-height: 4; }
    #tool-detail-scroll { height: 1fr; border-top: solid $panel; }
    #status { height: 1; background: $panel; }
    """

    BINDINGS = [Binding("ctrl+c", "quit", "quit", priority=True)]

    def __init__(
        self, model: str, api_base: str, api_key: str, view: Literal["markdown", "lines"]
    ) -> None:
        super().__init__()
        self.view = view
        self.model = model
        self.api_base = api_base.rstrip("/")
        self.api_key = api_key
        self.messages: list[dict[str, str]] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                with VerticalScroll(id="conversation"):
                    yield Static(
                        f"stream floor · {self.model} · {os.getcwd()}\n"
                        "a bare Textual app: Enter sends, Ctrl+C quits",
                        id="welcome",
                    )
                yield PromptArea(
                    id="prompt",
                    soft_wrap=True,
                    show_line_numbers=False,
                    tab_behavior="focus",
                    placeholder="Ask anything",
                )
                yield Static("Enter send  Ctrl+C quit", id="hints")
            with Vertical(id="side"):
                yield Static("context", classes="side-title")
                yield Static("\u2591" * 40 + "\n0 / ? tokens (0%)\nlast call n/a", id="gauge")
                with Vertical(id="todo-section"):
                    yield Static("todos", classes="side-title")
                    yield Static("No todos yet.", id="todos")
                yield Static("tool log", classes="side-title")
                with Vertical(id="tool-log"):
                    table: DataTable[str] = DataTable(
                        cursor_type="row", zebra_stripes=True, id="tool-table"
                    )
                    table.add_columns("time", "tool", "arguments", "status", "took")
                    yield table
                    with VerticalScroll(id="tool-detail-scroll"):
                        yield Static("Select a call to see its arguments and output.")
        yield Static(self._status("\u25cb idle"), id="status")

    def _status(self, state: str) -> str:
        return f" {state}  {self.model} \u2502 mode: default \u2502 {os.getcwd()}"

    def on_mount(self) -> None:
        self.query_one(PromptArea).focus()
        self.preload_http()

    @work(thread=True, group="preload")
    def preload_http(self) -> None:
        """Import httpx and the Markdown widget off the loop after the first frame (as
        agent-tui loads its provider and its Markdown after its first frame)."""
        import httpx  # noqa: F401
        from textual.widgets import Markdown  # noqa: F401

    def on_prompt_area_submitted(self, message: PromptArea.Submitted) -> None:
        from textual.widgets import Markdown

        conversation = self.query_one("#conversation", VerticalScroll)
        you = Static(message.text, classes="you", markup=False)
        you.border_title = "you"
        answer = Markdown() if self.view == "markdown" else LinesAnswer()
        conversation.mount_all([you, answer])
        conversation.anchor()
        self.messages.append({"role": "user", "content": message.text})
        self.stream_answer(answer)

    @work(exclusive=True, group="stream")
    async def stream_answer(self, answer: Markdown | LinesAnswer) -> None:
        """POST the conversation, streaming; each delta goes to the answer's Markdown stream,
        or straight to the lines answer."""
        import httpx
        from textual.widgets import Markdown

        status = self.query_one("#status", Static)
        status.update(self._status("\u25cf streaming"))
        stream = Markdown.get_stream(answer) if isinstance(answer, Markdown) else None
        text: list[str] = []
        body = {
            "model": self.model.removeprefix("openai/"),
            "messages": self.messages,
            "tools": [TOOL],
            "stream": True,
        }
        headers = {"Authorization": f"Bearer {self.api_key}"}
        url = f"{self.api_base}/chat/completions"
        try:
            async with httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=10.0)) as client:
                async with client.stream("POST", url, json=body, headers=headers) as response:
                    if response.status_code != 200:
                        detail = (await response.aread()).decode(errors="replace")[:300]
                        raise RuntimeError(f"HTTP {response.status_code} from {url}: {detail}")
                    async for line in response.aiter_lines():
                        if not line.startswith("data:"):
                            continue
                        data = line[5:].strip()
                        if data == "[DONE]":
                            break
                        for choice in json.loads(data).get("choices") or []:
                            delta = (choice.get("delta") or {}).get("content")
                            if delta:
                                text.append(delta)
                                if stream is None:
                                    answer.write(delta)
                                else:
                                    await stream.write(delta)
        except (httpx.HTTPError, RuntimeError, ValueError) as error:
            await self.query_one("#conversation", VerticalScroll).mount(
                Static(
                    f"The model request failed: {error}. Check --api-base and --api-key, "
                    "then type the prompt again.",
                    classes="error",
                    markup=False,
                )
            )
        finally:
            if stream is not None:
                await stream.stop()
            if text:
                self.messages.append({"role": "assistant", "content": "".join(text)})
            status.update(self._status("\u25cb idle"))


def main(argv: list[str] | None = None, view: Literal["markdown", "lines"] = "markdown") -> int:
    """Parse agent-tui's flags as the peers harness passes them and run the app, its answer
    drawn as Markdown or as plain lines."""
    parser = argparse.ArgumentParser(
        description="A bare Textual app streaming one chat completion: the floor for agent-tui."
    )
    parser.add_argument("--model", default="openai/gpt-4o")
    parser.add_argument("--api-base", default="http://127.0.0.1:8000/v1")
    parser.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "sk-none"))
    parser.add_argument("--version", action="version", version="stream-floor (textual bare app)")
    args = parser.parse_args(argv)
    StreamFloor(args.model, args.api_base, args.api_key, view).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
