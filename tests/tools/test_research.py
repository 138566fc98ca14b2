"""Tests of research: a real sub-agent through litellm to the fake provider, browsing a local site."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.events import Event
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.research import RESEARCH_TOOLS, ResearchTool
from agent_tui.tools.web import WebFetchTool
from agent_tui.tools.web_search import WebSearchTool
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall
from tests.tools.test_web import LocalSite, Page

BRIEF = """## Question
Which retry library should the project use?

## Findings
- The guide recommends tenacity ([guide](http://site/guide)).

## Options
- tenacity: mature; one more dependency.
- hand-written loop: no dependency; easy to get wrong.

## Recommendation
Use tenacity."""


@pytest.fixture
def site() -> Iterator[LocalSite]:
    with LocalSite() as s:
        yield s


def registry() -> ToolRegistry:
    """The built-in tools, with the web tools even if builtin.py should lose them."""
    tools = builtin_tools()
    names = {t.name for t in tools}
    tools += [t for t in (WebFetchTool(), WebSearchTool(), ResearchTool())
              if t.name not in names]
    return ToolRegistry(tools)


async def test_research_runs_a_sub_agent_that_fetches_and_returns_a_brief(
        fake_provider, site: LocalSite, tmp_path: Path) -> None:
    site.routes["/guide"] = Page("<title>Retry guide</title><h1>Retrying</h1>"
                                 "<p>Use tenacity for retries.</p>")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("research", {"query": "Which retry library?"})]),
        # the sub-agent
        Reply(tool_calls=[ToolCall("web_fetch", {"url": site.url("/guide")})]),
        Reply(text=BRIEF),
        # the main agent again
        Reply(text="Research says: use tenacity."),
    )
    settings = settings_for(fake_provider, approval_mode="yolo", network=True)
    events: list[Event] = []
    agent = Agent(LitellmProvider(settings), registry(), settings, tmp_path,
                  HeadlessApprover("yolo"), events.append)

    result = await agent.run("research retries")

    assert result.ok, result.error
    assert result.text == "Research says: use tenacity."
    sub_first, sub_second, main_second = fake_provider.requests[1:4]
    assert "Which retry library?" in sub_first.last_user_text()
    assert "## Recommendation" in sub_first.last_user_text()
    offered = {tool["function"]["name"] for tool in sub_first.tools}
    assert {"web_fetch", "web_search", "read_file"} <= offered <= set(RESEARCH_TOOLS)
    assert "Use tenacity for retries." in sub_second.tool_results()[0]["content"]
    [brief] = main_second.tool_results()
    assert brief["content"] == BRIEF
    calls = [e.to_dict() for e in events if e.to_dict()["type"] == "tool_call"]
    assert [c["name"] for c in calls] == ["research", "web_fetch"]
    assert calls[1]["args"] == {"url": site.url("/guide")}
    assert [r.path for r in site.requests] == ["/guide"]


async def test_a_brief_without_the_sections_comes_back_with_a_note(tmp_path: Path) -> None:
    prompts: list[tuple[str, list[str]]] = []

    async def sub_agent(prompt: str, tools: list[str]) -> str:
        prompts.append((prompt, tools))
        return "Just use tenacity."

    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path, network_enabled=True,
                      run_subagent=sub_agent)
    result = await ResearchTool().build({"query": "retries?"}, ctx).execute()

    assert result.ok
    assert result.llm_content.startswith("Just use tenacity.")
    assert "lacks the section(s) Question, Findings, Options, Recommendation" in \
        result.llm_content
    [(prompt, tools)] = prompts
    assert "Question: retries?" in prompt
    assert tools == RESEARCH_TOOLS


async def test_sub_agent_failure_and_absence_are_errors(tmp_path: Path) -> None:
    async def failing(prompt: str, tools: list[str]) -> str:
        raise RuntimeError("the provider gave up after 3 retries")

    none = ToolContext(workdir=tmp_path, output_dir=tmp_path, network_enabled=True)
    broken = ToolContext(workdir=tmp_path, output_dir=tmp_path, network_enabled=True,
                         run_subagent=failing)

    missing = await ResearchTool().build({"query": "q"}, none).execute()
    failed = await ResearchTool().build({"query": "q"}, broken).execute()

    assert not missing.ok and "web_search and web_fetch" in missing.error
    assert not failed.ok and "the provider gave up after 3 retries" in failed.error


def test_network_off_and_confirmation(tmp_path: Path) -> None:
    off = ToolContext(workdir=tmp_path, output_dir=tmp_path)
    with pytest.raises(ToolArgumentError, match="/net on or --net"):
        ResearchTool().build({"query": "q"}, off)
    on = ToolContext(workdir=tmp_path, output_dir=tmp_path, network_enabled=True)
    confirmation = ResearchTool().build({"query": "best retry library"}, on).confirmation()
    assert ResearchTool.kind == ToolKind.FETCH
    assert confirmation.kind == "info" and confirmation.details == "best retry library"
