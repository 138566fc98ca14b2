"""``/config`` in the workbench: the settings screen opened on this session's settings, and
a saved setting applied to the running session where it can change live."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.config import CheckedSettings, SettingsSources, read_settings
from ...core.config_write import LIVE_SETTINGS, shown_value
from ...core.setting_fields import SETTINGS

if TYPE_CHECKING:
    from ..screens.config import SettingRow
    from ..screens.config_editor import EditedSetting


def _sources(app: Any) -> SettingsSources:
    first = app._first_frame_settings
    flags = first.flags if isinstance(first, CheckedSettings) else {}
    return read_settings(app.workdir, flags)


def read_rows(app: Any) -> list[SettingRow]:
    """Every setting with its value in this session and where it comes from.

    Raises:
        ConfigError: a config file is not TOML.
    """
    from ..screens.config import setting_rows

    settings = app.settings
    values = {name: getattr(settings, name) for name in SETTINGS}
    return setting_rows(values, _sources(app), app.settings_actions.changes)


async def open_config(app: Any) -> None:
    """Show the settings screen (``/config``)."""
    from ..screens.config import ConfigScreen

    await app.push_screen(
        ConfigScreen(lambda: read_rows(app), app.workdir, lambda edited: saved(app, edited))
    )


def saved(app: Any, edited: EditedSetting) -> None:
    """A setting was written: apply it to this session if it can change live and the file
    written decides its value here; say where it went and when it applies."""
    written = edited.written
    name = written.name
    try:
        sources = _sources(app)
        value = getattr(sources.validate(), name)
    except Exception as exc:  # another file of the layers is broken: the save still stands
        app.notice(
            f"{name} saved to {written.path}; the settings could not be read back "
            f"({exc}), so this session keeps its value.",
            error=True,
        )
        return
    source = sources.source_of(name)
    where = f"{name} = {shown_value(written.value)} saved to {written.path}"
    if source not in (edited.target, "default", "user + project"):
        app.notice(
            f"{where}, but the {source}'s value ({shown_value(value)}) wins here; "
            "this session keeps it."
        )
        return
    if name not in LIVE_SETTINGS:
        app.notice(f"{where}; it takes effect on next start.")
        return
    kept: list[str] = []
    if SETTINGS[name].kind.rules:
        # Rules remembered for this session only stay, unless the person just took them out.
        session = app.settings_actions.changes.get(name, [])
        kept = [r for r in session if r not in value and r not in edited.removed]
        value = [*value, *kept]
    app.settings_actions.changes.pop(name, None)
    app.update_settings(**{name: value})
    if not kept:
        app.settings_actions.changes.pop(name, None)  # the file holds it now, not the session
    apply_live(app, name, value)
    app.notice(f"{where}; it applies now.")


def apply_live(app: Any, name: str, value: object) -> None:
    """Show a live setting's new value where the workbench shows it (the theme, the status
    bar, the prompt's vi mode)."""
    if name == "theme" and isinstance(value, str) and value in app.available_themes:
        app.theme = value
    elif name == "approval_mode":
        app.status.mode = value
    elif name == "network":
        app.status.network = value
    elif name == "vi_mode":
        app.query_one("#prompt").vi_mode = bool(value)  # the PromptInput
