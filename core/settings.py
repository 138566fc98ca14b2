"""The settings model (pydantic), built from the one declaration of every setting
(:class:`~agent_tui.core.setting_fields.SettingFields`: type, bounds, default, meaning).

Importing pydantic and pydantic-settings and building this model would delay the first
frame, so the workbench does it after it: :mod:`.config` reads the files, the environment and
the flags without pydantic, checks them against the same declaration
(:data:`~agent_tui.core.config.SETTING_KINDS`), and validates here once the screen is up.
Import :class:`Settings` from :mod:`.config`.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from pydantic import Field, create_model, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .safety.permission_rules import parse_rules
from .setting_fields import (
    SETTINGS,
    ApprovalMode,
    EditCorrection,
    SandboxMode,
    SettingFields,
    SyntaxGuard,
    ToolProtocol,
)

__all__ = ["ApprovalMode", "EditCorrection", "SandboxMode", "Settings", "SyntaxGuard",
           "ToolProtocol", "build_settings"]


class _SettingsBase(BaseSettings):
    """Where :class:`Settings` reads from: flags, ``AGENT_TUI_*``, then the files."""

    model_config = SettingsConfigDict(env_prefix="AGENT_TUI_", extra="ignore")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        layers = [_LayerSource(settings_cls, data) for data in reversed(_file_layers.get())]
        return (init_settings, env_settings, *layers)


def _rules_are_rules(cls: type[BaseSettings], rules: list[str]) -> list[str]:
    parse_rules(rules)  # a RuleError is a ValueError: pydantic reports it with the field
    return rules


def _field(name: str) -> tuple[Any, FieldInfo]:
    spec = SETTINGS[name]
    bounds = {b: v for b in ("ge", "gt", "le") if (v := getattr(spec.kind, b)) is not None}
    default: dict[str, Any] = ({"default_factory": list} if spec.kind.type == "list"
                               else {"default": spec.kind.default})
    info: FieldInfo = Field(**default, **bounds, repr=not spec.secret,
                            description=spec.description)
    return spec.annotation, info


if TYPE_CHECKING:
    class Settings(SettingFields, _SettingsBase):
        """Everything agent-tui can be configured with."""
else:
    Settings = create_model(
        "Settings",
        __doc__=SettingFields.__doc__,
        __base__=_SettingsBase,
        __module__=__name__,
        __validators__={"_rules_are_rules": field_validator(
            *(name for name, spec in SETTINGS.items() if spec.kind.rules))(_rules_are_rules)},
        **{name: _field(name) for name in SETTINGS},
    )


class _LayerSource(PydanticBaseSettingsSource):
    """A settings source over one already-loaded TOML file."""

    def __init__(self, settings_cls: type[BaseSettings], data: dict[str, Any]) -> None:
        super().__init__(settings_cls)
        self._data = data

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


_file_layers: ContextVar[tuple[dict[str, Any], ...]] = ContextVar("_file_layers", default=())


def build_settings(layers: tuple[Mapping[str, Any], ...], overrides: Mapping[str, Any]) -> Settings:
    """Validate: ``overrides`` (flags) over ``AGENT_TUI_*`` over ``layers`` (the user file's
    then the project file's known keys, lowest first) over the defaults.

    Raises:
        pydantic.ValidationError: a value is invalid.
    """
    token = _file_layers.set(tuple(dict(layer) for layer in layers))
    try:
        return Settings(**overrides)
    finally:
        _file_layers.reset(token)
