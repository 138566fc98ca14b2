"""Esc during a tool call in the workbench, then ``--continue``: the resumed history is one
the provider accepts (the fake rejects invalid ones as the real APIs do)."""

from __future__ import annotations

import io
import json

from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.app import make_app
from agent_tui.tui.cli.headless import run_headless
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall, history_problem
from tests.tui.test_app import SIZE, type_prompt, until


async def test_escape_mid_call_then_continue_sends_a_valid_history(fake_provider, tmp_path):
    fake_provider.validate_history = True
    marker = tmp_path / "started.txt"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": f"touch {marker}; sleep 30"}),
                          ToolCall("ls", {})]),
        Reply(text="Understood."))
    recorded = open_session(tmp_path, "openai/fake-model")  # as the agent-tui command does
    app = make_app(settings_for(fake_provider, approval_mode="yolo"), tmp_path,
                   load_litellm=False, session=recorded)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "run it")
        await until(pilot, lambda: marker.exists(), timeout=60)
        await pilot.press("escape")
        await until(pilot, lambda: not app.busy, timeout=60)
        await type_prompt(pilot, "never mind")
        await until(pilot, lambda: len(fake_provider.requests) == 2 and not app.busy,
                    timeout=60)
    close_session(recorded)

    fake_provider.script(Reply(text="Resumed."))
    opened = open_session(tmp_path, "openai/fake-model", continue_latest=True)
    out = io.StringIO()
    try:
        code = await run_headless(settings_for(fake_provider), tmp_path, "and now?",
                                  "stream-json", out, io.StringIO(), session=opened)
    finally:
        close_session(opened)

    result = [json.loads(line) for line in out.getvalue().splitlines()][-1]
    assert code == 0, result
    sent = fake_provider.requests[-1]
    assert history_problem(sent.api, sent.body) is None
    assert [r["content"] for r in sent.tool_results()] == [
        "Error: the person cancelled this call before it finished."] * 2
