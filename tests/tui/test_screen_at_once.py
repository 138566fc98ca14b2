"""The workbench's screen draws a change as soon as it is idle, not at its update timer's
next tick (tui/screen_at_once.py)."""

from __future__ import annotations

import asyncio

import pytest
from textual import screen as textual_screen
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from agent_tui.tui.screen_at_once import AtOnceScreen


class Frames(App[None]):
    """A line of text on a screen of the given kind, counting the frames displayed."""

    def __init__(self, screen_class: type[Screen[None]]) -> None:
        super().__init__()
        self.screen_class = screen_class
        self.frames = 0

    def get_default_screen(self) -> Screen[None]:
        return self.screen_class()

    def compose(self) -> ComposeResult:
        yield Static("before", id="line")

    def _display(self, screen, renderable) -> None:
        if renderable is not None:
            self.frames += 1
        super()._display(screen, renderable)


@pytest.mark.parametrize("screen_class, drawn", [(AtOnceScreen, True), (Screen, False)])
async def test_a_change_is_drawn_when_the_screen_is_idle_not_at_the_timer(monkeypatch,
                                                                          screen_class, drawn):
    # A timer of 10 s: a change drawn within the test was not drawn by it.
    monkeypatch.setattr(textual_screen, "UPDATE_PERIOD", 10.0)
    app = Frames(screen_class)
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause(0.1)
        await asyncio.sleep(0.05)  # the pilot drew a frame: one frame's interval after it
        before = app.frames
        app.query_one("#line", Static).update("after")
        await asyncio.sleep(0.2)  # not the pilot's pause: it draws a frame itself
        assert (app.frames > before) is drawn


async def test_the_workbench_runs_on_that_screen(fake_provider, tmp_path):
    from tests.tui.test_app import SIZE, app_for

    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, AtOnceScreen)
        assert app.screen.id == "_default"
