"""``/context`` opens at once and says it is loading while the agent starts and the tokens
are counted, through the real workbench."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from agent_tui.tui.screens.context_inspector import ContextInspector
from agent_tui.tui.widgets.waiting import SPINNER, WaitingLine
from tests.tui.test_app import SIZE, app_for, type_prompt, until


async def test_context_shows_a_spinner_while_it_loads_then_the_items(
    fake_provider: Any, tmp_path: Path
) -> None:
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        started = asyncio.Event()
        build = app.ensure_agent

        async def slow_agent() -> Any:  # an agent that takes a while to start, as litellm's
            await started.wait()  # first import does
            return await build()

        app.ensure_agent = slow_agent  # type: ignore[method-assign]
        # A workbench that waited for the agent before opening the screen would hang here
        # (Enter is handled only once the command is done): the agent starts at the latest
        # after a minute, and the test fails instead.
        asyncio.get_running_loop().call_later(60, started.set)
        await type_prompt(pilot, "/context")
        try:  # the screen opens before the agent is there, and says it is loading
            await until(pilot, lambda: isinstance(app.screen, ContextInspector))
            screen = app.screen
            line = screen.query_one(WaitingLine)
            await until(pilot, lambda: line.display and line.has_class("-shown"))
            shown = str(line.render())
            assert shown[0] in SPINNER
            assert "starting the agent" in shown or "loading the model library" in shown
            assert " s" in shown  # how long so far
            assert not screen.loaded and screen.query_one(DataTable).row_count == 0
        finally:
            started.set()
        await until(pilot, lambda: screen.loaded, 60)
        await pilot.pause()
        assert not line.has_class("-shown")
        kinds = [
            str(row[1])
            for row in (
                screen.query_one(DataTable).get_row_at(i)
                for i in range(screen.query_one(DataTable).row_count)
            )
        ]
        assert kinds[:2] == ["system", "tools"]
        await pilot.press("escape")


async def test_context_says_when_the_lean_tool_set_is_in_use(
    fake_provider: Any, tmp_path: Path
) -> None:
    for window, lean in ((8000, True), (32_000, False)):
        total, tools = await context_header(fake_provider, tmp_path, window)
        assert ("lean tool set" in total) is lean, total
        assert ("6 tools" in tools) is lean, tools


async def context_header(fake_provider: Any, tmp_path: Path, window: int) -> tuple[str, str]:
    """/context's total line and its tools row, with a context window of ``window``."""
    from textual.widgets import Label

    app = app_for(fake_provider, tmp_path, context_window=window)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/context")
        await until(pilot, lambda: isinstance(app.screen, ContextInspector))
        screen = app.screen
        await until(pilot, lambda: screen.loaded, 60)
        await pilot.pause()
        total = str(screen.query_one("#context-total", Label).render())
        return total, str(screen.query_one(DataTable).get_row_at(1)[4])


async def test_context_lists_the_repository_map_and_a_dropped_map_is_not_sent_again(
    fake_provider: Any, tmp_path: Path
) -> None:
    """/context shows the repository map as one row with its tokens, last (it is sent
    after the history); x drops it, and the next request goes without it."""
    from agent_tui.core.context import repo_map as repo_map_module
    from agent_tui.tui.screens import context_inspector
    from tests.core.context.test_repo_map import project
    from tests.core.context.test_repo_map_loop import map_messages
    from tests.fakes.providers import Reply

    assert context_inspector.REPO_MAP_INDEX == repo_map_module.REPO_MAP_INDEX
    project(tmp_path)
    fake_provider.script(Reply(text="first"), Reply(text="second"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/context")  # before any turn: the map to be sent
        await until(pilot, lambda: isinstance(app.screen, ContextInspector) and app.screen.loaded,
                    60)
        table = app.screen.query_one(DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        assert [str(row[1]) for row in rows][-1] == "repo map"
        assert "repository map: 5 files" in str(rows[-1][4])
        await pilot.press("escape")

        await type_prompt(pilot, "hello")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1, 60)
        sent = map_messages(fake_provider.requests[0])
        assert len(sent) == 1 and "app/store.py" in sent[0]

        await type_prompt(pilot, "/context")
        await until(pilot, lambda: isinstance(app.screen, ContextInspector) and app.screen.loaded)
        screen = app.screen
        table = screen.query_one(DataTable)
        row = [str(table.get_row_at(i)[1]) for i in range(table.row_count)].index("repo map")
        tokens = int(str(table.get_row_at(row)[2]).replace(",", ""))
        assert tokens == app.agent.repo_map.tokens > 0
        table.move_cursor(row=row)
        await pilot.press("x")
        await until(pilot, lambda: screen.loaded)
        await pilot.pause()
        kinds = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert "repo map" not in kinds
        await pilot.press("escape")

        await type_prompt(pilot, "again")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2, 60)
        assert map_messages(fake_provider.requests[1]) == []
