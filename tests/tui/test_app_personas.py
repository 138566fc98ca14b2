"""/agent in the workbench (Textual's pilot, the engine running for real against the fake
provider): taking a persona on changes the next request's prompt, tools, mode and model;
/agent alone lists them; /agent off leaves it."""

from __future__ import annotations

from agent_tui.tui.widgets.conversation import NoticeBlock
from agent_tui.tui.workbench.commands import COMMANDS
from tests.fakes.providers import Reply
from tests.tui.test_app import SIZE, app_for, type_prompt, until


def notices(app) -> list[str]:
    return [str(block.render()) for block in app.query(NoticeBlock)]


def tool_names(request) -> set[str]:
    return {tool["function"]["name"] for tool in request.tools}


async def test_agent_takes_on_a_persona_between_turns(fake_provider, tmp_path):
    fake_provider.script(Reply(text="first"), Reply(text="second"), Reply(text="third"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "hello")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        assert "<persona" not in fake_provider.requests[0].messages[0]["content"]

        await type_prompt(pilot, "/agent reviewer")
        await until(pilot, lambda: any(n.startswith("Persona: reviewer") for n in notices(app)))
        assert app.settings.agent == "reviewer"
        assert app.settings.approval_mode == "plan" and app.status.mode == "plan"

        await type_prompt(pilot, "review it")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        request = fake_provider.requests[1]
        system = request.messages[0]["content"]
        assert '<persona name="reviewer"' in system and "- Approval mode: plan" in system
        assert "write_file" not in tool_names(request) and "read_file" in tool_names(request)
        assert request.last_user_text() == "review it"
        assert any(m.get("content") == "first" for m in request.messages)  # history kept

        await type_prompt(pilot, "/agent off")
        await until(pilot, lambda: any("Persona reviewer is off" in n for n in notices(app)))
        await type_prompt(pilot, "again")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        request = fake_provider.requests[2]
        assert "<persona" not in request.messages[0]["content"]
        assert "write_file" in tool_names(request)
        assert app.settings.approval_mode == "plan"  # the mode stays until /mode


async def test_agent_alone_lists_and_an_unknown_name_says_which_exist(fake_provider, tmp_path):
    folder = tmp_path / ".agent-tui" / "agents"
    folder.mkdir(parents=True)
    (folder / "docs.md").write_text("---\ndescription: Writes the docs\n---\nWrite docs.\n")
    (folder / "odd.md").write_text("---\ndescription: '[@click=app.quit]x[/]'\n---\nOdd.\n")
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/agent")
        await until(pilot, lambda: any("Personas:" in n for n in notices(app)))
        listing = next(n for n in notices(app) if "Personas:" in n)
        assert "No persona is on" in listing
        assert "docs" in listing and "project" in listing and "Writes the docs" in listing
        assert "reviewer" in listing and "bundled" in listing

        await type_prompt(pilot, "/agent revewer")
        await until(pilot, lambda: any("no persona called 'revewer'" in n for n in notices(app)))
        error = app.query(NoticeBlock)[-1]
        assert error.has_class("error")
        assert "Available: architect, docs, odd, reviewer, test-writer" in str(error.render())
        assert app.settings.agent is None

        entries = {e.line: e.help for e in COMMANDS.palette(app)}
        assert entries["/agent docs"] == "Take on the docs persona: Writes the docs"
        assert "/agent reviewer" in entries and "/agent off" in entries
        assert entries["/agent odd"] == "Take on the odd persona: \\[@click=app.quit]x\\[/]"

        await type_prompt(pilot, "/agent docs")
        await until(pilot, lambda: app.settings.agent == "docs")
        await type_prompt(pilot, "/agent")
        await until(pilot, lambda: any("Persona: docs (project, " in n for n in notices(app)))
        shown = next(n for n in notices(app) if "Persona: docs (project, " in n)
        assert "model: the session’s · mode: the session’s · tools: every tool" in shown
        assert "▸ docs" in shown


async def test_a_personas_model_switches_the_agent(fake_provider, tmp_path, agent_tui_home):
    folder = agent_tui_home / "agents"
    folder.mkdir()
    (folder / "other.md").write_text("---\nmodel: openai/persona-model\n---\nBe brief.\n")
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "hello")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        await type_prompt(pilot, "/agent other")
        await until(pilot, lambda: app.status.model == "openai/persona-model")
        await type_prompt(pilot, "more")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        request = fake_provider.requests[1]
        assert request.body["model"] == "persona-model"
        assert "Be brief." in request.messages[0]["content"]
        assert any(m.get("content") == "one" for m in request.messages)


async def test_a_persona_taken_on_at_start_survives_a_config_reload(fake_provider, tmp_path):
    from agent_tui.tui.app import make_app
    from tests.core.loop_helpers import settings_for

    fake_provider.script(Reply(text="ok"))
    app = make_app(settings_for(fake_provider, agent="reviewer", approval_mode="plan"),
                   tmp_path, load_litellm=False,
                   persona_settings={"agent": "reviewer", "approval_mode": "plan"})
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "look")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        assert '<persona name="reviewer"' in fake_provider.requests[0].messages[0]["content"]
        app.reload_settings()  # config.toml changed
        assert (app.settings.agent, app.settings.approval_mode) == ("reviewer", "plan")


async def test_an_edited_persona_file_is_read_again(fake_provider, tmp_path):
    folder = tmp_path / ".agent-tui" / "agents"
    folder.mkdir(parents=True)
    persona = folder / "docs.md"
    persona.write_text("---\ntools: read_file\n---\nVersion one of the role.\n")
    fake_provider.script(Reply(text="ok"))
    app = app_for(fake_provider, tmp_path, agent="docs")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "hello")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        assert "Version one" in fake_provider.requests[0].messages[0]["content"]
        assert any("Persona: docs" in str(n.message) for n in app._notifications)

        persona.write_text("---\ntools: read_file, ls\n---\nVersion two of the role.\n")
        await until(pilot, lambda: "Version two" in app.agent.messages[0]["content"])
        assert app.agent.registry.names == ["read_file", "ls", "rehydrate"]
