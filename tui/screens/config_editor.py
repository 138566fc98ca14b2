"""One setting's editor in ``/config``: a switch, a choice, a line of text or a list, and
the file to save it to; a value the settings model refuses is shown and not written."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
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
    file_values,
    parse_value,
    refusal_for_file,
    write_setting,
)
from ...core.setting_fields import SettingSpec
from ..outside_text import outside_text
from .key_help import key_help


@dataclass(frozen=True, slots=True)
class EditedSetting:
    """What the editor saved: the setting as written, to which file, and for a rule list
    the rules taken out of that file's list."""

    written: WrittenSetting
    target: ConfigFile
    removed: tuple[str, ...] = ()


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
        self._file_rules_before: list[str] = []

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
            yield Static(self._path_text(), id="editor-path")
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
            note = (
                "One rule per line; rule lists add up across the files, so this is the "
                "chosen file's own list"
                if kind.rules
                else "One item per line"
            )
            yield Label(note, classes="editor-label")
            if kind.rules:
                current = self._file_rules_before = self._file_rules()
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
        if target == "user":
            return "user config"
        if refusal_for_file(self.spec.name, "project", self.workdir):
            return "project config (refused: this folder is not trusted)"
        return "project config"

    def _path_text(self) -> Text:
        return outside_text(f"file: {config_path(self.target, self.workdir)}")

    def on_mount(self) -> None:
        self.query_one("#editor-value").focus()

    # -- events ----------------------------------------------------------------------------

    @on(Switch.Changed)
    def _switched(self, event: Switch.Changed) -> None:
        self.query_one("#editor-switch-label", Label).update("on" if event.value else "off")

    @on(RadioSet.Changed, "#editor-file")
    def _file_chosen(self, event: RadioSet.Changed) -> None:
        self.target = "project" if event.pressed.id == "file-project" else "user"
        self.query_one("#editor-path", Static).update(self._path_text())
        if self.spec.kind.rules:
            self._file_rules_before = self._file_rules()
            self.query_one("#editor-value", TextBox).text = "\n".join(self._file_rules_before)

    def _file_rules(self) -> list[str]:
        """The chosen file's own rule list (the session's is the sum of every file's)."""
        try:
            rules = file_values(self.target, self.workdir).get(self.spec.name, [])
        except ConfigError:
            return []
        return [str(rule) for rule in rules] if isinstance(rules, list) else []

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
        removed: tuple[str, ...] = ()
        if self.spec.kind.rules and isinstance(value, list):
            removed = tuple(rule for rule in self._file_rules_before if rule not in value)
        self.dismiss(EditedSetting(written, self.target, removed))


def _refusal_text(exc: Exception) -> str:
    if isinstance(exc, SettingRefused | ConfigError):
        return str(exc)
    return f"Could not write the file ({exc}); check its folder's permissions."
