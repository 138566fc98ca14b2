"""The ``delegate`` tool through the real loop: the fake provider's model calls it, the
scripted ACP delegate (a real subprocess) does the work through agent-tui's own calls, and
the model gets the delegate's answer as the call's one result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.approval import Allow, ApprovalRequest, ArgumentDetails
from agent_tui.core.events import Checkpoint, Event, ToolCallStarted, ToolResultEvent
from agent_tui.core.runtime.assembly import open_agent
from tests.core.delegates.test_code import configure
from tests.core.loop_helpers import run, settings_for
from tests.fakes.providers import FakeProvider, Reply, ToolCall


def project_with_input(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "input.txt").write_text("make me loud\n")
    return folder


def delegate_call(prompt: str = "shout the input", **args: Any) -> Reply:
    return Reply(text="Handing it over.", tool_calls=[
        ToolCall("delegate", {"prompt": prompt, **args}, id="call_d")])


async def test_the_model_gets_the_delegates_answer_and_the_write_is_the_turns(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    project = project_with_input(tmp_path)
    configure(in_project="true")
    fake_provider.script(delegate_call(), Reply(text="The delegate did it."))

    outcome = await run(fake_provider, project, "have it shouted", approval_mode="yolo")

    assert outcome.code == 0, outcome.stderr
    assert (project / "out.txt").read_text() == "MAKE ME LOUD\n"
    told = fake_provider.requests[1].tool_results()[-1]["content"]
    assert "scripted worked in the project" in told
    assert "the check said 'checked' (exit 0)" in told
    events = outcome.events
    kinds = [(e["type"], e.get("name"), e.get("phase")) for e in events]
    # The turn's before-snapshot precedes the delegate's write; its after-snapshot
    # follows the call: /undo and the review see the write as the turn's.
    before = kinds.index(("checkpoint", None, "before"))
    write = kinds.index(("tool_call", "write_file", None))
    ended = max(i for i, k in enumerate(kinds) if k[0] == "tool_result" and k[1] == "delegate")
    assert before < write < ended < max(i for i, k in enumerate(kinds)
                                        if k == ("checkpoint", None, "after"))
    # The delegate's own reported call is a line under the delegate call.
    assert any(e["type"] == "tool_call" and e.get("parent_id") == "call_d"
               and e["summary"] == "Write out.txt" for e in events)
    assert outcome.result["ok"] and outcome.result["text"] == "The delegate did it."


async def test_plan_mode_refuses_handing_work_away(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    project = project_with_input(tmp_path)
    configure(in_project="true")
    fake_provider.script(delegate_call(), Reply(text="I could not."))

    outcome = await run(fake_provider, project, "have it shouted", approval_mode="plan")

    assert not (project / "out.txt").exists()
    result = next(e for e in outcome.of_type("tool_result") if e["name"] == "delegate")
    assert not result["ok"]
    assert "plan mode" in fake_provider.requests[1].tool_results()[-1]["content"]
    assert not any(e.get("parent_id") for e in outcome.of_type("tool_call"))


async def test_default_mode_asks_showing_the_delegate_and_the_prompt(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    project = project_with_input(tmp_path)
    configure(in_project="true")
    fake_provider.script(delegate_call(), Reply(text="Done."))
    asked: list[ApprovalRequest] = []

    class AllowingApprover:
        async def ask(self, request: ApprovalRequest, preview: Any = None) -> Allow:
            asked.append(request)
            return Allow()

        def remembered(self, saved: Any) -> None:
            pass

        async def review_summary(self, summary: str) -> str:
            return summary

    events: list[Event] = []
    agent = await open_agent(settings_for(fake_provider), project, AllowingApprover(),
                             events.append)
    assert "delegate" in agent.registry.names

    result = await agent.run("have it shouted")

    assert result.ok, result.error
    first = asked[0]
    assert first.tool == "delegate" and first.summary == "delegate (scripted): shout the input"
    assert isinstance(first.details, ArgumentDetails)
    assert "shout the input" in first.details.arguments
    # Then the delegate's own permission request and its write, asked while the call runs.
    assert [r.tool for r in asked[1:3]] == ["delegate", "write_file"]
    assert asked[1].call_id.startswith("call_d/")
    assert (project / "out.txt").read_text() == "MAKE ME LOUD\n"
    ended = next(e for e in events if isinstance(e, ToolResultEvent) and e.id == "call_d")
    assert ended.ok and "the check said 'checked'" in ended.output
    assert any(isinstance(e, Checkpoint) and e.phase == "after" for e in events)
    lines = [e for e in events if isinstance(e, ToolCallStarted) and e.parent_id == "call_d"]
    assert [e.summary for e in lines] == ["Write out.txt"]


async def test_not_offered_without_a_delegate(fake_provider: FakeProvider,
                                              tmp_path: Path) -> None:
    agent = await open_agent(settings_for(fake_provider), tmp_path, None,  # type: ignore[arg-type]
                             lambda event: None)

    assert "delegate" not in agent.registry.names
    assert agent.tool_ctx.run_delegate is None


async def test_an_agent_that_is_itself_a_delegate_offers_none(
        fake_provider: FakeProvider, tmp_path: Path, monkeypatch: Any) -> None:
    """agent-tui run as a delegate reads the same user config: it must not hand the work on
    to a delegate (itself, possibly) again."""
    configure(in_project="true")
    monkeypatch.setenv("AGENT_TUI_DELEGATED", "scripted")
    agent = await open_agent(settings_for(fake_provider), tmp_path, None,  # type: ignore[arg-type]
                             lambda event: None)

    assert "delegate" not in agent.registry.names


async def test_a_project_that_does_not_exist_is_named_to_the_model(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    project = project_with_input(tmp_path)
    configure()
    fake_provider.script(delegate_call(project="nowhere"), Reply(text="No such project."))

    outcome = await run(fake_provider, project, "go on", approval_mode="yolo")

    told = fake_provider.requests[1].tool_results()[-1]["content"]
    assert "No project 'nowhere'" in told and "/code PROMPT starts one" in told
    assert outcome.code == 0


async def test_the_cost_the_delegate_reports_counts_in_the_runs_usage(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    project = project_with_input(tmp_path)
    configure(in_project="true")
    fake_provider.script(delegate_call("direct costly"), Reply(text="Done."))

    outcome = await run(fake_provider, project, "go", approval_mode="yolo")

    assert (project / "direct.txt").exists()
    told = fake_provider.requests[1].tool_results()[-1]["content"]
    assert "it reported a cost of $0.2500" in told
    assert outcome.result["usage"]["cost"] >= 0.25
