"""The compaction review: the person reads and edits the summary before it applies."""

from __future__ import annotations

from textual.app import App

from agent_tui.tui.screens.compaction import CompactionScreen


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.result: str | None = None

    def on_mount(self) -> None:
        self.push_screen(CompactionScreen("The task: fix the parser."),
                         lambda summary: setattr(self, "result", summary))


async def test_ctrl_s_applies_the_edited_summary():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        editor = app.screen.query_one("#compaction-summary")
        editor.text = "The task: fix the parser. Decided: keep the old API."
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.result == "The task: fix the parser. Decided: keep the old API."


async def test_escape_applies_it_as_the_model_wrote_it():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        app.screen.query_one("#compaction-summary").text = "something else"
        await pilot.press("escape")
        await pilot.pause()
    assert app.result == "The task: fix the parser."
