"""The frame writer's bytes make a terminal show what Textual's own bytes make it show.

Every frame of a real Textual app (and of the real workbench streaming an answer) is fed
twice to pyte, a terminal emulator: once as Textual renders it, once as the frame writer
does; after every frame the two screens must be equal, cell by cell, colours included.
"""

from __future__ import annotations

import re

import pyte
from rich.color import ColorSystem
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from agent_tui.tui.frame_writer import FrameUpdate, FrameWriter
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from tests.fakes.providers import Reply
from tests.tui.test_app import SIZE, app_for, type_prompt, until


class Terminal:
    """A pyte screen fed raw bytes."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)

    def feed(self, data: str) -> None:
        self.stream.feed(data.encode())

    def resize(self, size: tuple[int, int]) -> None:
        width, height = size
        if (self.screen.columns, self.screen.lines) != size:
            self.screen.resize(height, width)

    def cells(self) -> list[list[tuple]]:
        screen = self.screen
        return [
            [
                (c.data, c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse, c.strikethrough)
                for c in (screen.buffer[y][x] for x in range(screen.columns))
            ]
            for y in range(screen.lines)
        ]


class Twins:
    """Two terminals: one shown Textual's bytes, one the frame writer's."""

    def __init__(self, size: tuple[int, int], writer: FrameWriter | None = None) -> None:
        self.plain = Terminal(size)
        self.written = Terminal(size)
        self.writer = writer or FrameWriter()
        self.plain_bytes = 0
        self.written_bytes = 0
        self.frames = 0
        self.full_updates = 0
        self.scrolled_down = 0
        self.written_frames: list[str] = []
        """Frames that scrolled a band down (insert lines)."""

    def show(self, app: App, update: LayoutUpdate | ChopsUpdate) -> None:
        """Feeds ``update`` as Textual writes it and as the app's writer does."""
        wrapped = self.writer.wrap(app, update)
        assert isinstance(wrapped, FrameUpdate)
        plain = update.render_segments(_Console())  # Strip.render needs the colour system
        self.compare(
            plain,
            wrapped.render_segments(_Console()),
            wrapped.size,
            isinstance(update, LayoutUpdate),
        )

    def compare(self, plain: str, written: str, size: tuple[int, int], full: bool) -> None:
        for terminal in (self.plain, self.written):
            terminal.resize(size)
        self.plain.feed(plain)
        self.written.feed(written)
        self.plain_bytes += len(plain.encode())
        self.written_bytes += len(written.encode())
        self.written_frames.append(written)
        self.frames += 1
        self.full_updates += full
        self.scrolled_down += bool(re.search(r"\x1b\[\d+L", written))
        plain_cells, written_cells = self.plain.cells(), self.written.cells()
        for y, (want, got) in enumerate(zip(plain_cells, written_cells, strict=True)):
            assert got == want, (
                f"frame {self.frames}, row {y}:\n"
                f" Textual: {''.join(c[0] for c in want)!r}\n"
                f" written: {''.join(c[0] for c in got)!r}"
            )


class _Console:
    _color_system = ColorSystem.TRUECOLOR


def watch(app: App, twins: Twins) -> None:
    """Feeds every frame ``app`` displays to ``twins`` (the pilot's app draws nowhere)."""
    display = app._display

    def shown(screen, renderable):
        if isinstance(renderable, (LayoutUpdate, ChopsUpdate)):
            twins.show(app, renderable)
        return display(screen, renderable)

    app._display = shown


LINES = [f"line {n}: " + " ".join(f"word{n * 7 + k}" for k in range(n % 9 + 1)) for n in range(80)]
WIDE = [
    "漢字の行 — 中文字符与表情 🎉 and 🚀 here",
    "全角ＡＢＣ and half-width ｱｲｳ",
    "emoji 😀😃😄 end",
]


class ScrollingApp(App[None]):
    """A pane that scrolls as lines arrive, beside a panel of text: the workbench's shape."""

    CSS = """
    #pane { width: 76; border: round $accent; }
    #side { width: 1fr; border-left: solid $primary; }
    .line { height: auto; }
    .line.-odd { color: $warning; background: $boost; text-style: bold; }
    """

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield VerticalScroll(id="pane")
            yield Static(
                "context\n████░░░░\n12 / 128K tokens\n\ntodos\n- [ ] read\n- [x] write\n"
                "\n漢字 panel\n\ntool log\nread_file  ok",
                id="side",
            )

    async def add(self, text: str, n: int) -> None:
        pane = self.query_one("#pane", VerticalScroll)
        await pane.mount(Static(text, classes="line -odd" if n % 2 else "line"))
        pane.scroll_end(animate=False, immediate=True)


async def test_a_scrolling_pane_beside_a_panel_looks_the_same_and_is_scrolled():
    app = ScrollingApp()
    twins = Twins(SIZE)
    watch(app, twins)
    async with app.run_test(size=SIZE) as pilot:
        for n, line in enumerate(LINES[:60]):
            await app.add(line, n)
            await pilot.pause()
        assert twins.writer.scrolls >= 20, twins.writer.scrolls
        # scrolled back up a few rows at a time, then down again
        pane = app.query_one("#pane", VerticalScroll)
        for _ in range(6):
            pane.scroll_relative(y=-3, animate=False, immediate=True)
            await pilot.pause()
        for _ in range(3):
            pane.scroll_relative(y=2, animate=False, immediate=True)
            await pilot.pause()
        assert twins.scrolled_down > 0
        # a row changed in part: the panel's text
        app.query_one("#side", Static).update("context\n██████░░\n40 / 128K tokens")
        await pilot.pause()
    assert twins.frames > 60
    assert twins.written_bytes < twins.plain_bytes / 3, (twins.written_bytes, twins.plain_bytes)


async def test_the_scroll_is_used_instead_of_repainting_the_pane():
    """A regression of the scroll shows as frames that rewrite the whole pane."""
    app = ScrollingApp()
    twins = Twins(SIZE)
    watch(app, twins)
    async with app.run_test(size=SIZE) as pilot:
        for n, line in enumerate(LINES[:40]):
            await app.add(line, n)
            await pilot.pause()
        scrolls_before = twins.writer.scrolls
        first = len(twins.written_frames)
        for n, line in enumerate(LINES[40:60], 40):
            await app.add(line, n)
            await pilot.pause()
    # rows the cursor was moved to, in each frame that scrolled the pane
    rows_written = [
        len(set(re.findall(r"\x1b\[(\d+);\d+H", frame)))
        for frame in twins.written_frames[first:]
        if re.search(r"\x1b\[\d+M", frame)
    ]
    writer = twins.writer
    assert writer.scrolls - scrolls_before >= 15
    # the line that came in, the scroll bar and the panel's lines that moved; not 35 rows
    assert sorted(rows_written)[len(rows_written) // 2] <= 20, rows_written
    # only the full updates Textual itself asked for repainted everything
    assert writer.full_repaints == twins.full_updates


async def test_wide_characters_and_resizes_look_the_same():
    app = ScrollingApp()
    twins = Twins(SIZE)
    watch(app, twins)
    async with app.run_test(size=SIZE) as pilot:
        for n in range(30):
            await app.add(WIDE[n % len(WIDE)] if n % 2 else LINES[n], n)
            await pilot.pause()
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        for n in range(30, 45):
            await app.add(WIDE[n % len(WIDE)], n)
            await pilot.pause()
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        for n in range(45, 55):
            await app.add(LINES[n], n)
            await pilot.pause()
    assert twins.writer.scrolls > 0


async def test_the_workbench_streaming_an_answer_looks_the_same(fake_provider, tmp_path):
    answer = "\n\n".join(
        f"Paragraph {n}: "
        + " ".join(f"word{n * 40 + k}" for k in range(40))
        + (f"\n\n- item with `code` and **bold** {n}\n- 漢字 and 🎉 {n}" if n % 3 == 0 else "")
        for n in range(25)
    )
    fake_provider.script(Reply(text=answer, chunk_size=12, pause=0.004))
    app = app_for(fake_provider, tmp_path)
    twins = Twins(SIZE, app.frame_writer)  # what the workbench writes on a terminal
    watch(app, twins)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "explain")
        await until(pilot, lambda: not app.busy, timeout=60)
        await pilot.pause(0.3)
        assert app.query(AssistantBlock)
    assert twins.frames > 10
    assert app.frame_writer.scrolls > 0
    assert twins.written_bytes < twins.plain_bytes / 2, (twins.written_bytes, twins.plain_bytes)


async def test_what_was_drawn_while_suspended_is_written_again():
    """An external editor draws on the terminal: what the writer kept no longer holds."""
    app = ScrollingApp()
    twins = Twins(SIZE)
    watch(app, twins)
    async with app.run_test(size=SIZE) as pilot:
        for n, line in enumerate(LINES[:10]):
            await app.add(line, n)
            await pilot.pause()
        full_updates, frames = twins.full_updates, twins.frames
        app.app_suspend_signal.publish(app)
        for terminal in (twins.plain, twins.written):
            terminal.feed("\x1b[H\x1b[2J" + "an editor was here " * 200)
        app.app_resume_signal.publish(app)
        app.query_one("#side", Static).refresh()  # Textual redraws the panel, not the screen
        await pilot.pause()
        assert twins.frames > frames
        assert twins.full_updates == full_updates


async def test_graphemes_terminals_disagree_on_are_placed_again():
    """A heart with a variation selector is two cells for rich and one for many terminals
    (pyte cannot even draw what follows it): the writer places the cursor again after it,
    and keeps its cells as unknown, so they are written whenever Textual draws them."""
    app = ScrollingApp()
    writer = FrameWriter()
    written: list[str] = []
    display = app._display

    def shown(screen, renderable):
        wrapped = writer.wrap(app, renderable)
        if isinstance(wrapped, FrameUpdate):
            written.append(wrapped.render_segments(_Console()))
        return display(screen, renderable)

    app._display = shown
    async with app.run_test(size=SIZE) as pilot:
        for n in range(40):
            await app.add("love \u2764\ufe0f and a coder here" if n % 4 == 0 else LINES[n], n)
            await pilot.pause()
    hearts = [frame for frame in written if "\u2764" in frame]
    assert hearts and writer.scrolls > 0
    for frame in hearts:
        for match in re.finditer("\u2764\ufe0f", frame):
            assert re.match(r"\x1b\[\d+;\d+H", frame[match.end() :]), frame[match.start() :][:40]
    rows = ["".join(cell or "?" for cell in row) for row in writer._texts]
    assert any("love ???and a coder here" in row for row in rows), rows


def test_a_combining_mark_that_starts_a_run_joins_the_cell_before_it():
    """Textual may cut a styled run just before a combining accent: the accent still goes
    with the letter before it, and nothing after it moves."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.geometry import Region
    from textual.strip import Strip

    bold = Style(bold=True)
    lines = [
        [Strip([Segment("cafe"), Segment("\u0301 au lait", bold), Segment("   ")])],
        [Strip([Segment("x" * 16)])],
    ]
    twins = Twins((16, 2))
    for _ in range(2):  # drawn on an unknown screen, then on the kept one
        update = LayoutUpdate(lines, Region(0, 0, 16, 2))
        twins.compare(
            update.render_segments(_Console()),
            twins.writer.render(update, (16, 2), ColorSystem.TRUECOLOR),
            (16, 2),
            True,
        )
    assert twins.written.screen.display[0].startswith("caf\u00e9 au lait ")


def test_a_span_that_ends_inside_a_wide_character_is_cut_as_textual_cuts_it():
    from rich.segment import Segment
    from textual.geometry import Region
    from textual.strip import Strip

    size = (10, 1)
    twins = Twins(size)
    first = LayoutUpdate([[Strip([Segment("0123456789")])]], Region(0, 0, 10, 1))
    twins.compare(
        first.render_segments(_Console()),
        twins.writer.render(first, size, ColorSystem.TRUECOLOR),
        size,
        True,
    )
    for x2 in (3, 4, 5):  # the span ends inside 漢, after it, inside 字
        update = ChopsUpdate([{0: Strip([Segment("ab漢字cdef")])}], [(0, 0, x2)], [[10]])
        twins.compare(
            update.render_segments(_Console()),
            twins.writer.render(update, size, ColorSystem.TRUECOLOR),
            size,
            False,
        )
