"""/config: every setting with its value and source; edits validated, written with the
file's other keys kept, applied live where they can be, refused for an untrusted project."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Select, Static

from agent_tui.core import paths
from agent_tui.core.config import read_toml
from agent_tui.core.setting_fields import SETTINGS
from agent_tui.tui.screens.config import ConfigScreen
from agent_tui.tui.screens.config_editor import SettingEditor
from agent_tui.tui.widgets.conversation import NoticeBlock
from agent_tui.tui.widgets.prompt import PromptInput
from tests.tui.test_app import SIZE, app_for, type_prompt, until

USER_FILE = """\
theme = "agent-tui-dark"
deny_rules = ["shell(rm *)"]

[keys]
toggle_side = "f10"

[projects."/somewhere/else"]
allow_rules = ["shell(ls)"]
"""


async def _open_config(pilot):
    await type_prompt(pilot, "/config")
    await until(pilot, lambda: isinstance(pilot.app.screen, ConfigScreen))
    await pilot.pause(0.1)
    return pilot.app.screen


async def _edit(pilot, screen, name):
    """Filter the list down to ``name`` and open its editor."""
    screen.query_one("#config-filter", Input).value = name
    await pilot.pause(0.1)
    assert screen.shown_rows[0].spec.name == name
    screen.query_one(DataTable).focus()
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, SettingEditor))
    return pilot.app.screen


def _notices(app):
    return [str(block.render()) for block in app.query(NoticeBlock)]


async def test_config_lists_every_setting_with_its_source_and_filters(fake_provider, tmp_path):
    paths.project_config_file(tmp_path).parent.mkdir(parents=True)
    paths.project_config_file(tmp_path).write_text("max_turns = 7\n")
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_config(pilot)
        rows = {row.spec.name: row for row in screen.rows}
        assert list(rows) == list(SETTINGS)
        assert rows["max_turns"].source == "project"
        assert rows["theme"].source == "default"
        assert "trust-gated" in rows["api_base"].notes
        assert rows["api_key"].shown == "••••••"  # never the key itself
        screen.query_one("#config-filter", Input).value = "vi"
        await pilot.pause(0.1)
        assert "vi_mode" in [row.spec.name for row in screen.shown_rows]
        assert len(screen.shown_rows) < len(screen.rows)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ConfigScreen))


async def test_a_switch_saved_keeps_the_files_other_keys_and_applies_live(fake_provider, tmp_path):
    user_file = paths.user_config_file()
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.write_text(USER_FILE)
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_config(pilot)
        editor = await _edit(pilot, screen, "vi_mode")
        await pilot.press("enter")  # the switch toggles
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen)
        saved = read_toml(user_file)
        assert saved["vi_mode"] is True
        assert saved["theme"] == "agent-tui-dark"
        assert saved["deny_rules"] == ["shell(rm *)"]
        assert saved["keys"] == {"toggle_side": "f10"}
        assert saved["projects"] == {"/somewhere/else": {"allow_rules": ["shell(ls)"]}}
        assert app.settings.vi_mode is True
        assert app.query_one(PromptInput).vi_mode  # applied to the running prompt
        row = next(row for row in screen.rows if row.spec.name == "vi_mode")
        assert (row.value, row.source) == (True, "user")
        assert any(
            "vi_mode = true saved to" in text and "applies now" in text for text in _notices(app)
        )
        assert editor is not screen


async def test_a_choice_saved_to_the_project_config(fake_provider, tmp_path):
    user_file = paths.user_config_file()
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.write_text(f'trusted_projects = ["{tmp_path.resolve()}"]\n')
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_config(pilot)
        editor = await _edit(pilot, screen, "approval_mode")
        editor.query_one(Select).value = "plan"
        await pilot.click("#file-project")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen)
        assert read_toml(paths.project_config_file(tmp_path)) == {"approval_mode": "plan"}
        assert app.settings.approval_mode == "plan"
        assert app.status.mode == "plan"


async def test_a_bad_value_is_refused_and_not_written(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_config(pilot)
        editor = await _edit(pilot, screen, "max_turns")
        editor.query_one("#editor-value", Input).value = "0"
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        assert app.screen is editor  # stays open, saying why
        error = str(editor.query_one("#editor-error", Static).render())
        assert "greater than or equal to 1" in error and "Nothing was written" in error
        assert not paths.user_config_file().exists()
        editor.query_one("#editor-value", Input).value = "many"
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        assert "max_turns is an integer, not 'many'" in str(
            editor.query_one("#editor-error", Static).render()
        )
        assert not paths.user_config_file().exists()
        assert app.settings.max_turns == 100


async def test_a_trust_gated_setting_is_refused_for_an_untrusted_project(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_config(pilot)
        editor = await _edit(pilot, screen, "api_base")
        assert "refused: this folder is not trusted" in str(editor.query_one("#file-project").label)
        editor.query_one("#editor-value", Input).value = "http://127.0.0.1:9/v1"
        await pilot.click("#file-project")
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        assert app.screen is editor
        error = str(editor.query_one("#editor-error", Static).render())
        assert "this folder is not trusted" in error and "trusted_projects" in error
        assert not paths.project_config_file(tmp_path).exists()


async def test_a_setting_read_at_start_says_so(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_config(pilot)
        editor = await _edit(pilot, screen, "tool_output_limit")
        editor.query_one("#editor-value", Input).value = "5000"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen)
        assert read_toml(paths.user_config_file()) == {"tool_output_limit": 5000}
        assert any("takes effect on next start" in text for text in _notices(app))


async def test_a_rule_list_edits_the_chosen_files_own_rules(fake_provider, tmp_path):
    from textual.widgets import TextArea

    user_file = paths.user_config_file()
    user_file.parent.mkdir(parents=True, exist_ok=True)
    project_key = str(tmp_path.resolve())
    user_file.write_text(
        f'allow_rules = ["shell(ls)"]\n\n[projects."{project_key}"]\nallow_rules = ["shell(pwd)"]\n'
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_config(pilot)
        editor = await _edit(pilot, screen, "allow_rules")
        box = editor.query_one("#editor-value", TextArea)
        assert box.text == "shell(ls)"  # not the project table's rule the session adds
        box.text = "shell(ls)\nshell(git status)"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen)
        saved = read_toml(user_file)
        assert saved["allow_rules"] == ["shell(ls)", "shell(git status)"]
        assert saved["projects"] == {project_key: {"allow_rules": ["shell(pwd)"]}}
        assert set(app.settings.allow_rules) == {"shell(ls)", "shell(git status)", "shell(pwd)"}
