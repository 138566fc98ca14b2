"""The workbench and the session's browser: the agent's browser tools use the app's browser,
and a new session closes it."""

from __future__ import annotations

from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until

from .conftest import needs_browser
from .test_browser_tools import group_processes

pytestmark = needs_browser


async def test_the_browser_belongs_to_the_session_and_new_closes_it(fake_provider, tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<title>Workbench page</title><p>hi</p>")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("webdriver_navigate", {"url": page.as_uri()})]),
        Reply(text="It is the workbench page."),
    )
    app = app_for(fake_provider, tmp_path, webdriver=True)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "open the page")
        await until(pilot, lambda: len(fake_provider.requests) == 2 and not app.busy, 60)
        assert "Page: Workbench page" in fake_provider.requests[1].tool_results()[0]["content"]
        browser = app.browser
        assert browser is not None and browser.running
        assert app.agent.tool_ctx.browser is browser
        pgid = browser._driver_pid
        assert group_processes(pgid)
        await type_prompt(pilot, "/new")
        await until(pilot, lambda: not browser.running and not group_processes(pgid), 30)
        assert app.browser is None
