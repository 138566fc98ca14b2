"""Keys typed into the prompt take effect in the order they were typed, however many arrive
at once (a fast typist while the workbench is busy drawing a stream: the terminal hands over
several keys in one read)."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult

from agent_tui.tui.widgets.keys_in_order import LineInput, TextEditor
from agent_tui.tui.widgets.prompt import PromptInput
from tests.fakes.providers import Reply
from tests.tui.test_app import SIZE, app_for, until

CHARACTERS = {"backspace": "\x7f", "ctrl+u": "\x15", "ctrl+w": "\x17", "enter": "\r",
              "left": None, "home": None, "end": None, "ctrl+j": "\n"}


def burst(app, keys: list[str]) -> None:
    """Post ``keys`` to the app at once, as its driver does with one read of the terminal."""
    for key in keys:
        app.post_message(events.Key(key, CHARACTERS.get(key, key)))


async def typed(pilot, keys: list[str], before: str = "") -> str:
    prompt = pilot.app.query_one(PromptInput)
    prompt.text = before
    prompt.move_cursor(prompt.document.end)
    prompt.focus()
    await pilot.pause()
    burst(pilot.app, keys)
    await pilot.pause()
    await pilot.pause()
    return prompt.text


async def test_editing_keys_in_a_burst_apply_in_order(fake_provider, tmp_path) -> None:
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert await typed(pilot, ["a", "b", "backspace", "c"]) == "ac"
        assert await typed(pilot, ["ctrl+u", "g", "o"], before="earlier text") == "go"
        assert await typed(pilot, ["a", "b", "left", "c"]) == "acb"
        assert await typed(pilot, ["x", "home", "y", "end", "z"]) == "yxz"
        assert await typed(pilot, ["ctrl+w", "n", "e", "w"], before="one two") == "one new"
        assert await typed(pilot, ["a", "ctrl+j", "b"]) == "a\nb"


async def test_a_prompt_typed_in_one_burst_is_sent_as_typed(fake_provider, tmp_path) -> None:
    fake_provider.script(Reply(text="Done."))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, ["ctrl+u", "g", "o", "enter"], before="αβγ typed earlier")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        assert fake_provider.requests[0].last_user_text() == "go"


class Fields(App[None]):
    def compose(self) -> ComposeResult:
        yield LineInput(id="line")
        yield TextEditor(id="editor")


async def test_the_dialogs_fields_take_bursts_in_order_too() -> None:
    app = Fields()
    async with app.run_test() as pilot:
        for field in (app.query_one(LineInput), app.query_one(TextEditor)):
            field.focus()
            await pilot.pause()
            burst(app, ["a", "b", "backspace", "c", "left", "d"])
            await pilot.pause()
            await pilot.pause()
            assert (field.value if isinstance(field, LineInput) else field.text) == "adc"
