"""Ctrl+S in the prompt: a reverse search through the project's earlier prompts, this run's
and those of earlier sessions (from their real logs, through the session index)."""

from __future__ import annotations

from agent_tui.core.sessions.log import SessionStore
from agent_tui.tui.screens.history_search import HistorySearch
from agent_tui.tui.widgets.prompt import PromptInput
from tests.fakes.providers import Reply
from tests.tui.test_app import SIZE, app_for, type_prompt, until

FIRST_CALL = 60.0
"""Seconds a first model call may take: it loads litellm, slow on a busy machine."""


def earlier_session(project, session_id, prompts, ts):
    with SessionStore.create(session_id, project=project, model="openai/fake-model") as store:
        for n, text in enumerate(prompts):
            store.append({"type": "user_message", "text": text, "ts": ts + n})


def shown(app):
    return app.screen.found if isinstance(app.screen, HistorySearch) else None


async def test_ctrl_s_finds_earlier_prompts_and_enter_puts_one_in_the_prompt(
    fake_provider, tmp_path
):
    project = tmp_path / "project"
    project.mkdir()
    earlier_session(project, "first", ["fix the parser test", "explain the lexer"], 1000)
    earlier_session(project, "second", ["parser: add error recovery"], 2000)
    earlier_session(tmp_path, "other", ["parser of another project"], 3000)
    fake_provider.script(Reply(text="ok"))
    app = app_for(fake_provider, project)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        await type_prompt(pilot, "rename the parser module")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1, FIRST_CALL)

        await pilot.press("ctrl+s")
        await until(pilot, lambda: shown(app) is not None and len(app.screen.prompts) == 4)
        assert shown(app) == [
            "rename the parser module",
            "parser: add error recovery",
            "explain the lexer",
            "fix the parser test",
        ]
        await pilot.press(*"PARSER te")  # every word, any case
        await until(pilot, lambda: shown(app) == ["fix the parser test"])
        await pilot.press(*["backspace"] * 3)
        await until(pilot, lambda: len(shown(app)) == 3)
        assert app.screen.highlighted == "rename the parser module"
        await pilot.press("ctrl+s")  # older
        assert app.screen.highlighted == "parser: add error recovery"
        await pilot.press("up", "up", "up")  # stays at the oldest match
        assert app.screen.highlighted == "fix the parser test"
        await pilot.press("down")
        assert app.screen.highlighted == "parser: add error recovery"
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, HistorySearch))
        assert prompt.text == "parser: add error recovery"
        assert app.focused is prompt
        assert len(fake_provider.requests) == 1  # put in the prompt, not sent


async def test_escape_leaves_the_prompt_as_it_was(fake_provider, tmp_path):
    earlier_session(tmp_path, "first", ["an old prompt"], 1000)
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.text = "half typed"
        prompt.focus()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: shown(app) == ["an old prompt"])
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HistorySearch))
        assert prompt.text == "half typed"
        assert app.focused is prompt
