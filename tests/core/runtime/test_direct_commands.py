"""``/compact [FOCUS]`` and ``!COMMAND``: what agent-tui runs itself instead of sending the
prompt to the model, driven through the one prompt resolution every front end uses, against
the fake provider through litellm and real HTTP, with real commands."""

from __future__ import annotations

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.custom_commands import load_custom_commands
from agent_tui.core.events import Compacted, ErrorEvent, RunResult, ToolResultEvent
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.core.runtime.direct_commands import EMPTY_COMMAND, direct_command
from agent_tui.core.runtime.prompt_resolution import resolve_prompt, run_resolved
from agent_tui.core.sessions.history import SUMMARY_PREFIX
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply


def _agent(fake, tmp_path, **overrides):
    settings = settings_for(fake, **overrides)
    events = []
    agent = Agent(
        LitellmProvider(settings),
        ToolRegistry(builtin_tools()),
        settings,
        tmp_path,
        HeadlessApprover(settings.approval_mode),
        events.append,
    )
    return agent, events


async def _typed(agent, text):
    """Run ``text`` as a front end runs what the person typed."""
    commands = load_custom_commands(agent.workdir)
    return await run_resolved(agent, await resolve_prompt(text, agent.workdir, commands))


def test_which_prompts_agent_tui_answers_itself():
    assert direct_command("/compact") == direct_command("/compact   ")
    assert direct_command("/compact focus on the parser").argument == "focus on the parser"
    assert direct_command("!git status").kind == "shell"
    assert direct_command("  ! ls -la ").argument == "ls -la"
    assert direct_command("/compacting") is None
    assert direct_command("fix the ! bug") is None


async def test_compact_sends_a_summary_request_with_the_focus_and_keeps_only_the_summary(
    fake_provider, tmp_path
):
    agent, events = _agent(fake_provider, tmp_path)
    fake_provider.script(
        Reply(text="The parser is in parse.py."),
        Reply(text="Tests pass."),
        Reply(text="Task: fix the parser in parse.py."),
        Reply(text="Going on from the summary."),
    )
    await agent.run("where is the parser?")
    await agent.run("run the tests")

    result = await _typed(agent, "/compact focus on the parser")

    assert result.ok, result.error
    request = fake_provider.requests[2]
    assert "condense" in request.messages[0]["content"]
    asked = request.last_user_text()
    assert "focus on: focus on the parser" in asked
    assert "where is the parser?" in asked and "run the tests" in asked  # all of it
    assert [m["role"] for m in agent.messages] == ["system", "user"]
    assert agent.messages[1]["content"] == f"{SUMMARY_PREFIX}\n\nTask: fix the parser in parse.py."
    compacted = [e for e in events if isinstance(e, Compacted)]
    assert len(compacted) == 1 and compacted[0].tokens_after < compacted[0].tokens_before
    assert result.text.startswith(f"Compacted the conversation: {compacted[0].tokens_before:,}")
    assert isinstance(events[-1], RunResult) and events[-1] is result

    await agent.run("go on")
    sent = [m.get("content") for m in fake_provider.requests[3].messages]
    assert "where is the parser?" not in sent and sent[-1] == "go on"


async def test_compact_of_an_empty_conversation_says_there_is_nothing_to_compact(
    fake_provider, tmp_path
):
    agent, events = _agent(fake_provider, tmp_path)

    result = await _typed(agent, "/compact")

    assert not result.ok and "nothing to compact" in result.error
    assert [e.message for e in events if isinstance(e, ErrorEvent)] == [result.error]
    assert fake_provider.requests == []


async def test_repeated_compaction_on_demand_is_no_compaction_loop(fake_provider, tmp_path):
    agent, _ = _agent(fake_provider, tmp_path)
    fake_provider.script(Reply(text="answer"), *(Reply(text=f"summary {i}") for i in range(4)))
    await agent.run("a task")
    for _ in range(4):
        result = await _typed(agent, "/compact")
        assert result.ok, result.error
    assert agent.messages[1]["content"].endswith("summary 3")


async def test_bang_runs_the_command_and_the_model_sees_its_output_with_the_next_prompt(
    fake_provider, tmp_path
):
    agent, events = _agent(fake_provider, tmp_path)  # default mode: echo is read-only
    fake_provider.script(Reply(text="I see hello-from-bang."))

    result = await _typed(agent, "!echo hello-from-bang")

    assert result.ok and "hello-from-bang" in result.text and "Exit code: 0" in result.text
    assert fake_provider.requests == []  # no turn started
    ran = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [(e.name, e.ok) for e in ran] == [("shell", True)]

    await agent.run("what did it print?")
    asked = fake_provider.requests[0].last_user_text()
    assert "$ echo hello-from-bang\nhello-from-bang" in asked
    assert asked.endswith("what did it print?")


async def test_bang_passes_the_approval_as_the_shell_tool(fake_provider, tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    agent, events = _agent(fake_provider, tmp_path)  # headless default: changes are refused

    result = await _typed(agent, "!rm keep.txt")

    assert not result.ok and (tmp_path / "keep.txt").exists()
    assert agent._notes == []  # nothing ran: nothing for the model
    yolo, _ = _agent(fake_provider, tmp_path, approval_mode="yolo")
    assert (await _typed(yolo, "!rm keep.txt")).ok
    assert not (tmp_path / "keep.txt").exists()


async def test_bang_output_is_cut_as_the_shell_tool_cuts_it(fake_provider, tmp_path):
    agent, _ = _agent(fake_provider, tmp_path, tool_output_limit=2000)
    fake_provider.script(Reply(text="long"))

    await _typed(agent, "!seq 1 20000")
    await agent.run("and?")

    asked = fake_provider.requests[0].last_user_text()
    assert "characters omitted" in asked and "\n20000\n" in asked and len(asked) < 4000


async def test_a_bare_bang_says_how_to_use_it(fake_provider, tmp_path):
    agent, _ = _agent(fake_provider, tmp_path)
    result = await _typed(agent, "!")
    assert not result.ok and result.error == EMPTY_COMMAND
