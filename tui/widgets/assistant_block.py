"""The model's answer as Markdown blocks of the conversation, streamed in pages.

Its own module, imported on first use: Markdown (markdown-it) is not needed for the
workbench's first frame.

A long answer is shown as pages (:mod:`~agent_tui.tui.widgets.answer_pages`), each an
:class:`AssistantBlock` framed as one: the first has the title and the top border, the
last the bottom one. The conversation keeps only the pages near the screen mounted, so the
layout of one more word costs the same at the end of a 10,000-word answer as at its start.
:class:`StreamedAnswer` gathers streamed text and shows it ``FLUSH_INTERVAL`` after it arrived,
in at most one append per ``FLUSH_INTERVAL``, however fast it arrives.

The answer is outside text. Textual's Markdown shows its words as literal Content (a
``[@click=app.quit]`` in them is just text), but two things are made inert here: escape
sequences and invisible characters are made visible before the Markdown sees them, and a
link's click opens only an ``http(s)`` address in the browser (never a file, an app action or
another scheme), after saying which.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from textual import on
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from ..outside_text import visible
from .answer_pages import Page, closer, shown, split_pages, split_stream
from .markdown_run import RunMarkdown, StreamedRun
from .one_layout import RepaintsGrowth, SizedInOnePass

if TYPE_CHECKING:
    from .conversation import ConversationView

OPENED_SCHEMES = frozenset({"http", "https"})
"""Link schemes a click opens in the browser; other links are only shown."""

FLUSH_INTERVAL = 0.02
"""Seconds streamed text waits to be shown, and the least time between two flushes: at
most ~50 appends (and layouts) a second, whatever the rate, and text on screen soon after
its arrival. (Longer intervals, bigger and fewer flushes, made the display lag worse, not
better: benchmarks/responsiveness.py. 0.03 until a growing answer's frame repainted only
its changed rows; at ~6 ms a frame, 0.02 took the lag at 200 words/s from 41 to 30 ms
(p50) for +7 % CPU.)"""

KEY_QUIET = 0.01
"""After a key, a flush waits this long, so the key's frame draws the key alone."""
HOLD_MAX = FLUSH_INTERVAL + KEY_QUIET
"""Streamed text waits for a quiet moment at most this long after it arrived."""


class Answer:
    """The text of one answer, page by page (a short answer is one page)."""

    __slots__ = ("openers", "pages")

    def __init__(self, pages: list[Page] | None = None) -> None:
        self.pages: list[str] = [page.text for page in pages or []]
        """Each page's text, as the model wrote it."""
        self.openers: list[str] = [page.opener for page in pages or []]
        """The fence line each page starts inside of ("" for none)."""

    def shown(self, index: int) -> str:
        """The Markdown page ``index`` is drawn from (a code block cut across pages is
        closed at the end of one and reopened at the start of the next)."""
        after = self.openers[index + 1] if index + 1 < len(self.openers) else ""
        return shown(Page(self.pages[index], self.openers[index]), after)

    def append(self, page: Page) -> None:
        """One more page."""
        self.pages.append(page.text)
        self.openers.append(page.opener)

    def replace(self, pages: list[Page]) -> None:
        """Other pages instead of these."""
        self.pages[:] = [page.text for page in pages]
        self.openers[:] = [page.opener for page in pages]

    @property
    def text(self) -> str:
        """The whole answer."""
        return "".join(self.pages)


class AssistantBlock(RepaintsGrowth, SizedInOnePass, RunMarkdown, can_focus=True):
    """One page of the model's answer, framed as part of the whole.

    Args:
        text: The text of a block that is a whole answer (ignored with ``answer``).
        answer: The answer this block shows a page of (``c`` copies all of it).
        page: Which page.
    """

    BINDINGS = [Binding("c", "copy", "Copy", show=False)]

    def __init__(self, text: str = "", *, answer: Answer | None = None, page: int = 0) -> None:
        self.answer = answer if answer is not None else Answer([Page(text)])
        self.page = page
        super().__init__(visible(self.answer.shown(page)), open_links=False)
        self._last: Widget | None = None
        self.set_class(page > 0, "-continued")
        self.set_class(page < len(self.answer.pages) - 1, "-continues")
        if page == 0:
            self.border_title = "agent"

    @property
    def text(self) -> str:
        """The page as the model wrote it (the block shows it made visible)."""
        return self.answer.pages[self.page]

    def update(self, markdown: str) -> AwaitComplete:
        """Markdown's update (also how it shows the first text), then the last block marked."""
        replaced = super().update(markdown)

        async def mark_last() -> None:
            await replaced
            if self.children and isinstance(last := self.children[-1], MarkdownBlock):
                # Textual's update leaves the next append parsing from the last line, not
                # from the start of the last block: text streamed onto a page that ends in
                # an open code block was parsed as paragraphs or an indented block without a
                # language (whose highlighting guesses one), and a closing fence as an opening.
                self._last_parsed_line = (last.last_start if isinstance(last, StreamedRun)
                                          else last.source_range[0])
            self._mark_last()

        return AwaitComplete(mark_last())

    async def add_text(self, text: str) -> None:
        """Show more of the page."""
        self.answer.pages[self.page] += text
        # Every ESC becomes a picture, so a sequence split across pieces is safe too.
        await self.append(visible(text))
        self._mark_last()

    async def replace_text(self, text: str) -> None:
        """Show ``text`` instead of what the page shows."""
        self.answer.pages[self.page] = text
        await self.update(visible(self.answer.shown(self.page)))

    async def close_code(self, opener: str) -> None:
        """The next page goes on inside this page's last code block: close it here."""
        tail = "" if self.text.endswith("\n") else "\n"
        await self.append(visible(f"{tail}{closer(opener)}\n"))

    def update_frame(self) -> None:
        """Open the frame at the bottom: another page follows this one."""
        # Inline, not the -continues class: a class change restyles every block of the page.
        self.styles.border_bottom = ("none", "transparent")
        self._mark_last()

    def _mark_last(self) -> None:
        """No blank line under the answer's last block: its bottom margin is dropped.

        Inline on one block, not a ``:last-child`` rule or a class: those make Textual
        restyle every block (or every widget of the block) each time one more is mounted.
        """
        continues = self.page < len(self.answer.pages) - 1
        last = self.children[-1] if self.children and not continues else None
        if last is self._last:
            return
        if isinstance(self._last, StreamedRun):
            self._last.set_last(False)
        elif self._last is not None:
            self._last.styles.clear_rule("margin")
        if isinstance(last, StreamedRun):
            last.set_last(True)
        elif last is not None:
            margin = last.styles.margin
            last.styles.margin = (margin.top, margin.right, 0, margin.left)
        self._last = last

    def revive(self) -> AssistantBlock:
        """A fresh, mountable page showing the same text, in the same answer."""
        return AssistantBlock(answer=self.answer, page=self.page)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(visible(self.answer.text))
        self.notify("Copied to the clipboard", timeout=2)

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        href = visible(event.href)
        if urlsplit(event.href).scheme.lower() in OPENED_SCHEMES and href == event.href:
            self.notify(f"Opening {href}", markup=False, timeout=3)
            self.app.open_url(event.href)
        else:
            self.notify(f"Not opened: {href} (only http and https links open)",
                        markup=False, severity="warning", timeout=5)


def split_answer(text: str) -> list[Callable[[], AssistantBlock]]:
    """A whole answer (not streamed): how to build each of its pages."""
    answer = Answer(split_pages(text))
    return [partial(AssistantBlock, answer=answer, page=page)
            for page in range(len(answer.pages))]


class StreamedAnswer:
    """An answer as it streams into the conversation: gathered, then shown in pages.

    Text is shown ``FLUSH_INTERVAL`` after it arrived, everything that arrived meanwhile
    in one Markdown append (a parse of the last block and a layout), and flushes start at
    least ``FLUSH_INTERVAL`` apart: the event loop keeps time for keys while a fast model
    streams, and the screen is a frame or two behind the stream, not more. When the page shown grows past a page's length, the
    text after the next block boundary starts a new page.

    A person typing meanwhile comes first: a flush waits ``KEY_QUIET`` after their last
    key (at most ``HOLD_MAX`` in all), so the frame that draws a key is not also laying out
    the answer.

    Args:
        conversation: Where the pages go; it follows them unless the person scrolled up.
        last_key_at: When the person last pressed a key (``time.monotonic()``).
    """

    def __init__(self, conversation: ConversationView,
                 last_key_at: Callable[[], float] = lambda: 0.0) -> None:
        self.conversation = conversation
        self.last_key_at = last_key_at
        self._pending_since = 0.0
        self._last_flush_at = -FLUSH_INTERVAL
        self.answer = Answer([Page("")])
        self.pages: list[AssistantBlock] = []
        self._pending: list[str] = []
        self._timer: asyncio.TimerHandle | None = None
        self._flushing: asyncio.Task[None] | None = None
        self._growing: StreamedRun | None = None

    @property
    def text(self) -> str:
        """The answer so far, shown or not yet."""
        return self.answer.text + "".join(self._pending)

    async def start(self) -> None:
        """Show the answer's first (empty) page."""
        await self._add_page()

    async def _add_page(self) -> AssistantBlock:
        page = AssistantBlock(answer=self.answer, page=len(self.pages))
        self.pages.append(page)
        await self.conversation.add(page)
        return page

    def write(self, fragment: str) -> None:
        """Add streamed text; it is shown with the next flush."""
        if not self._pending:
            self._pending_since = time.monotonic()
        self._pending.append(fragment)
        self._schedule()

    def _schedule(self) -> None:
        if self._timer is None and self._flushing is None and self._pending:
            due = max(self._pending_since, self._last_flush_at) + FLUSH_INTERVAL
            self._wait(due - time.monotonic())

    def _wait(self, delay: float) -> None:
        # asyncio's timer, not Textual's: a one-shot Textual timer whose moment has passed
        # by the time its task first looks (a delay of a few microseconds, after a key)
        # is skipped, never fired, and the answer stopped drawing until it ended.
        self._timer = asyncio.get_running_loop().call_later(max(0.0, delay),
                                                            self._start_flush)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _start_flush(self) -> None:
        now = time.monotonic()
        quiet = self.last_key_at() + KEY_QUIET - now
        held = self._pending_since + HOLD_MAX - now
        if quiet > 0 and held > 0:
            self._wait(min(quiet, held))
            return
        self._timer = None
        self._last_flush_at = now
        self._flushing = asyncio.create_task(self._flush())

    async def _flush(self) -> None:
        try:
            # One layout and draw for the whole flush, after it: not one midway, while the
            # new blocks are still being mounted, and another when they are.
            with self.conversation.app.batch_update():
                await self._show("".join(self._pending))
            # The screen draws when it is next idle: now, not with the next message.
            self.conversation.screen.check_idle()
        finally:
            self._flushing = None
        self._schedule()

    async def _show(self, text: str) -> None:
        self._pending.clear()
        here, *later = split_stream(self.answer.pages[-1], text,
                                    opener=self.answer.openers[-1])
        if here.text:
            await self.pages[-1].add_text(here.text)
        for piece in later:
            if piece.opener:
                await self.pages[-1].close_code(piece.opener)
            self.answer.append(piece)
            self.pages[-1].update_frame()
            await self._add_page()
        self._grow_last()
        self.conversation.follow()

    def _grow_last(self, streaming: bool = True) -> None:
        """The run that ends the answer grows rows ahead while it streams; no other does."""
        last = self.pages[-1].children[-1] if self.pages and self.pages[-1].children else None
        run = last if streaming and isinstance(last, StreamedRun) else None
        if run is self._growing:
            return
        if self._growing is not None and self._growing.is_attached:
            self._growing.set_growing(False)
        if run is not None:
            run.set_growing(True)
        self._growing = run

    async def finish(self, text: str | None = None) -> None:
        """End the stream, showing what is still pending; ``text`` replaces the streamed
        answer when given and different."""
        self._stop_timer()
        if self._flushing is not None:
            await self._flushing
            self._stop_timer()  # the flush scheduled the next one
        if self._pending:
            await self._show("".join(self._pending))
        self._grow_last(streaming=False)
        if text is not None and text != self.answer.text:
            await self._replace(text)
        self.conversation.follow()
        self.conversation.end_stream()

    async def _replace(self, text: str) -> None:
        """Show ``text`` as the whole answer, in as many pages as it needs."""
        await self.conversation.discard(self.pages)
        self.pages.clear()
        self.answer.replace(split_pages(text))
        for _ in self.answer.pages:
            await self._add_page()

    async def remove(self) -> None:
        """Take the answer off the conversation (a retried stream starts again)."""
        self._stop_timer()
        if self._flushing is not None:
            self._flushing.cancel()
        self._pending.clear()
        await self.conversation.discard(self.pages)
        self.conversation.end_stream()
