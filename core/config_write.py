"""Changing one setting in a config file: the value read from what a person typed, checked
by the same pydantic validation as ``config.toml``, written with tomli-w to the user's or the
project's file (its other keys and tables kept, the file replaced atomically), refused where
trust would make agent-tui ignore it.

What ``/config`` and ``agent-tui config set`` write through.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from . import paths
from .config import ConfigError, is_trusted, read_toml
from .setting_fields import SETTINGS, SettingSpec

ConfigFile = Literal["user", "project"]
"""Which file a setting is written to: the user's ``config.toml`` or the project's
``.agent-tui/config.toml``."""

UNSET = None
"""The value that removes a setting from a file (it falls back to the layers below)."""

LIVE_SETTINGS = frozenset(
    {
        "approval_mode",
        "max_turns",
        "max_output_tokens",
        "temperature",
        "theme",
        "vi_mode",
        "notify_bell",
        "notify_terminal",
        "notify_desktop",
        "network",
        "review_compaction",
        "allow_rules",
        "ask_rules",
        "deny_rules",
        "preview_timeout",
    }
)
"""Settings the running workbench applies as soon as they change; the others are read when
a session's agent or the workbench starts."""


class SettingRefused(ConfigError):
    """A value is invalid, or the file chosen may not hold the setting; the message says
    why and what to do."""


@dataclass(frozen=True, slots=True)
class WrittenSetting:
    """What :func:`write_setting` did.

    Attributes:
        name: The setting.
        value: Its value in the file (None: removed from it).
        path: The file written.
    """

    name: str
    value: object
    path: Path


def config_path(target: ConfigFile, workdir: Path) -> Path:
    """The file ``target`` names for the project in ``workdir``."""
    return paths.user_config_file() if target == "user" else paths.project_config_file(workdir)


def spec_of(name: str) -> SettingSpec:
    """The declaration of setting ``name``.

    Raises:
        SettingRefused: there is no such setting.
    """
    try:
        return SETTINGS[name]
    except KeyError:
        raise SettingRefused(
            f"There is no setting {name!r}; `agent-tui config list` or /config lists them."
        ) from None


def parse_value(name: str, text: str) -> object:
    """What a person typed for setting ``name``, as the value to check: ``true``/``false``
    (on/off, yes/no) for a switch, a number, the text itself, or for a list one item per
    line (or a JSON list). Empty text unsets an optional setting or empties a list.

    Raises:
        SettingRefused: the text is not a value of that type.
    """
    kind = spec_of(name).kind
    stripped = text.strip()
    if kind.type == "list":
        if stripped.startswith("["):
            try:
                items = json.loads(stripped)
            except ValueError as exc:
                raise SettingRefused(f"{name}: {exc}; write one item per line instead.") from None
            return items
        return [line.strip() for line in stripped.splitlines() if line.strip()]
    if not stripped and kind.optional:
        return UNSET
    if kind.type == "bool":
        lowered = stripped.lower()
        if lowered in ("true", "on", "yes", "1"):
            return True
        if lowered in ("false", "off", "no", "0"):
            return False
        raise SettingRefused(f"{name} is true or false, not {text!r}.")
    if kind.type in ("int", "float"):
        try:
            return int(stripped) if kind.type == "int" else float(stripped)
        except ValueError:
            raise SettingRefused(
                f"{name} is a{'n integer' if kind.type == 'int' else ' number'}, not {text!r}."
            ) from None
    return stripped


def check_value(name: str, value: object) -> object:
    """``value`` as the settings model holds it, validated as a ``config.toml`` value is.

    Raises:
        SettingRefused: pydantic refuses it; the message says why.
    """
    spec = spec_of(name)
    if value is UNSET:
        return spec.kind.default if spec.kind.type != "list" else []
    from pydantic import ValidationError

    from .settings import build_settings

    try:
        settings = build_settings((), {name: value})
    except ValidationError as exc:
        problems = "; ".join(error["msg"] for error in exc.errors())
        raise SettingRefused(f"{name}: {problems}. Nothing was written.") from None
    return getattr(settings, name)


def refusal_for_file(name: str, target: ConfigFile, workdir: Path) -> str | None:
    """Why setting ``name`` may not go to ``target`` (None: it may): an untrusted project's
    file may not set a trust-gated setting, as agent-tui would ignore it there."""
    if target != "project" or not spec_of(name).trust_gated or is_trusted(workdir):
        return None
    return (
        f"{name} is not written to {paths.project_config_file(workdir)}: this folder is "
        f"not trusted, and an untrusted project's config may not set {name}. Save it to "
        f"the user config, or trust the folder (add it to trusted_projects in "
        f"{paths.user_config_file()})."
    )


def write_setting(name: str, value: object, target: ConfigFile, workdir: Path) -> WrittenSetting:
    """Check ``value`` and write it as setting ``name`` to ``target``'s file (``UNSET``
    removes the key); every other key and table of the file stays as it was.

    Raises:
        SettingRefused: the value is invalid or the file may not hold the setting;
            nothing was written.
        ConfigError: the file is not valid TOML (it is left alone).
        OSError: the file cannot be written.
    """
    import tomli_w

    from .text.durable import write_atomically

    if (refusal := refusal_for_file(name, target, workdir)) is not None:
        raise SettingRefused(refusal)
    checked = check_value(name, value)
    path = config_path(target, workdir)
    data = read_toml(path)
    if value is UNSET:
        data.pop(name, None)
    else:
        data[name] = _toml_value(checked)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A new user file is 0600 (it may name a key's variable and a provider's address);
    # an existing file keeps its bits.
    new_mode = 0o600 if target == "user" else 0o644
    write_atomically(path, tomli_w.dumps(data).encode(), new_file_mode=new_mode)
    return WrittenSetting(name, None if value is UNSET else checked, path)


def _toml_value(value: object) -> Any:
    # TOML has no null; lists are written as plain lists.
    return list(value) if isinstance(value, tuple | list) else value


def shown_value(value: object) -> str:
    """A setting's value as a line of text: ``true``/``false``, numbers, lists one-line as
    JSON, unset as ``(unset)``."""
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return json.dumps(list(value)) if value else "[]"
    return str(value)


def file_values(target: ConfigFile, workdir: Path) -> Mapping[str, object]:
    """The settings ``target``'s file sets, as written (unknown keys and tables left out).

    Raises:
        ConfigError: the file is not valid TOML.
    """
    data = read_toml(config_path(target, workdir))
    return {k: v for k, v in data.items() if k in SETTINGS}
