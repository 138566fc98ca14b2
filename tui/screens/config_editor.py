"""One setting's editor in ``/config``: a switch, a choice, a line of text or a list, and
the file to save it to; a value the settings model refuses is shown and not written."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Select, Static, Switch
from textual.widgets import TextArea as TextBox

from ...core.config import ConfigError
from ...core.config_write import (
    UNSET,
    ConfigFile,
    SettingRefused,
    WrittenSetting,
    config_path,
    parse_value,
    refusal_for_file,
    write_setting,
)
from ...core.setting_fields import SettingSpec
from ..outside_text import outside_text
from .key_help import key_help


@dataclass(frozen=True, slots=True)
class EditedSetting:
    """What the editor saved: the setting as written, and to which file."""

    written: WrittenSetting
    target: ConfigFile


class SettingEditor(ModalScreen[EditedSetting | None]):
    """Edit setting ``spec``, shown with ``current`` (its value now), and save it to the user
    or the project config (``target`` first chosen).

    Ctrl+S (or Enter in a one-line field) saves; Esc leaves without saving.
    """

    CSS_PATH = "config.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        Binding("ctrl+s", "save", "save", priority=True),
    ]

    def __init__(
        self, spec: SettingSpec, current: object, target: ConfigFile, workdir: Path
    ) -> None:
        super().__init__()
        self.spec = spec
        self.current = current
        self.target: ConfigFile = target
        self.workdir = workdir

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        spec = self.spec
        with Vertical(id="setting-editor"):
            yield Label(spec.name, id="editor-title")
            yield Static(outside_text(spec.description), id="editor-help")
            yield from self._value_field()
            yield Label("Save to", classes="editor-label")
            with RadioSet(id="editor-file"):
                for target in ("user", "project"):
                    yield RadioButton(
                        self._file_label(target), value=target == self.target, id=f"file-{target}"
                    )
            yield Static("", id="editor-error")
            with Horizontal(id="editor-buttons"):
                yield Button("Save", id="editor-save", variant="primary")
                yield Button("Cancel", id="editor-cancel")
            yield Static(
                key_help([("Ctrl+S", "save"), ("Esc", "cancel"), ("Tab", "next field")]),
                id="editor-keys",
            )

    def _value_field(self) -> ComposeResult:
        kind = self.spec.kind
        current = self.current
        if kind.type == "bool":
            with Horizontal(id="editor-switch-row"):
                yield Switch(value=bool(current), id="editor-value")
                yield Label("on" if current else "off", id="editor-switch-label")
        elif kind.type == "choice":
            options = [(choice, choice) for choice in kind.choices]
            yield Select(
                options,
                value=current if current in kind.choices else Select.NULL,
                allow_blank=kind.optional,
                id="editor-value",
                prompt="(unset)",
            )
        elif kind.type == "list":
            yield Label("One item per line", classes="editor-label")
            items = current if isinstance(current, list | tuple) else []
            yield TextBox(
                "\n".join(str(item) for item in items),
                id="editor-value",
                soft_wrap=False,
                show_line_numbers=False,
            )
        else:
            text = "" if current is None else str(current)
            hint = " (empty: unset)" if kind.optional else ""
            yield Input(
                text, id="editor-value", placeholder=f"{kind.type}{hint}", password=self.spec.secret
            )

    def _file_label(self, target: str) -> str:
        path = config_path("user" if target == "user" else "project", self.workdir)
        name = "user config" if target == "user" else "project config"
        label = f"{name} ({path})"
        if target == "project" and refusal_for_file(self.spec.name, "project", self.workdir):
            label += " — refused: this folder is not trusted"
        return label

    def on_mount(self) -> None:
        self.query_one("#editor-value").focus()

    # -- events ----------------------------------------------------------------------------

    @on(Switch.Changed)
    def _switched(self, event: Switch.Changed) -> None:
        self.query_one("#editor-switch-label", Label).update("on" if event.value else "off")

    @on(RadioSet.Changed, "#editor-file")
    def _file_chosen(self, event: RadioSet.Changed) -> None:
        self.target = "project" if event.pressed.id == "file-project" else "user"

    @on(Input.Submitted, "#editor-value")
    @on(Button.Pressed, "#editor-save")
    async def _save_pressed(self) -> None:
        await self.action_save()

    @on(Button.Pressed, "#editor-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    def _value(self) -> object:
        """The value in the field (``UNSET`` for an emptied optional one).

        Raises:
            SettingRefused: the text is not a value of the setting's type.
        """
        field = self.query_one("#editor-value")
        name = self.spec.name
        if isinstance(field, Switch):
            return field.value
        if isinstance(field, Select):
            return UNSET if field.value is Select.NULL else field.value
        if isinstance(field, TextBox):
            return parse_value(name, field.text)
        assert isinstance(field, Input)
        return parse_value(name, field.value)

    async def action_save(self) -> None:
        """Check the value and write it; on a refusal, say why and stay open."""
        error = self.query_one("#editor-error", Static)
        try:
            value = self._value()
            written = await asyncio.to_thread(
                write_setting, self.spec.name, value, self.target, self.workdir
            )
        except (ConfigError, OSError) as exc:  # SettingRefused is a ConfigError
            error.update(outside_text(_refusal_text(exc)))
            error.add_class("shown")
            return
        self.dismiss(EditedSetting(written, self.target))


def _refusal_text(exc: Exception) -> str:
    if isinstance(exc, SettingRefused | ConfigError):
        return str(exc)
    return f"Could not write the file ({exc}); check its folder's permissions."
