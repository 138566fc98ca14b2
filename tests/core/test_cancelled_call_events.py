"""A cancelled turn ends every call of its response with a result event: front ends never
show a call as waiting or running after the cancel."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.events import Event, ToolResultEvent
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import FakeProvider, Reply, ToolCall


async def test_a_cancel_ends_the_running_call_and_the_ones_after_it_as_cancelled(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    marker = tmp_path / "started"
    fake_provider.script(Reply(tool_calls=[
        ToolCall("shell", {"command": f"touch {marker}; sleep 30"}, id="call_running"),
        ToolCall("shell", {"command": "touch never.txt"}, id="call_next"),
    ]))
    config = settings_for(fake_provider, approval_mode="yolo")
    events: list[Event] = []
    agent = Agent(LitellmProvider(config), ToolRegistry(builtin_tools()), config, tmp_path,
                  HeadlessApprover("yolo"), events.append)
    turn = asyncio.create_task(agent.run("go"))
    for _ in range(300):
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    assert marker.exists(), "the first call never started"
    turn.cancel()
    await asyncio.gather(turn, return_exceptions=True)

    ended = {e.id: e for e in events if isinstance(e, ToolResultEvent)}
    assert set(ended) == {"call_running", "call_next"}
    assert all(e.cancelled and not e.ok for e in ended.values())
    assert "cancelled" in ended["call_running"].output
    assert ended["call_running"].duration > 0
    assert not (tmp_path / "never.txt").exists()
