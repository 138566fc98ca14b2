"""The first-run setup modal, driven with Textual's pilot in a bare host app."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Static

from agent_tui.core.model_setup import SetupChoice
from agent_tui.themes import THEMES
from agent_tui.tui.screens.setup import SetupScreen

SIZE = (100, 32)
_UNSET: Any = object()


class SetupHost(App[None]):
    """A bare app with the workbench's theme that asks once and keeps the answer."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        super().__init__()
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = THEMES[0].name
        self.setup_screen = SetupScreen(environ={} if environ is None else environ)
        self.answer: SetupChoice | None = _UNSET

    def on_mount(self) -> None:
        self.ask()

    @work
    async def ask(self) -> None:
        self.answer = await self.push_screen_wait(self.setup_screen)


def field(pilot: Pilot[Any], selector: str) -> Input:
    return pilot.app.screen.query_one(selector, Input)


def status(pilot: Pilot[Any]) -> Static:
    return pilot.app.screen.query_one("#key-status", Static)


async def test_picking_a_provider_fills_in_its_defaults() -> None:
    app = SetupHost()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert field(pilot, "#model").value == "anthropic/claude-sonnet-4-20250514"
        assert field(pilot, "#key-env").value == "ANTHROPIC_API_KEY"
        await pilot.press("down")
        assert field(pilot, "#model").value == "openai/gpt-4.1"
        assert field(pilot, "#key-env").value == "OPENAI_API_KEY"
        assert field(pilot, "#api-base").value == ""
        for _ in range(3):
            await pilot.press("down")
        assert field(pilot, "#model").value == "ollama_chat/qwen2.5-coder"
        assert field(pilot, "#api-base").value == "http://localhost:11434"
        assert not app.screen.query_one("#key-row").display
        assert "No key needed" in str(status(pilot).render())


async def test_edited_model_is_saved_as_the_choice() -> None:
    app = SetupHost()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("down")  # OpenAI
        await pilot.click("#model")
        model = field(pilot, "#model")
        model.value = ""
        await pilot.press(*"openai/gpt-4.1-mini")
        await pilot.press("enter")
        await pilot.pause()
    assert app.answer == SetupChoice(
        "openai", "openai/gpt-4.1-mini", key_env="OPENAI_API_KEY", api_base=None
    )


async def test_enter_on_a_local_provider_saves_its_api_base_and_no_key() -> None:
    app = SetupHost()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("end", "enter")
        await pilot.pause()
    assert app.answer == SetupChoice(
        "openai-compatible", "openai/local-model", key_env=None, api_base="http://localhost:8080/v1"
    )


async def test_save_button_returns_the_choice() -> None:
    app = SetupHost()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click("#save")
        await pilot.pause()
    assert app.answer == SetupChoice(
        "anthropic", "anthropic/claude-sonnet-4-20250514", key_env="ANTHROPIC_API_KEY"
    )


async def test_an_empty_model_is_not_saved() -> None:
    app = SetupHost()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        field(pilot, "#model").value = "   "
        await pilot.click("#save")
        await pilot.pause()
        assert app.answer is _UNSET
        assert isinstance(app.screen, SetupScreen)
        assert app.screen.focused is field(pilot, "#model")


async def test_escape_skips_with_none() -> None:
    app = SetupHost()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
    assert app.answer is None


async def test_status_line_says_whether_the_key_variable_is_set() -> None:
    app = SetupHost(environ={"ANTHROPIC_API_KEY": "sk-ant-secret"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert str(status(pilot).render()) == "ANTHROPIC_API_KEY is set."
        assert status(pilot).has_class("-set")
        await pilot.press("down")
        assert str(status(pilot).render()) == (
            "OPENAI_API_KEY is not set: export it before you send a prompt."
        )
        assert status(pilot).has_class("-unset")
        await pilot.click("#key-env")
        field(pilot, "#key-env").value = "ANTHROPIC_API_KEY"
        await pilot.pause()
        assert str(status(pilot).render()) == "ANTHROPIC_API_KEY is set."


def test_snapshot_setup_screen(snap_compare: Any) -> None:
    """A person sees a modal with a blue title bar "Set up a model", two muted lines
    explaining that no model, key or local server was found and that only the key's
    variable NAME is saved; a list of six providers with "Anthropic (Claude)" highlighted;
    the fields, on darker strips, Model "anthropic/claude-sonnet-4-20250514", Key variable
    "ANTHROPIC_API_KEY" and an empty API base showing "(the provider's own endpoint)";
    the warning-coloured line "ANTHROPIC_API_KEY is not set: export it before you send a
    prompt."; and at the bottom the keys (↑↓ provider, tab next field, enter save,
    esc skip) beside the Save and Skip buttons."""
    assert snap_compare(SetupHost(), terminal_size=SIZE)


async def test_the_session_opened_before_setup_records_the_chosen_model(tmp_path) -> None:
    """The workbench opens its session before first-run setup asks for a model: the model
    picked there is the session's, in its log, the index and ``sessions list``."""
    from agent_tui.core.config import Settings
    from agent_tui.core.sessions.export import to_markdown
    from agent_tui.core.sessions.index import SessionIndex
    from agent_tui.core.sessions.log import read_events
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from tests.tui.test_app import until

    opened = open_session(tmp_path, "")
    app = make_app(Settings(), tmp_path, load_litellm=False, session=opened)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        await pilot.press("down", "enter")  # OpenAI, its default model
        await until(pilot, lambda: app.settings.model == "openai/gpt-4.1")
    close_session(opened)
    with SessionIndex() as index:
        summary = index.get(opened.store.session_id)
    assert summary is not None and summary.model == "openai/gpt-4.1"
    transcript = to_markdown(read_events(opened.store.session_id))
    assert "- **Model:** openai/gpt-4.1" in transcript
