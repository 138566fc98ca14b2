"""``/config``: every setting with its value, where the value comes from and what it means;
filter the list, edit one (:mod:`.config_editor`) and save it to the user or project config.

The rows come from :data:`~agent_tui.core.setting_fields.SETTINGS` (the one declaration);
where each value comes from, from :meth:`~agent_tui.core.config.SettingsSources.source_of`,
with ``session`` for what this session changed (``/mode``, ``/net``…).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

from ...core.config import ConfigError, SettingsSources
from ...core.config_write import LIVE_SETTINGS, ConfigFile, shown_value
from ...core.setting_fields import SETTINGS, SettingSpec
from ..outside_text import outside_text
from ..widgets.measured_table import MeasuredTable
from .config_editor import EditedSetting, SettingEditor
from .key_help import key_help

SECRET_SHOWN = "••••••"
"""What a secret setting's value shows as (``api_key``)."""


@dataclass(frozen=True, slots=True)
class SettingRow:
    """One setting as ``/config`` lists it.

    Attributes:
        spec: Its declaration.
        value: Its value in this session.
        source: Where the value comes from: ``default``, ``user``, ``project``,
            ``user + project``, ``environment``, ``flag`` or ``session``.
    """

    spec: SettingSpec
    value: object
    source: str

    @property
    def shown(self) -> str:
        """The value as the list shows it (a secret hidden)."""
        if self.spec.secret and self.value:
            return SECRET_SHOWN
        return shown_value(self.value)

    @property
    def notes(self) -> str:
        """``trust-gated`` and ``next start`` where they apply."""
        notes = ["trust-gated"] if self.spec.trust_gated else []
        if self.spec.name not in LIVE_SETTINGS:
            notes.append("next start")
        return ", ".join(notes)

    def matches(self, words: str) -> bool:
        """Whether every word of ``words`` is in its name, help, value or source."""
        text = " ".join(
            (self.spec.name, self.spec.description, self.shown, self.source, self.notes)
        ).lower()
        return all(word in text for word in words.lower().split())


def setting_rows(
    values: Mapping[str, object],
    sources: SettingsSources | None,
    session_changes: Mapping[str, object] = {},
) -> list[SettingRow]:
    """Every setting in its declared order, with its value and its source."""
    rows = []
    for name, spec in SETTINGS.items():
        source = (
            "session"
            if name in session_changes
            else sources.source_of(name)
            if sources is not None
            else "default"
        )
        rows.append(SettingRow(spec, values.get(name), source))
    return rows


def detail_text(row: SettingRow) -> str:
    """What the highlighted setting's help says below the list."""
    lines = [f"{row.spec.name} = {row.shown}   (from {row.source})", row.spec.description]
    if row.spec.trust_gated:
        lines.append("Trust-gated: an untrusted project's config may not set it.")
    lines.append(
        "Applies at once when saved."
        if row.spec.name in LIVE_SETTINGS
        else "Takes effect on next start."
    )
    return "\n".join(lines)


class ConfigScreen(ModalScreen[None]):
    """The settings list: type to filter, Enter (or a click) edits the highlighted one.

    Args:
        read_rows: Reads the rows again (after a save): the settings as they are now.
        workdir: The project folder (its config file, its trust).
        on_saved: Told of each setting saved (the workbench applies it where it can and
            says where it went).
    """

    CSS_PATH = "config.tcss"
    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("slash", "filter", "filter", show=False),
    ]

    def __init__(
        self,
        read_rows: Callable[[], list[SettingRow]],
        workdir: Path,
        on_saved: Callable[[EditedSetting], None],
    ) -> None:
        super().__init__()
        self._read_rows = read_rows
        self.workdir = workdir
        self._on_saved = on_saved
        self.rows: list[SettingRow] = []
        self.shown_rows: list[SettingRow] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="config"):
            yield Label("Settings", id="config-title")
            yield Input(
                placeholder="filter: type part of a name, its help, a value or a "
                "source (user, project, default…)",
                id="config-filter",
            )
            yield MeasuredTable(
                cursor_type="row", zebra_stripes=True, id="config-table", fitted_column=1
            )
            yield Static("", id="config-detail")
            yield Static(
                key_help([("Enter", "edit"), ("/", "filter"), ("↑↓", "move"), ("Esc", "close")]),
                id="config-keys",
            )

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("setting", "value", "from", "notes")
        self.reload()
        self.query_one("#config-filter", Input).focus()

    def reload(self) -> None:
        """Read the settings again and show them under the current filter."""
        try:
            self.rows = self._read_rows()
        except ConfigError as exc:
            self.query_one("#config-detail", Static).update(outside_text(str(exc)))
            return
        self._fill()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        words = self.query_one("#config-filter", Input).value
        row_index = table.cursor_row
        self.shown_rows = [row for row in self.rows if row.matches(words)]
        table.clear()
        for row in self.shown_rows:
            value = Text(row.shown, overflow="ellipsis", no_wrap=True)
            table.add_row(row.spec.name, value, row.source, row.notes, key=row.spec.name)
        count = len(self.shown_rows)
        title = (
            f"Settings: {count} match{'es' if count == 1 else ''} the filter"
            if words.strip()
            else f"Settings: {len(self.rows)}"
        )
        self.query_one("#config-title", Label).update(title)
        if self.shown_rows:
            table.move_cursor(row=min(row_index, len(self.shown_rows) - 1))
        self._show_detail()

    def _highlighted(self) -> SettingRow | None:
        row = self.query_one(DataTable).cursor_row
        return self.shown_rows[row] if 0 <= row < len(self.shown_rows) else None

    def _show_detail(self) -> None:
        row = self._highlighted()
        text = detail_text(row) if row is not None else "No setting matches the filter."
        self.query_one("#config-detail", Static).update(outside_text(text))

    @on(Input.Changed, "#config-filter")
    def _filtered(self) -> None:
        self._fill()

    @on(Input.Submitted, "#config-filter")
    def _to_table(self) -> None:
        self.query_one(DataTable).focus()

    @on(DataTable.RowHighlighted)
    def _highlight(self) -> None:
        self._show_detail()

    @on(DataTable.RowSelected)
    def _selected(self) -> None:
        self.action_edit()

    def on_key(self, event) -> None:
        # Down from the filter goes to the list.
        if event.key == "down" and self.focused is self.query_one("#config-filter"):
            event.stop()
            self.query_one(DataTable).focus()

    def action_filter(self) -> None:
        """Focus the filter (``/``)."""
        self.query_one("#config-filter", Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_edit(self) -> None:
        """Open the editor of the highlighted setting."""
        row = self._highlighted()
        if row is None:
            return
        target: ConfigFile = "project" if row.source == "project" else "user"
        editor = SettingEditor(row.spec, row.value, target, self.workdir)
        self.app.push_screen(editor, self._edited)

    def _edited(self, edited: EditedSetting | None) -> None:
        if edited is None:
            return
        self._on_saved(edited)
        self.reload()
