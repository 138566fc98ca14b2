"""Ctrl+C in the workbench, as in other terminal agents: cancel, clear, then quit."""

from __future__ import annotations

import asyncio

from agent_tui.tui.widgets.conversation import NoticeBlock
from agent_tui.tui.widgets.prompt import PromptInput
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until


def _toasts(app):
    return [str(n.message) for n in app._notifications]


async def test_ctrl_c_during_a_turn_cancels_it(fake_provider, tmp_path):
    marker = tmp_path / "pid.txt"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": f"echo $$ > {marker}; sleep 30"})]),
    )
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "run it")
        await until(pilot, lambda: marker.exists() and marker.read_text().strip())
        assert app.focused is app.query_one(PromptInput)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.busy)
        await until(
            pilot, lambda: any("Cancelled" in str(n.render()) for n in app.query(NoticeBlock))
        )
        assert "Cancelled the turn." in _toasts(app)
        assert app.is_running


async def test_ctrl_c_idle_clears_the_prompt_and_keeps_the_app(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.text = "half a thought"
        prompt.focus()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert prompt.text == ""
        assert _toasts(app) == ["Cleared the prompt."]
        assert app.is_running


async def test_ctrl_c_twice_on_an_empty_prompt_quits(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert app.focused is app.query_one(PromptInput)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert _toasts(app) == ["Press Ctrl+C again to quit."]
        assert app.is_running
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code in (None, 0)


async def test_a_single_ctrl_c_on_an_empty_prompt_does_not_quit(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        await asyncio.sleep(1.2)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        assert _toasts(app)[-1] == "Press Ctrl+C again to quit."
