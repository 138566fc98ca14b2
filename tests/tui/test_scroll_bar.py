"""The conversation's scroll bar, drawn without Rich's console, is Textual's cell for cell."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.scrollbar import ScrollBarRender
from textual.style import Style
from textual.widgets import Static

from agent_tui.tui.widgets.scroll_bar import ScrollBarVisual
from tests.tui.test_app import SIZE, app_for


class Scrolled(App[None]):
    """A pane of 300 long lines, its scroll bars drawn by ``renderer``."""

    def __init__(self, renderer: type[ScrollBarRender]) -> None:
        super().__init__()
        self.renderer = renderer

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("\n".join(f"line {n} " + "word " * 20 for n in range(300)),
                         expand=True)

    def on_mount(self) -> None:
        pane = self.query_one(VerticalScroll)
        pane.styles.overflow_x = "auto"
        pane.query_one(Static).styles.width = 110
        pane.vertical_scrollbar.renderer = self.renderer
        pane.horizontal_scrollbar.renderer = self.renderer


def cells(app: App) -> list[list[tuple[str, object]]]:
    """Every cell of the screen: its character and its full style (colours, and the mouse
    actions of the scroll bar's parts)."""
    return [[(char, segment.style) for segment in strip for char in segment.text]
            for strip in app.screen._compositor.render_strips()]


async def screens(renderer: type[ScrollBarRender]) -> list[list[list[tuple[str, object]]]]:
    app = Scrolled(renderer)
    shots = []
    async with app.run_test(size=(40, 17)) as pilot:
        pane = app.query_one(VerticalScroll)
        for x, y in ((0, 0), (1, 1), (7, 7), (30, 100), (41.5, 141.5), (50, 200),
                     (pane.max_scroll_x, pane.max_scroll_y)):
            pane.scroll_to(x=x, y=y, animate=False)
            await pilot.pause()
            shots.append(cells(app))
        await pilot.hover(VerticalScroll, offset=(39, 3))  # the hover colours
        await pilot.pause()
        shots.append(cells(app))
    return shots


async def test_the_scroll_bar_is_drawn_as_textuals_at_every_position():
    ours, textuals = await screens(ScrollBarVisual), await screens(ScrollBarRender)
    assert ours == textuals
    assert len({str(shot) for shot in ours}) == len(ours)  # the thumb did move


@pytest.mark.parametrize("width", [1, 2])
async def test_a_thick_or_thin_bar_has_one_strip_a_line(width):
    strips = ScrollBarVisual(virtual_size=300, window_size=17, position=100,
                             thickness=width).render_strips(width, 17, Style(), None)
    assert len(strips) == 17 and {strip.cell_length for strip in strips} == {width}


async def test_the_conversation_draws_its_scroll_bar_so(fake_provider, tmp_path):
    from agent_tui.tui.widgets.conversation import ConversationView

    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE):
        bar = app.query_one(ConversationView).vertical_scrollbar
        assert bar.renderer is ScrollBarVisual
