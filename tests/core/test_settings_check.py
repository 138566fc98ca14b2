"""The cheap settings check the workbench draws its first frame from: it keeps to the
pydantic model, and whatever it vouches for, pydantic accepts unchanged."""

from __future__ import annotations

import math
import os
import types
import typing
from pathlib import Path

import annotated_types
import pytest

from agent_tui.core import paths
from agent_tui.core.config import (
    SETTING_KINDS,
    CheckedSettings,
    ConfigError,
    SettingKind,
    SettingsSources,
    load_settings,
    read_settings,
)
from agent_tui.core.settings import Settings


@pytest.fixture(autouse=True)
def no_agent_tui_variables(monkeypatch):
    for name in list(os.environ):
        if name.upper().startswith("AGENT_TUI_") and name.upper() != "AGENT_TUI_HOME":
            monkeypatch.delenv(name)


def kind_of(name: str) -> SettingKind:
    """What the pydantic model declares for ``name``, in SettingKind's terms."""
    info = Settings.model_fields[name]
    annotation, optional = info.annotation, False
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        (annotation,) = args
    bounds = {}
    for item in info.metadata:
        for bound in ("ge", "gt", "le"):
            if isinstance(item, getattr(annotated_types, bound.capitalize())):
                bounds[bound] = getattr(item, bound)
    if typing.get_origin(annotation) is typing.Literal:
        kind = SettingKind("choice", choices=typing.get_args(annotation))
    elif typing.get_origin(annotation) is list:
        assert typing.get_args(annotation) == (str,)
        kind = SettingKind("list", rules=name.endswith("_rules"))
    else:
        kind = SettingKind({str: "str", int: "int", float: "float", bool: "bool"}[annotation])
    default = info.get_default(call_default_factory=True)
    if isinstance(default, list):
        default = tuple(default)
    return SettingKind(kind.type, default, optional, kind.choices, rules=kind.rules, **bounds)


def test_setting_kinds_are_the_models_fields():
    assert list(SETTING_KINDS) == list(Settings.model_fields)
    for name, kind in SETTING_KINDS.items():
        assert kind == kind_of(name), name


def test_no_files_no_variables_no_flags_are_the_defaults(tmp_path):
    sources = read_settings(tmp_path)
    checked = sources.checked()
    assert checked is not None
    assert checked.values == sources.validate().model_dump()


FILE_VALUES = [
    True, False, 0, 1, -1, 5, 100, 1023, 1024, 10**6, 0.0, 0.5, 1.0, 2.0, 2.5, -0.5,
    math.inf, math.nan, "", "x", "openai/gpt-4.1", "default", "yolo", "reckless", "auto",
    "native", "none", "bwrap", "warn", "refuse", "off", "model", "searxng", "agent-tui-light",
    [], ["a", "b"], ["shell(git status)", "edit_file(src/**)"], ["shell(git status"], [1],
    {"a": 1},
]
ENV_VALUES = [
    "", "0", "1", "007", "-1", "+3", " 7", "1023", "1024", "1.5", "2", "2.0", "2.5", "1e3",
    "true", "True", "YES", "no", "off", "maybe", "x", "default", "yolo", "reckless", "bwrap",
    "none", "searxng", '["a"]', "[]", "None", "null",
]


def judged(sources: SettingsSources, name: str) -> None:
    """If the cheap check vouches for the settings, pydantic agrees on every value."""
    checked = sources.checked()
    if checked is None:
        return
    settings = sources.validate()  # must not raise
    for key, value in checked.values.items():
        held = getattr(settings, key)
        assert type(value) is type(held) and value == held, (name, key, value, held)
    assert checked.build().model_dump() == settings.model_dump()


@pytest.mark.parametrize("name", list(SETTING_KINDS))
def test_what_the_check_vouches_for_from_a_file_pydantic_accepts_unchanged(name, tmp_path):
    for value in FILE_VALUES:
        for layers in (({name: value}, {}), ({}, {name: value})):
            judged(SettingsSources(layers, {}, tmp_path / "u", tmp_path / "p"), name)
        judged(SettingsSources(({}, {}), {name: value}, tmp_path / "u", tmp_path / "p"), name)


@pytest.mark.parametrize("name", list(SETTING_KINDS))
def test_what_the_check_vouches_for_from_the_environment_pydantic_accepts_unchanged(
        name, tmp_path, monkeypatch):
    for text in ENV_VALUES:
        monkeypatch.setenv(f"AGENT_TUI_{name.upper()}", text)
        judged(SettingsSources(({name: "file"}, {}), {}, tmp_path / "u", tmp_path / "p"), name)


def test_the_check_takes_each_layer_in_pydantics_order(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / ".agent-tui").mkdir(parents=True)
    paths.user_config_file().write_text(
        f'model = "openai/user"\nmax_turns = 7\nmax_retries = 1\nnetwork = true\n'
        f'allow_rules = ["shell(make)"]\ntrusted_projects = ["{project.resolve()}"]\n'
        f'[projects."{project.resolve()}"]\nallow_rules = ["shell(npm test)"]\n')
    paths.project_config_file(project).write_text(
        'model = "openai/project"\nmax_turns = 8\napproval_mode = "auto-edit"\n'
        'temperature = 1\n')
    monkeypatch.setenv("AGENT_TUI_MAX_TURNS", "9")
    monkeypatch.setenv("agent_tui_theme", "agent-tui-light")
    monkeypatch.setenv("AGENT_TUI_NOTIFY_BELL", "off")

    sources = read_settings(project, {"model": "openai/flag", "max_turns": None})
    checked = sources.checked()

    assert checked is not None
    assert checked.model == "openai/flag" and checked.max_turns == 9
    assert checked.approval_mode == "auto-edit" and checked.temperature == 1.0
    assert checked.theme == "agent-tui-light" and checked.notify_bell is False
    assert checked.allow_rules == ["shell(make)", "shell(npm test)"]
    assert checked.values == load_settings(project, {"model": "openai/flag"}).settings.model_dump()


def test_a_value_only_pydantic_can_read_is_left_to_it(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_TUI_ENV_PASSTHROUGH", '["GITHUB_TOKEN"]')  # JSON: pydantic's
    sources = read_settings(tmp_path)
    assert sources.checked() is None
    assert sources.validate().env_passthrough == ["GITHUB_TOKEN"]


def test_an_invalid_value_is_never_vouched_for_and_pydantic_names_it(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_TUI_APPROVAL_MODE", "reckless")
    sources = read_settings(tmp_path)
    assert sources.checked() is None
    with pytest.raises(ConfigError, match="approval_mode"):
        sources.validate()


def test_checked_settings_copy_like_settings(tmp_path):
    checked = read_settings(tmp_path, {"max_turns": 3}).checked()
    assert isinstance(checked, CheckedSettings)
    copy = checked.model_copy(update={"model": "openai/picked"})
    assert (copy.model, checked.model) == ("openai/picked", None)
    built = copy.build()
    assert isinstance(built, Settings)
    assert (built.model, built.max_turns) == ("openai/picked", 3)
    with pytest.raises(AttributeError):
        checked.no_such_setting  # noqa: B018


def test_config_loads_without_pydantic_and_still_offers_settings(tmp_path):
    import subprocess
    import sys

    probe = subprocess.run(
        [sys.executable, "-c",
         "import sys\nfrom pathlib import Path\n"
         "from agent_tui.core.config import read_settings\n"
         f"checked = read_settings(Path({str(tmp_path)!r}), {{'model': 'openai/x'}}).checked()\n"
         "print(checked.model, any(m.startswith('pydantic') for m in sys.modules))\n"
         "from agent_tui.core.config import Settings\n"
         "print(Settings.__name__, any(m.startswith('pydantic') for m in sys.modules))\n"],
        capture_output=True, text=True, check=True, env={**os.environ, "AGENT_TUI_HOME":
                                                         str(Path(tmp_path) / "home")})
    assert probe.stdout.split() == ["openai/x", "False", "Settings", "True"]
