"""Notes for the model (e.g. rejected hunks) ride with the next prompt, also after a resume."""

from __future__ import annotations

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.core.sessions.log import SessionStore, read_events
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply


def _agent(fake, tmp_path, session=None) -> Agent:
    settings = settings_for(fake)
    return Agent(LitellmProvider(settings), ToolRegistry(builtin_tools()), settings, tmp_path,
                 HeadlessApprover("default"), lambda event: None, session=session)


async def test_a_note_is_sent_once_with_the_next_prompt(fake_provider, tmp_path):
    agent = _agent(fake_provider, tmp_path)
    fake_provider.script(Reply(text="one"), Reply(text="two"))

    agent.add_note("the person rejected hunk 2 of app.py: wrong name")
    await agent.run("go on")
    await agent.run("and now?")

    first = fake_provider.requests[0].last_user_text()
    assert "rejected hunk 2 of app.py: wrong name" in first and first.endswith("go on")
    assert fake_provider.requests[1].last_user_text() == "and now?"


async def test_a_note_waiting_at_exit_survives_a_resume(fake_provider, tmp_path):
    store = SessionStore.create("noted", project=tmp_path, model="openai/fake-model")
    agent = _agent(fake_provider, tmp_path, session=store)
    fake_provider.script(Reply(text="one"))
    await agent.run("first")
    agent.add_note("the person undid turn 0")
    store.close()

    resumed = _agent(fake_provider, tmp_path)
    resumed.restore(read_events("noted"))
    fake_provider.script(Reply(text="two"))
    await resumed.run("second")

    assert "the person undid turn 0" in fake_provider.requests[-1].last_user_text()
