"""``/compact [FOCUS]`` and ``!COMMAND`` in the workbench, driven with Textual's pilot, the
engine running for real against the fake provider and real commands."""

from __future__ import annotations

from agent_tui.core.sessions.history import SUMMARY_PREFIX
from agent_tui.tui.screens.compaction import CompactionScreen
from agent_tui.tui.widgets.conversation import NoticeBlock, ToolBlock
from agent_tui.tui.widgets.prompt import SHELL_MODE, PromptInput
from tests.fakes.providers import Reply
from tests.tui.test_app import SIZE, app_for, type_prompt, until


def _notices(app) -> list[str]:
    return [str(block.render()) for block in app.query(NoticeBlock)]


async def test_compact_shows_the_summary_for_editing_then_applies_the_edit(fake_provider, tmp_path):
    fake_provider.script(
        Reply(text="The parser lives in parse.py."),
        Reply(text="Task: fix the parser."),
        Reply(text="Going on."),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "where is the parser?")
        # The first turn loads the model library: slow on a loaded machine.
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1, 120)

        await type_prompt(pilot, "/compact the parser's [bold]API[/bold]")
        await until(pilot, lambda: isinstance(app.screen, CompactionScreen))
        title = str(app.screen.query_one("#compaction-title").render())
        assert "/compact (focus: the parser's [bold]API[/bold])" in title
        asked = fake_provider.requests[1].last_user_text()
        assert "focus on: the parser's [bold]API[/bold]" in asked
        app.screen.query_one("#compaction-summary").text = "Task: fix the parser. Keep the API."
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not app.busy)
        await until(pilot, lambda: any("Compacted the conversation" in n for n in _notices(app)))

        assert [m["role"] for m in app.agent.messages] == ["system", "user"]
        summary = f"{SUMMARY_PREFIX}\n\nTask: fix the parser. Keep the API."
        assert app.agent.messages[1]["content"] == summary
        await type_prompt(pilot, "go on")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        sent = [m.get("content") for m in fake_provider.requests[2].messages]
        assert summary in sent and "where is the parser?" not in sent


async def test_bang_runs_the_command_shows_its_output_and_tells_the_model_next_time(
    fake_provider, tmp_path
):
    (tmp_path / "notes.txt").write_text("bang output here\n")
    fake_provider.script(Reply(text="It says bang output here."))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("!", "c", "a", "t")
        assert prompt.has_class("-shell") and prompt.border_title == SHELL_MODE
        prompt.text = "!cat notes.txt"
        await pilot.press("enter")
        await until(pilot, lambda: not app.busy and app.query(ToolBlock))
        await until(pilot, lambda: app.query_one(ToolBlock).status == "ok")

        block = app.query_one(ToolBlock)
        assert block.tool_name == "shell" and block.expanded
        assert "bang output here" in str(block.render())
        assert fake_provider.requests == []  # no turn: the model hears of it next time
        assert not prompt.has_class("-shell") and not prompt.border_title

        await type_prompt(pilot, "what does it say?")
        # The first model call loads the model library: slow on a loaded machine.
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1, 120)
        asked = fake_provider.requests[0].last_user_text()
        assert "$ cat notes.txt\nbang output here" in asked
        assert asked.endswith("what does it say?")
