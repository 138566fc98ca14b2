"""The slash-command registry: every listing of the commands is made from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import NoticeBlock
from agent_tui.tui.widgets.prompt import DEFAULT_COMMANDS, PromptInput
from agent_tui.tui.workbench.commands import COMMANDS, SLASH_COMMANDS
from agent_tui.tui.workbench.slash_registry import WAIT_FOR_TURN
from tests.tui.test_app import SIZE, app_for, type_prompt, until

REPO = Path(__file__).resolve().parents[3]


def test_every_command_has_a_name_help_summary_and_handler() -> None:
    assert len(COMMANDS) >= 16
    for command in COMMANDS:
        assert re.fullmatch(r"/[a-z]+", command.name), command.name
        assert command.help.strip() and "\n" not in command.help, command.name
        assert command.summary.strip() and "\n" not in command.summary, command.name
        assert callable(command.run)
        assert command.usage.startswith(command.name)


def test_a_command_with_arguments_shows_their_syntax_in_its_help() -> None:
    # The prompt runs a picked command at once unless its help shows "/name ARG".
    for command in COMMANDS:
        assert (f"{command.name} " in command.help) == bool(command.args), command.name


def test_completion_offers_every_command_in_the_registry_order() -> None:
    assert list(SLASH_COMMANDS) == COMMANDS.names
    assert SLASH_COMMANDS == {command.name: command.help for command in COMMANDS}
    assert PromptInput().commands == SLASH_COMMANDS == DEFAULT_COMMANDS


async def test_the_palette_lists_every_command(fake_provider, tmp_path) -> None:
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE):
        titles = {command.title for command in app.get_system_commands(app.screen)}
        for command in COMMANDS:
            entries = {title for title in titles
                       if title == command.name or title.startswith(f"{command.name} ")}
            assert entries, f"{command.name} is not in the palette"
            assert (command.name in titles) == command.in_palette
            for arg, _help in command.choices(app) if command.choices else ():
                assert f"{command.name} {arg}" in titles


async def test_help_shows_every_command_with_its_help(fake_provider, tmp_path) -> None:
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/help")
        await until(pilot, lambda: bool(app.query(AssistantBlock)))
        text = app.query(AssistantBlock)[-1].text
    for command in COMMANDS:
        assert f"`{command.name}` {command.help}" in text
    assert "write AGENTS.md" in text and "(F7)" in text
    assert "write agents.md" not in text and "(f7)" not in text


async def test_an_unknown_command_names_every_command(fake_provider, tmp_path) -> None:
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/nosuch")
        await until(pilot, lambda: bool(app.query(NoticeBlock)))
        notice = str(app.query(NoticeBlock)[-1].render())
    assert "Unknown command /nosuch" in notice
    assert ", ".join(COMMANDS.names) in notice


async def test_commands_that_must_wait_for_the_turn_say_so(fake_provider, tmp_path) -> None:
    waiting = [command for command in COMMANDS if not command.while_busy]
    assert {command.name for command in waiting} >= {"/undo", "/rewind", "/diff", "/fork"}
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.busy = True
        for command in waiting:
            await app.run_slash_command(command.name)
            await pilot.pause()
            notice = str(app.query(NoticeBlock)[-1].render())
            assert notice == WAIT_FOR_TURN.format(command.wait_note)
        assert app.screen is app.screen_stack[0], "nothing opened while the turn runs"


def _table_after(text: str, heading: str) -> str:
    section = text[text.index(heading):]
    section = section[:section.find("\n## ", len(heading)) % (len(section) + 1)]
    start = section.index("| Command | What it does |")
    lines = []
    for line in section[start:].splitlines():
        if not line.startswith("|"):
            break
        lines.append(line)
    return "\n".join(lines)


@pytest.mark.parametrize(("doc", "heading"), [("README.md", "## The workbench"),
                                              ("tools/docs/keys.md", "## Slash commands")])
def test_the_docs_table_of_slash_commands_is_the_registry(doc: str, heading: str) -> None:
    text = (REPO / doc).read_text(encoding="utf-8")
    assert _table_after(text, heading) == COMMANDS.markdown_table(), (
        f"{doc}'s slash-command table differs from the registry; paste "
        "agent_tui.tui.workbench.commands.COMMANDS.markdown_table() in its place")


async def test_the_palette_shows_argument_syntax_in_help_literally(fake_provider, tmp_path) -> None:
    from textual.command import CommandList, CommandPalette

    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"/export")
        commands = app.screen.query_one(CommandList)
        await until(pilot, lambda: commands.option_count > 0)
        shown = "\n".join(
            str(commands.get_option_at_index(i).prompt) for i in range(commands.option_count)
        )
    assert "/export [FILE]" in shown
