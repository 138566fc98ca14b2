"""How a setting is declared and described: the machinery of :mod:`.setting_fields`.

:func:`setting` declares one in :class:`~.setting_fields.SettingFields`; :func:`specs_of`
reads the declaration into a :class:`SettingSpec` per setting (its cheap-check
:class:`SettingKind` and its :class:`CliFlag` included).

Only the standard library: the workbench reads this before its first frame.
"""

import typing
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class CliFlag:
    """The ``agent-tui`` flag that sets a setting.

    Attributes:
        names: The option strings, as ``argparse`` takes them (``"--model", "-m"``).
        help: Its line in ``--help``.
        metavar: The value's name in ``--help`` (None: argparse's own).
        implies: More settings a given flag turns on (``--chrome-headless`` offers the
            browser tools: ``webdriver``).
    """

    names: tuple[str, ...]
    help: str
    metavar: str | None = None
    implies: tuple[str, ...] = ()

    @property
    def dest(self) -> str:
        """The attribute ``argparse`` stores the flag's value under."""
        long = next(name for name in self.names if name.startswith("--"))
        return long[2:].replace("-", "_")


@dataclass(frozen=True, slots=True)
class SettingKind:
    """What one setting accepts, for the cheap check.

    Attributes:
        type: ``str``, ``int``, ``float``, ``bool``, ``list`` (of strings) or ``choice``.
        default: The value when no layer sets it (a list's is a tuple).
        optional: ``None`` is allowed too (it is the default).
        choices: The allowed strings of a ``choice``.
        ge, gt, le: Bounds of a number.
        rules: A list of permission rules (each must parse).
    """

    type: str
    default: Any = None
    optional: bool = False
    choices: tuple[str, ...] = ()
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    rules: bool = False


@dataclass(frozen=True, slots=True)
class SettingSpec:
    """One setting as :class:`SettingFields` declares it.

    Attributes:
        name: The key in ``config.toml`` (and ``AGENT_TUI_<NAME>``).
        annotation: Its Python type, as the pydantic model holds it.
        kind: What it accepts, for the cheap check.
        description: What it means (the model's field description, the tables' text).
        trust_gated: An untrusted project's own file may not set it: it could widen what
            the agent may do or send the person's key elsewhere.
        secret: Left out of the model's ``repr``.
        flag: Its command-line flag, if it has one.
    """

    name: str
    annotation: Any
    kind: SettingKind
    description: str
    trust_gated: bool = False
    secret: bool = False
    flag: CliFlag | None = None


@dataclass(frozen=True, slots=True)
class Declared:
    """What :func:`setting` was given, until :func:`specs_of` reads it."""

    default: Any
    description: str
    ge: float | None
    gt: float | None
    le: float | None
    rules: bool
    trust_gated: bool
    secret: bool
    flag: CliFlag | None


def setting(
    default: Any,
    *,
    description: str,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    rules: bool = False,
    trust_gated: bool = False,
    repr: bool = True,  # noqa: A002 - pydantic's name
    flag: CliFlag | None = None,
) -> Any:
    """Declare a setting in :class:`SettingFields` (the field's type is its annotation).

    Args:
        default: The value when nothing sets it (``[]`` for a list: each model gets its own).
        description: What it means.
        ge, gt, le: Bounds of a number.
        rules: Each item must parse as a permission rule.
        trust_gated: An untrusted project's own file may not set it.
        repr: False keeps the value out of the model's ``repr`` (keys).
        flag: The ``agent-tui`` flag that sets it.
    """
    return Declared(default, description, ge, gt, le, rules, trust_gated, not repr, flag)


def _kind(annotation: Any, declared: Declared) -> SettingKind:
    """``annotation`` and the declared bounds in the cheap check's terms."""
    optional = False
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [arg for arg in typing.get_args(annotation) if arg is not NoneType]
        optional = len(args) < len(typing.get_args(annotation))
        (annotation,) = args
    default = tuple(declared.default) if isinstance(declared.default, list) else declared.default
    choices: tuple[str, ...] = ()
    if typing.get_origin(annotation) is Literal:
        type_, choices = "choice", typing.get_args(annotation)
    elif typing.get_origin(annotation) is list:
        type_ = "list"
    else:
        type_ = {str: "str", int: "int", float: "float", bool: "bool"}[annotation]
    return SettingKind(type_, default, optional, choices, declared.ge, declared.gt, declared.le,
                       declared.rules)


def specs_of(fields: type) -> dict[str, SettingSpec]:
    """The settings ``fields`` declares (each attribute a :func:`setting`), in order."""
    specs: dict[str, SettingSpec] = {}
    for name, annotation in fields.__annotations__.items():
        declared = getattr(fields, name)
        specs[name] = SettingSpec(
            name,
            annotation,
            _kind(annotation, declared),
            declared.description,
            declared.trust_gated,
            declared.secret,
            declared.flag,
        )
    return specs
