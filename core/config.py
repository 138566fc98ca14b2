"""Settings, layered lowest first: defaults, user ``config.toml``, the project's
``.agent-tui/config.toml``, ``AGENT_TUI_*`` environment variables, command-line flags.

A project's own file cannot grant anything (approval mode, where requests and keys go)
until the person trusts that folder; such keys are ignored with a warning.

Rule lists (``allow_rules``, ``ask_rules``, ``deny_rules``) add up across the files instead of
replacing each other, and the user file's ``[projects."/real/path"]`` table adds the rules
remembered for that project. An untrusted project's ask and deny rules apply: they only
restrict.

This module does not import pydantic: :func:`read_settings` reads the layers, and
:meth:`SettingsSources.validate` builds :class:`Settings` (the model, in :mod:`.settings`;
``from .config import Settings`` still works). The workbench draws its first frame from
:class:`CheckedSettings`, values a cheap check (:data:`SETTING_KINDS`) proved valid, and
validates after it.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import paths
from .setting_fields import SETTINGS, SettingKind

if TYPE_CHECKING:
    from .safety.permission_rules import Kind, Scope
    from .settings import Settings

APPROVAL_MODES: tuple[str, ...] = SETTINGS["approval_mode"].kind.choices
ENV_PREFIX = "AGENT_TUI_"

# Keys an untrusted project file may not set: each could widen what the agent may do or
# send the person's API key to a server of the project's choosing.
TRUST_GATED_KEYS = frozenset(name for name, spec in SETTINGS.items() if spec.trust_gated)


class ConfigError(Exception):
    """A config file or value is wrong; the message names the file and the fix."""


def __getattr__(name: str) -> type[Settings]:
    # The pydantic model loads on first use: the workbench's first frame does without it.
    if name == "Settings":
        from .settings import Settings

        return Settings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------- the cheap check


SETTING_KINDS: dict[str, SettingKind] = {name: spec.kind for name, spec in SETTINGS.items()}
"""Every setting of :class:`Settings`, in its order, with its type, bounds and default, for
the cheap check (both come from :class:`~agent_tui.core.setting_fields.SettingFields`)."""

_UNCHECKED = object()
_ENV_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_ENV_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})
_ENV_INT = re.compile(r"[0-9]{1,15}")
_ENV_FLOAT = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,15})?")


def _checked(kind: SettingKind, value: object, from_env: bool) -> object:
    """``value`` as :class:`Settings` will hold it, or ``_UNCHECKED`` when the cheap check
    cannot vouch for it (then pydantic decides, before the first frame).

    Sound, not complete: a value passes only if pydantic accepts it and keeps it the same;
    spellings pydantic also accepts (``" 7"``, ``7.0`` for an int, a JSON list in the
    environment) fall through to pydantic.
    """
    if from_env and isinstance(value, str) and (value := _from_env(kind, value)) is _UNCHECKED:
        return value
    if kind.type == "str":
        return value if type(value) is str else _UNCHECKED
    if kind.type == "choice":
        return value if type(value) is str and value in kind.choices else _UNCHECKED
    if kind.type == "bool":
        return value if type(value) is bool else _UNCHECKED
    if kind.type == "list":
        if type(value) is not list or any(type(item) is not str for item in value):
            return _UNCHECKED
        if kind.rules and value:
            from .safety.permission_rules import parse_rules

            try:
                parse_rules(value)
            except Exception:
                return _UNCHECKED
        return list(value)
    number: float
    if kind.type == "int" and type(value) is int:
        number = value
    elif (kind.type == "float" and type(value) in (int, float)
          and isinstance(value, int | float) and math.isfinite(value)):
        number = float(value)
    else:
        return _UNCHECKED
    if ((kind.ge is not None and not number >= kind.ge)
            or (kind.gt is not None and not number > kind.gt)
            or (kind.le is not None and not number <= kind.le)):
        return _UNCHECKED
    return number


def _from_env(kind: SettingKind, text: str) -> object:
    """An ``AGENT_TUI_*`` value as pydantic parses it for ``kind``, or ``_UNCHECKED``."""
    if kind.type in ("str", "choice"):
        return text
    if kind.type == "bool":
        lowered = text.lower()
        return True if lowered in _ENV_TRUE else False if lowered in _ENV_FALSE else _UNCHECKED
    if kind.type == "int" and _ENV_INT.fullmatch(text):
        return int(text)
    if kind.type == "float" and _ENV_FLOAT.fullmatch(text):
        return float(text)
    return _UNCHECKED  # a list is JSON in the environment: pydantic's to read


# ------------------------------------------------------------------------------ the layers


@dataclass(slots=True)
class LoadedSettings:
    """Settings with the warnings met while loading them."""

    settings: Settings
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class SettingsSources:
    """The settings as read, before validation: the files' known keys (trust applied, rule
    lists merged), the flags, and where the files are.

    Attributes:
        layers: The user file's and the project file's settings, lowest first.
        overrides: The flags given (no ``None``).
        user_file, project_file: The two files, for messages.
        warnings: Unknown keys, keys an untrusted project may not set.
        origins: Each setting a file sets to the file's name (``user``, ``project``, or
            ``user + project`` for a rule list both add to).
    """

    layers: tuple[dict[str, Any], dict[str, Any]]
    overrides: dict[str, object]
    user_file: Path
    project_file: Path
    warnings: list[str] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)

    def source_of(self, name: str) -> str:
        """Where the value of setting ``name`` comes from: ``flag``, ``environment``,
        ``project``, ``user``, ``user + project`` (a rule list) or ``default``."""
        if name in self.overrides:
            return "flag"
        variable = (ENV_PREFIX + name).lower()
        if any(key.lower() == variable for key in os.environ):
            return "environment"
        return self.origins.get(name, "default")

    def validate(self) -> Settings:
        """The settings, validated by pydantic (its import included).

        Raises:
            ConfigError: a value is invalid; the message names it and where to look.
        """
        from pydantic import ValidationError

        from .settings import build_settings

        try:
            return build_settings(self.layers, self.overrides)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
            raise ConfigError(
                f"invalid setting ({problems}). Check the flags, AGENT_TUI_* variables, "
                f"{self.user_file} and {self.project_file}."
            ) from None

    def checked(self) -> CheckedSettings | None:
        """The settings without pydantic, when the cheap check vouches for every value that
        wins (flags over ``AGENT_TUI_*`` over the project file over the user file); None
        when it cannot, and only :meth:`validate` can tell."""
        env: dict[str, list[str]] = {}
        prefix = ENV_PREFIX.lower()
        for variable, text in os.environ.items():
            name = variable.lower()
            if name.startswith(prefix) and name[len(prefix):] in SETTING_KINDS:
                env.setdefault(name[len(prefix):], []).append(text)
        user, project = self.layers
        values: dict[str, object] = {}
        for name, kind in SETTING_KINDS.items():
            if name in self.overrides:
                value = _checked(kind, self.overrides[name], from_env=False)
            elif name in env:
                # Two spellings of one variable (AGENT_TUI_MODEL, agent_tui_model): pydantic's
                # pick depends on the environment's order.
                found = env[name]
                value = _checked(kind, found[0], from_env=True) if len(found) == 1 else _UNCHECKED
            elif name in project:
                value = _checked(kind, project[name], from_env=False)
            elif name in user:
                value = _checked(kind, user[name], from_env=False)
            else:
                value = list(kind.default) if kind.type == "list" else kind.default
            if value is _UNCHECKED:
                return None
            values[name] = value
        return CheckedSettings(self, values)


class CheckedSettings:
    """Settings every value of which passed the cheap check: readable as attributes (the
    values :class:`Settings` will hold), and built into :class:`Settings` by :meth:`build`,
    which cannot fail. What the workbench's first frame is drawn from."""

    __slots__ = ("_sources", "_update", "values")

    def __init__(self, sources: SettingsSources, values: Mapping[str, object],
                 update: Mapping[str, object] | None = None) -> None:
        self._sources = sources
        self._update = dict(update or {})
        self.values: dict[str, object] = {**values, **self._update}
        """Each setting's value, as in :class:`Settings`."""

    def __getattr__(self, name: str) -> Any:
        # Any: each setting has its own type, which Settings declares; this reads them alike.
        if name in SETTING_KINDS:  # only settings: copy and pickle find no hooks here
            return self.values[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def flags(self) -> dict[str, object]:
        """The command-line flags these settings were read with (none given left out)."""
        return dict(self._sources.overrides)

    def model_copy(self, *, update: Mapping[str, object]) -> CheckedSettings:
        """As ``Settings.model_copy(update=…)``: the same values, ``update`` changed."""
        return CheckedSettings(self._sources, self.values, {**self._update, **update})

    def build(self) -> Settings:
        """The :class:`Settings` (pydantic's import and validation)."""
        settings = self._sources.validate()
        return settings.model_copy(update=self._update) if self._update else settings


def read_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file; a missing file is empty.

    Raises:
        ConfigError: the file is not valid TOML.
    """
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix or remove the file.") from None


def read_settings(workdir: Path,
                  overrides: Mapping[str, object] | None = None) -> SettingsSources:
    """Read the user and project files for ``workdir`` and take the flags (``overrides``;
    ``None`` values are flags not given), without validating.

    Raises:
        ConfigError: a file is not TOML.
    """
    warnings: list[str] = []
    user_file = paths.user_config_file()
    user = read_toml(user_file)
    project_file = paths.project_config_file(workdir)
    project = read_toml(project_file)
    for source, data in ((user_file, user), (project_file, project)):
        unknown = sorted(k for k, v in data.items()
                         if k not in SETTING_KINDS and not isinstance(v, dict))
        if unknown:
            warnings.append(f"{source}: unknown setting(s) {', '.join(unknown)} ignored.")
    trusted = _trusted(user, workdir)
    if not trusted:
        gated = sorted(TRUST_GATED_KEYS & project.keys())
        if gated:
            warnings.append(
                f"{project_file}: {', '.join(gated)} ignored because this folder is not "
                f"trusted; add it to trusted_projects in {user_file} to allow it."
            )
            project = {k: v for k, v in project.items() if k not in TRUST_GATED_KEYS}
    origins = _origins(user, project, workdir)
    project = {**project, **_merged_rules(user, project, workdir)}
    user_layer, project_layer = ({k: v for k, v in data.items() if k in SETTING_KINDS}
                                 for data in (user, project))
    flags = {k: v for k, v in (overrides or {}).items() if v is not None}
    return SettingsSources((user_layer, project_layer), flags, user_file, project_file,
                           warnings, origins)


def _origins(user: dict[str, Any], project: dict[str, Any], workdir: Path) -> dict[str, str]:
    """Which file sets each setting (``project`` already stripped of what trust gates); the
    user file's table for this project counts as the user file."""
    tables = user.get("projects")
    table = tables.get(project_table_key(workdir), {}) if isinstance(tables, dict) else {}
    origins: dict[str, str] = {}
    for name in SETTING_KINDS:
        in_user = name in user or (name in RULE_KEYS and isinstance(table, dict)
                                   and name in table)
        in_project = name in project
        if in_user and in_project and name in RULE_KEYS:
            origins[name] = "user + project"
        elif in_project:
            origins[name] = "project"
        elif in_user:
            origins[name] = "user"
    return origins


def read_key_table(workdir: Path) -> dict[str, tuple[object, Path]]:
    """The ``[keys]`` tables of the user file and the project file, merged (the project's
    entries win): each action named to its keys as written and the file that says so. A
    file that is not TOML or whose ``keys`` is not a table gives none."""
    found: dict[str, tuple[object, Path]] = {}
    for path in (paths.user_config_file(), paths.project_config_file(workdir)):
        try:
            table = read_toml(path).get("keys")
        except ConfigError:
            continue
        if isinstance(table, dict):
            found.update({str(action): (keys, path) for action, keys in table.items()})
    return found


def _trusted(user: Mapping[str, object], workdir: Path) -> bool:
    listed = user.get("trusted_projects", [])
    return isinstance(listed, list) and str(workdir.resolve()) in listed


def is_trusted(workdir: Path) -> bool:
    """Whether the person trusts ``workdir`` (it is in the user file's ``trusted_projects``):
    only then may its own files grant anything (rules, hooks, skills' allowed tools)."""
    try:
        return _trusted(read_toml(paths.user_config_file()), workdir)
    except ConfigError:
        return False


def load_settings(workdir: Path,
                  overrides: Mapping[str, object] | None = None) -> LoadedSettings:
    """Layer defaults, user file, project file, environment and ``overrides`` (flags), and
    validate.

    Raises:
        ConfigError: a file is not TOML or a value is invalid.
    """
    sources = read_settings(workdir, overrides)
    return LoadedSettings(sources.validate(), sources.warnings)


RULE_KEYS = ("allow_rules", "ask_rules", "deny_rules")


def project_table_key(workdir: Path) -> str:
    """The key of a project's table in the user config (``[projects."KEY"]``): its real path."""
    return str(workdir.resolve())


def _merged_rules(user: dict[str, Any], project: dict[str, Any],
                  workdir: Path) -> dict[str, Any]:
    """Each rule list as the sum of the user file's, the user file's table for this project,
    and the project file's (``project`` is already stripped of what trust gates)."""
    tables = user.get("projects")
    table = tables.get(project_table_key(workdir), {}) if isinstance(tables, dict) else {}
    merged: dict[str, Any] = {}
    for key in RULE_KEYS:
        values = [source[key] for source in (user, table, project) if key in source]
        if not values:
            continue
        # A value that is not a list goes through as it is, for pydantic to report.
        odd = next((v for v in values if not isinstance(v, list)), None)
        merged[key] = odd if odd is not None else [rule for v in values for rule in v]
    return merged


def save_user_settings(updates: Mapping[str, object], remove: tuple[str, ...] = ()) -> Path:
    """Merge ``updates`` into the user's ``config.toml`` (atomically, with tomli-w).

    Keys in ``remove`` are deleted, so a stale value (an old api_base) does not linger.
    Tables (dict values, e.g. ``{"projects": {"/p": {"allow_rules": [...]}}}``) merge key
    by key, so saving one project's rules keeps the other projects'.

    Returns:
        The path written.
    """
    import tomli_w

    from .text.durable import write_atomically

    path = paths.user_config_file()
    data = read_toml(path)
    for key in remove:
        data.pop(key, None)
    _merge_tables(data, {k: v for k, v in updates.items() if v is not None})
    path.parent.mkdir(parents=True, exist_ok=True)
    # 0600: the file may hold keys' variable names and a provider's address.
    write_atomically(path, tomli_w.dumps(data).encode(), mode=0o600)
    return path


def save_rules(rules: Sequence[str], scope: Scope, workdir: Path, kind: Kind = "allow") -> Path:
    """Add ``rules`` to the user config: its ``{kind}_rules`` (scope ``user``) or the
    project's table ``[projects."/real/path"]`` (scope ``project``).

    Returns:
        The file written.

    Raises:
        ValueError: ``scope`` is not saved to a file (``once``, ``session``).
    """
    key = f"{kind}_rules"
    data = read_toml(paths.user_config_file())
    if scope == "user":
        current = [str(r) for r in data.get(key, [])]
        return save_user_settings({key: current + [r for r in rules if r not in current]})
    if scope == "project":
        project = project_table_key(workdir)
        table = data.get("projects", {}).get(project, {})
        current = [str(r) for r in table.get(key, [])]
        merged = current + [r for r in rules if r not in current]
        return save_user_settings({"projects": {project: {key: merged}}})
    raise ValueError(f"rules of scope {scope!r} are not saved to a file")


def _merge_tables(into: dict[str, object], updates: Mapping[str, object]) -> None:
    for key, value in updates.items():
        if isinstance(value, dict) and isinstance(table := into.get(key), dict):
            _merge_tables(table, value)
        else:
            into[key] = value
