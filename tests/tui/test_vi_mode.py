"""vi mode in the prompt (vi_mode = true): insert and normal modes, motions and edits on
real text, the mode on the prompt's border, and Esc's two meanings."""

from __future__ import annotations

from agent_tui.tui.widgets.prompt import PromptInput
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, until


async def _keys(pilot, keys: str):
    """Press each character of ``keys`` (a space as ``space``)."""
    for char in keys:
        await pilot.press(
            {" ": "space", "$": "dollar_sign", "^": "circumflex_accent"}.get(char, char)
        )


async def test_motions_and_edits_on_real_text(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path, vi_mode=True)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        assert prompt.border_subtitle == "INSERT"
        await _keys(pilot, "hello big world")
        await pilot.press("escape")
        assert prompt.vi.mode == "normal" and prompt.border_subtitle == "NORMAL"
        assert prompt.text == "hello big world"  # Esc typed nothing
        await _keys(pilot, "0w")
        assert prompt.cursor_location == (0, 6)
        await _keys(pilot, "dw")
        assert prompt.text == "hello world"
        await _keys(pilot, "u")
        assert prompt.text == "hello big world"
        await _keys(pilot, "$")
        assert prompt.cursor_location == (0, 14)
        await _keys(pilot, "x")
        assert prompt.text == "hello big worl"
        await _keys(pilot, "0cwbye")
        assert prompt.text == "bye big worl" and prompt.vi.mode == "insert"
        await pilot.press("escape")
        await _keys(pilot, "0")
        await _keys(pilot, "2w")
        assert prompt.cursor_location == (0, 8)
        await _keys(pilot, "b")
        assert prompt.cursor_location == (0, 4)
        await _keys(pilot, "e")
        assert prompt.cursor_location == (0, 6)
        await _keys(pilot, "Aend")
        assert prompt.text == "bye big worlend"
        await pilot.press("escape")
        await _keys(pilot, "Istart ")
        assert prompt.text == "start bye big worlend"


async def test_lines_yank_put_and_jumps(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path, vi_mode=True)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        await _keys(pilot, "one")
        await pilot.press("escape")
        await _keys(pilot, "otwo")
        await pilot.press("escape")
        await _keys(pilot, "Ozero")
        await pilot.press("escape")
        assert prompt.text == "one\nzero\ntwo"
        await _keys(pilot, "gg")
        assert prompt.cursor_location[0] == 0
        await _keys(pilot, "dd")
        assert prompt.text == "zero\ntwo"
        await _keys(pilot, "G")
        assert prompt.cursor_location == (1, 0)
        await _keys(pilot, "p")
        assert prompt.text == "zero\ntwo\none"
        await _keys(pilot, "ggyyGp")
        assert prompt.text == "zero\ntwo\none\nzero"
        await _keys(pilot, "gg2dd")
        assert prompt.text == "one\nzero"
        await _keys(pilot, "jl^")
        assert prompt.cursor_location == (1, 0)
        await _keys(pilot, "ll")
        assert prompt.cursor_location == (1, 2)
        await _keys(pilot, "kh")
        assert prompt.cursor_location == (0, 1)


async def test_esc_cancels_a_turn_only_once_the_prompt_is_in_normal_mode(fake_provider, tmp_path):
    marker = tmp_path / "started"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": f"touch {marker}; sleep 30"})]),
        Reply(text="after the cancel"),
    )
    app = app_for(fake_provider, tmp_path, vi_mode=True, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.text = "go"
        await pilot.press("enter")
        await until(pilot, marker.exists, timeout=90)
        await _keys(pilot, "draft")  # the next prompt, typed while the turn runs
        await pilot.press("escape")  # to normal mode: the turn goes on
        await pilot.pause(0.3)
        assert app.busy and prompt.vi.mode == "normal" and prompt.text == "draft"
        await pilot.press("escape")  # in normal mode Esc cancels the turn
        await until(pilot, lambda: not app.busy, timeout=60)
        assert prompt.text == "draft"


async def test_vi_mode_off_leaves_the_prompt_as_it_was(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        await _keys(pilot, "hi")
        await pilot.press("escape")
        await _keys(pilot, "dd")
        assert prompt.text == "hidd" and prompt.vi is None and not prompt.border_subtitle


async def test_vi_mode_turned_on_in_config_toml_applies_when_it_is_read_again(
    fake_provider, tmp_path
):
    from agent_tui.core import paths

    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        assert not prompt.vi_mode
        config = paths.user_config_file()
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text("vi_mode = true\n")
        app.reload_settings()  # what the watcher of config.toml calls
        await pilot.pause()
        assert prompt.vi_mode and prompt.border_subtitle == "INSERT"
