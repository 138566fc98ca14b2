"""[keys] in config.toml: the workbench's keys moved by action name, conflicts reported
once with what to do, /help and the key footer showing the keys in force."""

from __future__ import annotations

from agent_tui.core import paths
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import NoticeBlock
from agent_tui.tui.widgets.key_footer import KeyFooter
from agent_tui.tui.workbench.key_map import key_map, normal_key
from tests.tui.test_app import SIZE, app_for, type_prompt, until


def _user_config(text):
    path = paths.user_config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _notices(app):
    return [str(block.render()) for block in app.query(NoticeBlock)]


async def test_a_moved_key_works_and_help_shows_it(fake_provider, tmp_path):
    _user_config('[keys]\ntoggle_tool_log = "ctrl+b"\nnewline = "ctrl+o"\nreview_changes = "f10"\n')
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        log = app.query_one("#tool-log")
        await pilot.press("f3")  # the old key does nothing now
        assert not log.has_class("hidden")
        await pilot.press("ctrl+b")
        assert log.has_class("hidden")
        await pilot.press("ctrl+b")
        assert not log.has_class("hidden")
        await pilot.press("a", "ctrl+o", "b")  # the prompt's binding moves too
        assert app.query_one("#prompt").text == "a\nb"
        assert "Ctrl+O new line" in str(app.query_one(KeyFooter).render())
        app.query_one("#prompt").text = ""
        await type_prompt(pilot, "/help")
        await until(pilot, lambda: app.query(AssistantBlock))
        help_text = app.query(AssistantBlock).last().text
        assert "Ctrl+B tool log" in help_text and "F3 tool log" not in help_text
        assert "Ctrl+O new line" in help_text
        assert "**Review (F10, /diff)**" in help_text and "F10 review the changes" in help_text
        assert not _notices(app)


async def test_conflicts_are_reported_once_and_leave_the_defaults(fake_provider, tmp_path):
    path = _user_config(
        '[keys]\ntoggle_side = "f3"\nno_such_action = "f11"\n'
        'review_changes = "ctrl+nope+"\nopen_inbox = "ctrl+k"\n'
        'toggle_todos = "f12"\nswitch_sessions = "f12"\n'
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(_notices(app)) >= 5)
        await pilot.pause(0.2)
        notices = _notices(app)
        assert len(notices) == 5, notices
        text = "\n".join(notices)
        assert f"toggle_side = 'f3' in {path}: F3 is toggle_tool_log's key" in text
        assert "no_such_action" in text and "there is no such action" in text
        assert "is not a key" in text and "review_changes keeps F7" in text
        assert "Ctrl+K is the prompt's" in text and "open_inbox keeps F8" in text
        assert "F12 is toggle_todos's key in [keys] too" in text
        # Each entry left out keeps its default key; the good one moved.
        assert app.key_map.keymap == {"toggle_todos": "f12"}
        log = app.query_one("#tool-log")
        await pilot.press("f3")
        assert log.has_class("hidden")  # f3 is still the tool log's
        todos = app.query_one("#todo-section")
        await pilot.press("f12")
        assert todos.has_class("hidden")


def test_key_names_are_read_as_textual_names_them():
    assert normal_key("?") == "question_mark"
    assert normal_key("F10") == "f10"
    assert normal_key("alt+enter") == "alt+enter"
    assert normal_key("hyperspace+x") is None
    assert normal_key("ctrl+") is None
    assert normal_key("ctrl+banana") is None


def test_two_keys_for_one_action():
    result = key_map({"newline": ("ctrl+j, ctrl+o", paths.user_config_file())})
    assert result.keymap == {"newline": "ctrl+j,ctrl+o"} and not result.problems


async def test_an_untrusted_projects_keys_are_ignored(fake_provider, tmp_path):
    project_file = paths.project_config_file(tmp_path)
    project_file.parent.mkdir(parents=True)
    project_file.write_text('[keys]\ncycle_mode = "ctrl+b"\n')
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _notices(app))
        assert app.key_map.keymap == {}
        (notice,) = _notices(app)
        assert f"[keys] in {project_file} ignored: this folder is not trusted" in notice
        await pilot.press("ctrl+b")
        assert app.settings.approval_mode == "default"


def test_a_key_that_types_a_character_is_refused():
    result = key_map({"cycle_mode": ("y", paths.user_config_file())})
    assert result.keymap == {}
    (problem,) = result.problems
    assert "y is typed into the prompt; pick a key with ctrl or alt, or an F key" in problem
