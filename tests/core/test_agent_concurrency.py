"""Read-only calls of one response run concurrently; anything else runs one after another."""

from __future__ import annotations

import asyncio
import time

from pydantic import Field

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.tools.base import Invocation, Tool, ToolKind, ToolParams, ToolResult
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall


class _WaitParams(ToolParams):
    label: str = Field(description="A name for the call.")


class _WaitInvocation(Invocation[_WaitParams]):
    spans: list[tuple[str, float, float]] = []

    def describe(self) -> str:
        return f"{self.tool.name} {self.params.label}"

    async def execute(self, on_output=None) -> ToolResult:
        start = time.monotonic()
        await asyncio.sleep(0.3)
        self.spans.append((self.params.label, start, time.monotonic()))
        return ToolResult(llm_content=f"waited {self.params.label}")


class WaitRead(Tool):
    name = "wait_read"
    kind = ToolKind.READ
    description = "Waits, reading nothing."
    Params = _WaitParams

    def create_invocation(self, params, ctx):
        return _WaitInvocation(self, params, ctx)


class WaitEdit(WaitRead):
    name = "wait_edit"
    kind = ToolKind.EDIT


def _overlap(spans):
    (_, s1, e1), (_, s2, e2) = sorted(spans, key=lambda span: span[1])
    return s2 < e1


async def _run_calls(fake, tmp_path, tool_name):
    _WaitInvocation.spans = []
    fake.script(
        Reply(tool_calls=[ToolCall(tool_name, {"label": "one"}),
                          ToolCall(tool_name, {"label": "two"})]),
        Reply(text="done"),
    )
    settings = settings_for(fake, approval_mode="yolo")
    agent = Agent(LitellmProvider(settings), ToolRegistry([WaitRead(), WaitEdit()]), settings,
                  tmp_path, HeadlessApprover("yolo"), lambda event: None)
    result = await agent.run("wait twice")
    assert result.ok
    assert [r["content"] for r in fake.requests[1].tool_results()] == ["waited one", "waited two"]
    return list(_WaitInvocation.spans)


async def test_read_only_calls_overlap(fake_provider, tmp_path):
    assert _overlap(await _run_calls(fake_provider, tmp_path, "wait_read"))


async def test_edit_calls_run_one_after_another(fake_provider, tmp_path):
    spans = await _run_calls(fake_provider, tmp_path, "wait_edit")
    assert not _overlap(spans)
    assert [label for label, _, _ in spans] == ["one", "two"]
