"""The workbench with the project's knowledge: AGENTS.md in the prompt, /memory, /skills,
custom commands, hooks, and reloading when their files change."""

from __future__ import annotations

import subprocess
import textwrap

from agent_tui.core.memory import open_project_memory
from agent_tui.tui.screens.memory import MemoryScreen
from agent_tui.tui.screens.skills import SkillsScreen
from agent_tui.tui.widgets.conversation import ToolBlock, UserBlock
from agent_tui.tui.widgets.prompt import PromptInput
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until


def _project(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


async def _ready(pilot):
    app = pilot.app
    await until(pilot, lambda: app.knowledge.knowledge is not None)


async def test_agents_md_reaches_the_model_and_an_edit_is_picked_up(fake_provider, tmp_path):
    root = _project(tmp_path)
    (root / "AGENTS.md").write_text("Run the tests with `make check`.\n")
    fake_provider.script(Reply(text="first"), Reply(text="second"))
    app = app_for(fake_provider, root)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        await type_prompt(pilot, "how do I test?")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        system = fake_provider.requests[0].messages[0]["content"]
        assert "make check" in system

        (root / "AGENTS.md").write_text("Run the tests with `tox -e py311`.\n")
        await until(pilot, lambda: "tox -e py311" in app.agent.messages[0]["content"])
        await type_prompt(pilot, "and now?")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        system = fake_provider.requests[1].messages[0]["content"]
        assert "tox -e py311" in system and "make check" not in system


async def test_memory_screen_lists_loaded_files_and_edits_memories(fake_provider, tmp_path):
    root = _project(tmp_path)
    (root / "AGENTS.md").write_text("Project rules.\n")
    memory = open_project_memory(root)
    memory.set("deploy_steps", "run ./deploy.sh staging, then prod")
    memory.set("editor", "the person uses [bold]vim[/bold]", scope="user")
    memory.store.close()
    app = app_for(fake_provider, root)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        await type_prompt(pilot, "/memory")
        await until(pilot, lambda: isinstance(app.screen, MemoryScreen))
        screen = app.screen
        loaded = screen.query_one("#loaded")
        assert loaded.row_count == 1
        assert "AGENTS.md" in str(loaded.get_row_at(0)[1])
        table = screen.query_one("#memories")
        await until(pilot, lambda: table.row_count == 2)
        keys = {str(table.get_row_at(i)[1]) for i in range(2)}
        assert keys == {"deploy_steps", "editor"}

        # Search, open the hit, change its value, save.
        screen.query_one("#search").value = "staging"
        await until(pilot, lambda: "found" in str(screen.query_one("#memory-status").render()))
        assert str(table.get_row_at(0)[1]) == "deploy_steps"  # the best match first
        table.focus()
        await pilot.press("enter")
        await pilot.pause(0.1)
        screen.query_one("#value").text = "run ./deploy.sh staging only"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.knowledge.memory.get("deploy_steps").value
                    == "run ./deploy.sh staging only")

        # Delete asks for a second d.
        screen.query_one("#search").value = ""
        await until(pilot, lambda: table.row_count == 2)
        await pilot.pause(0.1)
        row = next(i for i in range(2) if str(table.get_row_at(i)[1]) == "editor")
        table.focus()
        table.move_cursor(row=row)
        await pilot.press("d")
        assert app.knowledge.memory.get("editor") is not None
        await pilot.press("d")
        await until(pilot, lambda: app.knowledge.memory.get("editor") is None)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, MemoryScreen))


async def test_skills_screen_shows_sources_and_shadowing(fake_provider, tmp_path):
    root = _project(tmp_path)
    skill = root / "skills" / "review-diff"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: review-diff\ndescription: Our own review.\n"
                                    "---\nReview it our way.\n")
    broken = root / ".agent-tui" / "skills" / "broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("---\nname: broken\n")
    app = app_for(fake_provider, root)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        await type_prompt(pilot, "/skills")
        await until(pilot, lambda: isinstance(app.screen, SkillsScreen))
        table = app.screen.query_one("DataTable")
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        names = {(r[0], r[1]) for r in rows}
        assert ("review-diff", "repository") in names
        assert ("commit-message", "bundled") in names
        assert any(r[0] == "review-diff" and r[1] == "bundled" and "shadowed" in r[2]
                   for r in rows)
        problem = next(i for i, r in enumerate(rows) if r[0] == "problem")
        table.move_cursor(row=problem)
        await pilot.pause(0.1)
        detail = str(app.screen.query_one("#skill-file").render())
        assert "broken/SKILL.md:1: " in detail and "never closed" in detail


async def test_a_custom_command_runs_its_prompt_with_its_allowed_tools(
        fake_provider, tmp_path, agent_tui_home):
    root = _project(tmp_path)
    commands = root / ".agent-tui" / "commands"
    commands.mkdir(parents=True)
    (commands / "stamp.md").write_text(textwrap.dedent("""\
        ---
        description: Stamp a file
        argument-hint: NAME
        allowed-tools: shell(touch *)
        ---
        Create the file $1 with touch.
    """))
    (agent_tui_home / "config.toml").write_text(f'trusted_projects = ["{root}"]\n')
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "touch done.txt"})]),
                         Reply(text="stamped"))
    app = app_for(fake_provider, root)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        assert "/stamp" in app.query_one(PromptInput).commands
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert "/stamp" in titles
        await type_prompt(pilot, "/stamp done.txt")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        assert fake_provider.requests[0].last_user_text() == "Create the file done.txt with touch."
        assert [u.text for u in app.query(UserBlock)] == ["/stamp done.txt"]
        # Allowed for the turn by the command: no approval modal, the file is there.
        assert (root / "done.txt").exists()
        assert app.agent.gate.turn_rules == []


async def test_a_pre_tool_use_hook_denies_a_call_in_the_workbench(
        fake_provider, tmp_path, agent_tui_home):
    root = _project(tmp_path)
    hook = tmp_path / "guard.sh"
    hook.write_text("#!/usr/bin/env bash\ncat >/dev/null\necho 'no pushing from agents' >&2\n"
                    "exit 2\n")
    hook.chmod(0o755)
    (agent_tui_home / "config.toml").write_text(
        f'[[hooks.PreToolUse]]\nmatcher = "shell"\ncommand = "{hook}"\n')
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "git push"})]),
                         Reply(text="I was not allowed to push."))
    app = app_for(fake_provider, root, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        await type_prompt(pilot, "push it")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        told = fake_provider.requests[1].tool_results()[0]["content"]
        assert "no pushing from agents" in told
        block = app.query(ToolBlock).first()
        assert block.status == "denied"


async def test_init_asks_the_agent_to_write_agents_md(fake_provider, tmp_path):
    root = _project(tmp_path)
    fake_provider.script(Reply(text="I will explore first."))
    app = app_for(fake_provider, root)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        await type_prompt(pilot, "/init")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        assert "write an AGENTS.md" in fake_provider.requests[0].last_user_text()


async def test_changes_during_a_turn_wait_for_its_end_and_config_toml_reloads(
        fake_provider, tmp_path, agent_tui_home):
    root = _project(tmp_path)
    (root / "AGENTS.md").write_text("Version one of the rules.\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "sleep 2"})]),
        Reply(text="slept"))
    app = app_for(fake_provider, root, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        await type_prompt(pilot, "sleep a little")
        await until(pilot, lambda: app.busy and app.agent is not None)
        (root / "AGENTS.md").write_text("Version two of the rules.\n")
        (agent_tui_home / "config.toml").write_text(
            '[[hooks.UserPromptSubmit]]\ncommand = "echo from the hook"\n')
        await until(pilot, lambda: len(app.knowledge._pending) >= 2)
        assert app.busy  # seen mid-turn, not applied
        assert "Version one" in app.agent.messages[0]["content"]

        await until(pilot, lambda: not app.busy)
        await until(pilot, lambda: "Version two" in app.agent.messages[0]["content"])
        assert [h.event for h in app.knowledge.knowledge.hooks.hooks] == ["UserPromptSubmit"]


async def test_the_context_inspector_lists_the_instruction_files(fake_provider, tmp_path):
    from agent_tui.tui.screens.context_inspector import ContextInspector

    root = _project(tmp_path)
    (root / "AGENTS.md").write_text("Rules of the house.\n" * 20)
    fake_provider.script(Reply(text="hi"))
    app = app_for(fake_provider, root)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        await type_prompt(pilot, "hello")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        await type_prompt(pilot, "/context")
        await until(pilot, lambda: isinstance(app.screen, ContextInspector) and app.screen.loaded)
        table = app.screen.query_one("DataTable")
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert rows[0][1] == "system"
        assert rows[1][1].strip() == "file" and "project AGENTS.md" in rows[1][4]
        assert int(rows[1][2].replace(",", "")) > 50
        await pilot.press("x")  # a file row cannot be dropped: it says what to do instead
        await pilot.pause(0.1)
        assert table.row_count == len(rows)
