"""A cancelled turn ends every call of its response with a result event: front ends never
show a call as waiting or running after the cancel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.events import Event, ToolResultEvent
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.tools.base import ErrorType
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
    assert {e.to_dict()["error_type"] for e in ended.values()} == {ErrorType.CANCELLED}
    assert "cancelled" in ended["call_running"].output
    assert ended["call_running"].duration > 0
    assert not (tmp_path / "never.txt").exists()


class NobodyAnswers:
    """A person who never answers: the call waits for approval until the cancel."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def ask(self, request: Any, preview: Any = None) -> Any:
        self.asked.set()
        await asyncio.Event().wait()

    def remembered(self, saved: Any) -> None:
        pass

    async def review_summary(self, summary: str) -> str:
        return summary


async def test_a_call_cancelled_while_it_waits_for_approval_ends_cancelled(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    fake_provider.script(Reply(tool_calls=[
        ToolCall("shell", {"command": "touch asked.txt"}, id="call_asking")]))
    config = settings_for(fake_provider)
    events: list[Event] = []
    approver = NobodyAnswers()
    agent = Agent(LitellmProvider(config), ToolRegistry(builtin_tools()), config, tmp_path,
                  approver, events.append)
    turn = asyncio.create_task(agent.run("go"))
    await asyncio.wait_for(approver.asked.wait(), 60)
    turn.cancel()
    await asyncio.gather(turn, return_exceptions=True)

    (ended,) = [e for e in events if isinstance(e, ToolResultEvent)]
    assert (ended.id, ended.ok, ended.cancelled) == ("call_asking", False, True)
    assert not (tmp_path / "asked.txt").exists()
