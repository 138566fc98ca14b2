"""The first-run setup modal: pick a provider and model, name the variable holding the key."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.model_setup import PROVIDERS, ProviderInfo, SetupChoice, check_choice
from ..outside_text import outside_text
from ..widgets.keys_in_order import LineInput
from .key_help import key_help


class SetupScreen(ModalScreen[SetupChoice | None]):
    """Asks which provider and model to use and returns the person's ``SetupChoice``.

    Moving through the provider list fills in that provider's default model, key variable
    and API base; the person may then edit them. A line tells whether the key variable is
    set in the environment. ``enter`` (anywhere) or Save checks the choice (the model must
    not be empty, the key field must hold a variable's name) and dismisses with it;
    ``escape`` or Skip dismisses with None. Saving the choice is the caller's job
    (``agent_tui.core.model_setup.save_setup``).

    Visual state: ``-no-key`` on the screen hides the key row for providers without keys;
    ``-set`` / ``-unset`` on ``#key-status`` colour the status line.
    """

    CSS_PATH = "setup.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "skip", "skip", show=False),
        Binding("enter", "save", "save", show=False),
    ]

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        providers: tuple[ProviderInfo, ...] = PROVIDERS,
    ) -> None:
        """Ask about a model.

        Args:
            environ: Where to look for the key variable (default: ``os.environ``).
            providers: The providers to offer, in order.
        """
        super().__init__()
        self.environ: Mapping[str, str] = os.environ if environ is None else environ
        self.providers = providers

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        """The title, the explanation, the providers, the three fields, status and buttons."""
        with Vertical(id="dialog"):
            yield Label("Set up a model", id="title")
            yield Static(
                "No model, API key or local model server was found. Pick one; it is saved "
                "to your config.toml (the key's variable NAME, never the key).",
                id="explanation",
            )
            yield OptionList(
                *(Option(outside_text(info.label), id=info.id) for info in self.providers),
                id="providers",
                compact=True,
            )
            with Horizontal(classes="field", id="model-row"):
                yield Label("Model", classes="field-label")
                yield LineInput(
                    id="model", placeholder="provider/model, e.g. openai/gpt-4.1", compact=True
                )
            with Horizontal(classes="field", id="key-row"):
                yield Label("Key variable", classes="field-label")
                yield LineInput(id="key-env", placeholder="e.g. ANTHROPIC_API_KEY", compact=True)
            with Horizontal(classes="field", id="base-row"):
                yield Label("API base", classes="field-label")
                yield LineInput(
                    id="api-base", placeholder="(the provider's own endpoint)", compact=True
                )
            yield Static("", id="key-status")
            with Horizontal(id="footer"):
                yield Static(self._keys_help(), id="keys")
                yield Button("Save", variant="primary", id="save", compact=True)
                yield Button("Skip", id="skip", compact=True)

    def _keys_help(self) -> Content:
        return key_help((("↑↓", "provider"), ("tab", "next field"), ("enter", "save"),
                         ("esc", "skip")))

    def on_mount(self) -> None:
        """Start on the first provider, with its defaults filled in."""
        options = self.query_one("#providers", OptionList)
        options.highlighted = 0
        self._fill(self.providers[0])
        options.focus()

    # ------------------------------------------------------------------ state

    @property
    def provider(self) -> ProviderInfo:
        """The highlighted provider."""
        index = self.query_one("#providers", OptionList).highlighted
        return self.providers[index or 0]

    @on(OptionList.OptionHighlighted, "#providers")
    def _provider_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._fill(self.providers[event.option_index])

    def _fill(self, info: ProviderInfo) -> None:
        """Put ``info``'s defaults in the fields."""
        self.query_one("#model", Input).value = info.default_model
        self.query_one("#key-env", Input).value = info.key_env or ""
        self.query_one("#api-base", Input).value = info.api_base or ""
        self.set_class(info.key_env is None, "-no-key")
        self._show_key_status()

    @on(Input.Changed, "#key-env")
    def _key_env_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._show_key_status()

    def _show_key_status(self) -> None:
        status = self.query_one("#key-status", Static)
        variable = self.query_one("#key-env", Input).value.strip()
        if self.provider.key_env is None:
            text, is_set = f"No key needed: {self.provider.label} runs on your machine.", True
        elif not variable:
            text, is_set = "No key variable: litellm looks for the provider's usual one.", False
        elif self.environ.get(variable):
            text, is_set = f"{variable} is set.", True
        else:
            text, is_set = f"{variable} is not set: export it before you send a prompt.", False
        status.update(outside_text(text))  # a pasted variable name is shown literally
        status.set_class(is_set, "-set")
        status.set_class(not is_set, "-unset")

    def choice(self) -> SetupChoice:
        """The choice as the fields now stand."""
        info = self.provider
        key_env = self.query_one("#key-env", Input).value.strip()
        api_base = self.query_one("#api-base", Input).value.strip()
        return SetupChoice(
            provider=info.id,
            model=self.query_one("#model", Input).value.strip(),
            key_env=(key_env or None) if info.key_env is not None else None,
            api_base=api_base or None,
        )

    # ------------------------------------------------------------------ answers

    def action_save(self) -> None:
        """Dismiss with the choice, or say what to fix."""
        choice = self.choice()
        problem = check_choice(choice)
        if problem is not None:
            self.notify(problem, title="Not saved", severity="warning")
            if not choice.model:
                self.query_one("#model", Input).focus()
            return
        self.dismiss(choice)

    def action_skip(self) -> None:
        """Dismiss without a choice."""
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    @on(OptionList.OptionSelected, "#providers")
    def _provider_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_save()

    @on(Button.Pressed, "#save")
    def _save_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save()

    @on(Button.Pressed, "#skip")
    def _skip_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_skip()
