"""``open_agent``, the one assembly of an agent, and the lending of outside tools: each
agent it opens talks to the fake provider through litellm and real HTTP, reads the
project's real files and records into a real session log."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.events import Event
from agent_tui.core.modes.autonomous import COACH_PROMPT, coach_persona
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.core.providers.stream_process import ProcessProvider
from agent_tui.core.runtime.assembly import make_provider, open_agent
from agent_tui.core.runtime.outside_tools import lend_outside_tools
from agent_tui.core.sessions.start import close_session, open_session
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply

INSTRUCTIONS = "Always answer in the voice of a lighthouse keeper."


async def _open(fake: Any, workdir: Path, warnings: list[str] | None = None,
                **options: Any) -> Any:
    events: list[Event] = []
    settings = options.pop("settings", None) or settings_for(fake)
    return await open_agent(settings, workdir, HeadlessApprover(settings.approval_mode),
                            events.append, warn=(warnings if warnings is not None
                                                 else []).append, **options)


def _system(request: Any) -> str:
    return request.messages[0]["content"]


def _offered(request: Any) -> set[str]:
    return {tool["function"]["name"] for tool in request.tools}


def _posts(fake: Any) -> list[Any]:
    return [r for r in fake.requests if r.method == "POST"]


async def test_the_agent_is_steered_by_the_projects_instructions(fake_provider, tmp_path):
    (tmp_path / "AGENTS.md").write_text(INSTRUCTIONS + "\n")
    fake_provider.script(Reply(text="Ahoy."))
    agent = await _open(fake_provider, tmp_path)
    try:
        result = await agent.run("hello")
    finally:
        agent.close()
    assert result.ok and result.text == "Ahoy."
    request = _posts(fake_provider)[0]
    assert INSTRUCTIONS in _system(request)
    assert {"read_file", "write_file", "shell"} <= _offered(request)  # the builtin tools


async def test_a_persona_replaces_the_configured_one(fake_provider, tmp_path):
    fake_provider.script(Reply(text="Looks fine."))
    agent = await _open(fake_provider, tmp_path, persona=coach_persona())
    try:
        await agent.run("review the work")
    finally:
        agent.close()
    request = _posts(fake_provider)[0]
    assert COACH_PROMPT.strip().splitlines()[0] in _system(request)
    assert "grep" in _offered(request) and "write_file" not in _offered(request)

async def _resumed_after_one_prompt(fake_provider, tmp_path):
    """A session whose one prompt asked to remember "heron", closed, then opened again to
    go on from it: (the first opening, the second)."""
    first = await asyncio.to_thread(open_session, tmp_path, "openai/fake-model")
    agent = await _open(fake_provider, tmp_path, session=first)
    await agent.run("remember the word heron")
    agent.close()
    await asyncio.to_thread(close_session, first)
    again = await asyncio.to_thread(open_session, tmp_path, "openai/fake-model",
                                    resume=first.store.session_id)
    return first, again


async def test_a_resumed_session_goes_on_from_its_history(fake_provider, tmp_path):
    fake_provider.script(Reply(text="Noted."), Reply(text="It was heron."))
    first, again = await _resumed_after_one_prompt(fake_provider, tmp_path)
    agent = await _open(fake_provider, tmp_path, session=again)
    try:
        assert agent.session_id == first.store.session_id
        await agent.run("which word?")
    finally:
        agent.close()
        await asyncio.to_thread(close_session, again)
    sent = json.dumps(_posts(fake_provider)[1].messages)
    assert "remember the word heron" in sent and "Noted." in sent


async def test_without_resume_the_caller_restores_the_history(fake_provider, tmp_path):
    """The workbench restores a resumed log itself, once; the agent opened for it starts
    with none."""
    fake_provider.script(Reply(text="Noted."), Reply(text="Which word?"))
    first, again = await _resumed_after_one_prompt(fake_provider, tmp_path)
    again.warnings.append("line 9 of the log could not be read; it was skipped.")
    warnings: list[str] = []
    agent = await _open(fake_provider, tmp_path, warnings, session=again, resume=False)
    try:
        await agent.run("which word?")
    finally:
        agent.close()
        await asyncio.to_thread(close_session, again)
    assert "heron" not in json.dumps(_posts(fake_provider)[1].messages)
    assert warnings == []  # the session's warnings are the caller's to tell as well


async def test_warnings_tell_the_session_then_the_knowledge(fake_provider, tmp_path):
    commands = tmp_path / ".agent-tui" / "commands"
    commands.mkdir(parents=True)
    (commands / "help.md").write_text("Explain $ARGUMENTS\n")
    opened = await asyncio.to_thread(open_session, tmp_path, "openai/fake-model")
    opened.warnings.append("line 9 of the log could not be read; it was skipped.")
    warnings: list[str] = []
    agent = await _open(fake_provider, tmp_path, warnings, session=opened,
                        command_names=["/help"])
    agent.close()
    await asyncio.to_thread(close_session, opened)
    assert warnings[0] == "line 9 of the log could not be read; it was skipped."
    assert len(warnings) == 2 and "/help is a built-in command; rename the file" in warnings[1]
    assert "/help" not in agent.knowledge.commands.commands


async def test_knowledge_read_already_is_taken_as_it_is(fake_provider, tmp_path):
    """A front end that read the knowledge (the workbench) told its problems already."""
    from agent_tui.core.knowledge import load_knowledge

    (tmp_path / "AGENTS.md").write_text(INSTRUCTIONS + "\n")
    knowledge = load_knowledge(tmp_path)
    (tmp_path / "AGENTS.md").write_text("Changed since.\n")
    warnings: list[str] = []
    agent = await _open(fake_provider, tmp_path, warnings, knowledge=knowledge,
                        persona=coach_persona())
    agent.close()
    assert agent.knowledge.instructions == knowledge.instructions
    assert agent.knowledge.persona is not None and agent.knowledge.persona.name == "coach"
    assert knowledge.persona is None  # replaced in the agent's copy only
    assert warnings == []


def test_the_stream_worker_only_when_asked_and_allowed(fake_provider):
    settings = settings_for(fake_provider, stream_process=True)
    assert isinstance(make_provider(settings), LitellmProvider)
    assert isinstance(make_provider(settings, stream_worker=True), ProcessProvider)
    off = settings_for(fake_provider, stream_process=False)
    assert isinstance(make_provider(off, stream_worker=True), LitellmProvider)


async def test_outside_tools_are_lent_and_their_failures_told(fake_provider, tmp_path,
                                                              agent_tui_home):
    (tmp_path / "discover.sh").write_text(
        "#!/usr/bin/env bash\necho '[{\"name\": \"deploy_preview\", \"description\": "
        "\"Deploy a preview.\", \"parameters\": {\"type\": \"object\"}}]'\n")
    (agent_tui_home / "config.toml").write_text(
        f'[mcp_servers.broken]\ncommand = "{sys.executable}"\nargs = ["-c", "import sys; '
        'sys.exit(3)"]\n')
    settings = settings_for(fake_provider, tool_discovery_command="bash discover.sh",
                            tool_call_command="true")
    fake_provider.script(Reply(text="Done."))
    warnings: list[str] = []
    agent = await _open(fake_provider, tmp_path, warnings, settings=settings)
    mcp = await lend_outside_tools(agent, settings, tmp_path, warnings.append, wait_s=10)
    try:
        await agent.run("deploy it")
    finally:
        agent.close()
        if mcp is not None:
            await mcp.close()
    assert "deploy_preview" in _offered(_posts(fake_provider)[0])
    assert mcp is not None
    assert any(w.startswith("MCP server broken: ") and "its log: " in w for w in warnings)
