"""The task tool: real sub-agents through litellm to the fake provider, their calls through the
parent's approver and hooks, read-only tasks of one response at once."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent import Agent
from agent_tui.core.approval import ApprovalRequest, Decision, Deny, HeadlessApprover
from agent_tui.core.events import Event, ToolCallStarted, ToolResultEvent
from agent_tui.core.knowledge import load_knowledge
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.core.sessions.log import SessionStore, read_events
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tui.cli.headless import run_headless
from tests.core.hooks.conftest import hook_entry
from tests.core.loop_helpers import run, settings_for
from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall

SUB_AGENT = "You are a sub-agent"
"""How a sub-agent's request is told from its parent's: its prompt starts so."""


def task(description: str, prompt: str, **more: Any) -> ToolCall:
    return ToolCall("task", {"description": description, "prompt": prompt, **more})


def first_user_text(request: RecordedRequest) -> str:
    return next((m["content"] for m in request.messages if m["role"] == "user"
                 and isinstance(m["content"], str)), "")


def agent_for(fake: FakeProvider, workdir: Path, approver: Any, events: list[Event],
              **overrides: Any) -> Agent:
    settings = settings_for(fake, **overrides)
    return Agent(LitellmProvider(settings), ToolRegistry(builtin_tools(settings)), settings,
                 workdir, approver, events.append, knowledge=load_knowledge(workdir, settings))


class DenyingApprover(HeadlessApprover):
    """A person who refuses every call, saying why."""

    def __init__(self) -> None:
        super().__init__("default")
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest, preview: Any = None) -> Decision:
        self.asked.append(request)
        return Deny("not in this file")


async def test_read_only_tasks_of_one_response_run_at_once_and_each_answers_once(
        tmp_path: Path) -> None:
    (tmp_path / "alpha.txt").write_text("alpha says 1\n")
    (tmp_path / "beta.txt").write_text("beta says 2\n")
    both_asked = threading.Barrier(2, timeout=30)
    apart: list[str] = []

    def responder(request: RecordedRequest) -> Reply:
        prompt = first_user_text(request)
        if SUB_AGENT not in prompt:
            return Reply("Both sub-agents answered.")
        name = "alpha" if "alpha.txt" in prompt else "beta"
        if not request.tool_results():
            # Each child's first request waits here for the other's: they overlap, or the
            # barrier breaks after its timeout and the test fails.
            try:
                both_asked.wait()
            except threading.BrokenBarrierError:
                apart.append(name)
            return Reply(tool_calls=[ToolCall("read_file", {"file_path": f"{name}.txt"})])
        return Reply(f"{name}.txt: {request.tool_results()[0]['content'].strip()}")

    with FakeProvider(responder) as fake:
        fake.script(Reply(tool_calls=[
            task("Read alpha", "Read alpha.txt and say what it says.", read_only=True),
            task("Read beta", "Read beta.txt and say what it says.", read_only=True)]))
        events: list[Event] = []
        agent = agent_for(fake, tmp_path, HeadlessApprover("default"), events)
        result = await agent.run("what do alpha and beta say?")
        requests = fake.requests

    assert result.ok, result.error
    assert apart == [], "the two read-only tasks did not run at the same time"
    children = [r for r in requests if SUB_AGENT in first_user_text(r)]
    assert len(children) == 4
    offered = {tool["function"]["name"] for tool in children[0].tools}
    assert "read_file" in offered and not offered & {"task", "research", "write_file"}
    last = requests[-1]
    [a, b] = last.tool_results()
    assert "alpha says 1" in a["content"] and "beta says 2" in b["content"]
    tasks = [e for e in events if isinstance(e, ToolCallStarted) and e.parent_id is None]
    assert [e.name for e in tasks] == ["task", "task"]
    assert [e.summary for e in tasks] == ["task: Read alpha", "task: Read beta"]
    assert {a["id"], b["id"]} == {e.id for e in tasks}
    lane = [e for e in events if isinstance(e, ToolCallStarted) and e.parent_id is not None]
    assert sorted(e.parent_id or "" for e in lane) == sorted(e.id for e in tasks)
    assert all(e.id.startswith(f"{e.parent_id}/") for e in lane)
    # the children's tokens count in the run's and the session's usage
    assert result.usage == agent.usage and result.usage.prompt_tokens > 0


async def test_a_childs_write_goes_through_approval_and_the_child_hears_the_denial(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    fake_provider.script(
        Reply(tool_calls=[task("Write notes", "Write notes.txt with the word hello.")]),
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "notes.txt",
                                                  "content": "hello\n"})]),
        Reply("I could not write notes.txt: the person refused."),
        Reply("The sub-agent was refused."),
    )
    approver = DenyingApprover()
    events: list[Event] = []
    agent = agent_for(fake_provider, tmp_path, approver, events)

    result = await agent.run("make notes")

    assert result.ok, result.error
    assert not (tmp_path / "notes.txt").exists()
    [asked] = approver.asked
    task_id = fake_provider.requests[3].tool_results()[0]["id"]
    assert asked.tool == "write_file" and asked.call_id.startswith(f"{task_id}/")
    [denied] = fake_provider.requests[2].tool_results()
    assert "not in this file" in denied["content"]
    [answer] = fake_provider.requests[3].tool_results()
    assert answer["content"] == "I could not write notes.txt: the person refused."
    child_result = next(e for e in events if isinstance(e, ToolResultEvent)
                        and e.parent_id == task_id)
    assert (child_result.name, child_result.ok, child_result.id) == (
        "write_file", False, asked.call_id)


async def test_hooks_fire_on_a_childs_calls(fake_provider: FakeProvider, tmp_path: Path,
                                            agent_tui_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("A\n")
    seen = tmp_path / "seen.jsonl"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"cat >> {seen}\necho >> {seen}\n")
    (agent_tui_home / "config.toml").write_text(
        hook_entry("PreToolUse", f"bash {hook}", matcher="read_file"))
    fake_provider.script(
        Reply(tool_calls=[task("Read a", "Read a.txt.", read_only=True)]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
        Reply("a.txt says A."),
        Reply("Done."),
    )
    agent = agent_for(fake_provider, project, HeadlessApprover("default"), [])

    result = await agent.run("read a")

    assert result.ok, result.error
    [call] = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert (call["tool_name"], call["tool_input"]) == ("read_file", {"file_path": "a.txt"})


async def test_a_persona_gives_the_child_its_prompt_its_tools_and_its_stricter_mode(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    fake_provider.script(
        Reply(tool_calls=[task("Review", "Review the last change.", persona="reviewer")]),
        Reply(tool_calls=[ToolCall("shell", {"command": "touch x.txt"})]),
        Reply("Nothing to fix."),
        Reply("The reviewer found nothing."),
    )
    events: list[Event] = []
    agent = agent_for(fake_provider, tmp_path, HeadlessApprover("yolo"), events,
                      approval_mode="yolo")

    result = await agent.run("review it")

    assert result.ok, result.error
    parent, child, child_again = fake_provider.requests[:3]
    [task_tool] = [t for t in parent.tools if t["function"]["name"] == "task"]
    assert "- reviewer: Reviews code" in task_tool["function"]["description"]
    assert "(read-only)" in task_tool["function"]["description"]
    assert "You are a senior code reviewer" in child.messages[0]["content"]
    offered = {tool["function"]["name"] for tool in child.tools}
    assert "read_file" in offered and "write_file" not in offered
    # the reviewer's plan mode, although the session is in yolo mode
    assert "plan mode" in child_again.tool_results()[0]["content"]
    assert not (tmp_path / "x.txt").exists()


async def test_an_unknown_persona_is_an_error_naming_the_personas(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    fake_provider.script(
        Reply(tool_calls=[task("Review", "Review it.", persona="nobody")]),
        Reply("I will do it myself."),
    )
    agent = agent_for(fake_provider, tmp_path, HeadlessApprover("default"), [])

    result = await agent.run("review it")

    assert result.ok, result.error
    [error] = fake_provider.requests[1].tool_results()
    assert "no persona called 'nobody'" in error["content"]
    assert "reviewer" in error["content"]
    assert len(fake_provider.requests) == 2  # no sub-agent was started


async def test_stream_json_shows_the_childs_events_with_the_tasks_id(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("A\n")
    fake_provider.script(
        Reply(tool_calls=[task("Read a", "Read a.txt.", read_only=True)]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
        Reply("a.txt says A."),
        Reply("Done."),
    )

    ran = await run(fake_provider, tmp_path, "read a")

    assert ran.code == 0, ran.stderr
    [parent, child] = ran.of_type("tool_call")
    assert "parent_id" not in parent
    assert child["parent_id"] == parent["id"] and child["name"] == "read_file"
    child_result, parent_result = ran.of_type("tool_result")
    assert child_result["parent_id"] == parent["id"] and child_result["ok"]
    assert (parent_result["id"], parent_result["output"]) == (parent["id"], "a.txt says A.")


async def test_tasks_that_may_write_run_one_after_another(tmp_path: Path) -> None:
    (tmp_path / "alpha.txt").write_text("1\n")
    (tmp_path / "beta.txt").write_text("2\n")
    order: list[tuple[str, int]] = []

    def responder(request: RecordedRequest) -> Reply:
        prompt = first_user_text(request)
        if SUB_AGENT not in prompt:
            return Reply("Done.")
        name = "alpha" if "alpha.txt" in prompt else "beta"
        order.append((name, len(request.tool_results())))
        if not request.tool_results():
            return Reply(tool_calls=[ToolCall("read_file", {"file_path": f"{name}.txt"})])
        return Reply(f"{name} read")

    with FakeProvider(responder) as fake:
        fake.script(Reply(tool_calls=[task("Alpha", "Read alpha.txt, then fix it."),
                                      task("Beta", "Read beta.txt, then fix it.")]))
        result = await agent_for(fake, tmp_path, HeadlessApprover("default"), []).run("fix")

    assert result.ok, result.error
    assert order == [("alpha", 0), ("alpha", 1), ("beta", 0), ("beta", 1)]


async def test_headless_text_shows_a_childs_calls_under_its_task(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("A\n")
    fake_provider.script(
        Reply(tool_calls=[task("Read a", "Read a.txt.", read_only=True)]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
        Reply("a.txt says A."),
        Reply("Done."),
    )
    out, err = io.StringIO(), io.StringIO()

    code = await run_headless(settings_for(fake_provider), tmp_path, "read a", "text", out, err)

    assert code == 0, err.getvalue()
    lines = err.getvalue().splitlines()
    start = lines.index("● task: Read a")
    assert lines[start + 1].startswith("    ● read_file")
    assert lines[start + 2].startswith("      ✓ read_file")
    assert lines[start + 3].startswith("  ✓ task")
    assert out.getvalue() == "Done.\n"


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_a_session_with_a_task_resumes_with_the_tasks_one_result(
        fake_provider: FakeProvider, tmp_path: Path, api: str) -> None:
    (tmp_path / "a.txt").write_text("A\n")
    fake_provider.script(
        Reply(tool_calls=[task("Read a", "Read a.txt.", read_only=True)]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
        Reply("a.txt says A."),
        Reply("Done."),
        Reply("Resumed."),
    )
    settings = settings_for(fake_provider, anthropic=api == "anthropic")

    def agent(store: SessionStore) -> Agent:
        return Agent(LitellmProvider(settings), ToolRegistry(builtin_tools(settings)), settings,
                     tmp_path, HeadlessApprover("default"), lambda event: None, session=store)

    store = SessionStore.create("with-task", project=tmp_path, model="fake")
    try:
        assert (await agent(store).run("read a")).ok
    finally:
        store.close()
    store = SessionStore.open("with-task")
    try:
        resumed = agent(store)
        resumed.restore(read_events("with-task"))
        result = await resumed.run("and now?")
    finally:
        store.close()

    assert result.ok, result.error  # the fake rejects a history the API would
    [answer] = fake_provider.requests[-1].tool_results()
    assert answer["content"] == "a.txt says A."


async def test_a_personas_model_answers_its_tasks_and_a_projects_does_not_until_trusted(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    from agent_tui.core import paths

    project = tmp_path / "project"
    (project / ".agent-tui" / "agents").mkdir(parents=True)
    paths.user_agents_dir().mkdir(parents=True, exist_ok=True)
    persona = "---\nmodel: openai/{model}\n---\nYou answer quickly.\n"
    (paths.user_agents_dir() / "quick.md").write_text(persona.format(model="quick-model"))
    (project / ".agent-tui" / "agents" / "theirs.md").write_text(
        persona.format(model="their-model"))
    fake_provider.script(
        Reply(tool_calls=[task("Quick", "Say hi.", persona="quick")]),
        Reply("hi"),
        Reply(tool_calls=[task("Theirs", "Say hi.", persona="theirs")]),
        Reply("hi"),
        Reply("Both said hi."),
    )
    agent = agent_for(fake_provider, project, HeadlessApprover("default"), [])

    result = await agent.run("ask both")

    assert result.ok, result.error
    models = [r.body["model"] for r in fake_provider.requests]
    assert models == ["fake-model", "quick-model", "fake-model", "fake-model", "fake-model"]
    assert "You answer quickly." in fake_provider.requests[1].messages[0]["content"]
