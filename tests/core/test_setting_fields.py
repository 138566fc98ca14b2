"""Each setting is declared once (core/setting_fields.py): the pydantic model, the cheap check,
the trust gate, the command-line flags and the settings tables of the README and the
configuration doc all come from that declaration and agree with it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from agent_tui.core.config import SETTING_KINDS, TRUST_GATED_KEYS
from agent_tui.core.setting_docs import BEGIN, END, FILES_WITH_THE_TABLE, with_table
from agent_tui.core.setting_fields import SETTINGS
from agent_tui.core.settings import Settings
from agent_tui.tui.cli.cli_parser import build_parser, settings_overrides

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", FILES_WITH_THE_TABLE)
def test_the_committed_settings_tables_are_what_the_declaration_gives(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"{name} lost its settings table"
    assert with_table(text) == text, (
        f"{name}'s settings table is not the declaration's: run "
        "python3 -m agent_tui.core.setting_docs")


@pytest.mark.parametrize("name", FILES_WITH_THE_TABLE)
def test_every_setting_has_its_row(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    table = text[text.index(BEGIN):text.index(END)]
    for setting in SETTINGS:
        assert f"\n| `{setting}`" in table, (name, setting)


def test_the_model_the_check_and_the_trust_gate_come_from_the_declaration():
    assert list(Settings.model_fields) == list(SETTINGS) == list(SETTING_KINDS)
    for name, spec in SETTINGS.items():
        field = Settings.model_fields[name]
        assert field.description == spec.description, name
        assert field.annotation == spec.annotation, name
        assert field.repr is not spec.secret, name
        assert SETTING_KINDS[name] == spec.kind, name
    assert TRUST_GATED_KEYS == {name for name, spec in SETTINGS.items() if spec.trust_gated}
    assert "api_key" not in repr(Settings(api_key="sk-secret")).replace("api_key_env", "")


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {option: action for action in parser._actions for option in action.option_strings}


@pytest.mark.parametrize("name", [name for name, spec in SETTINGS.items() if spec.flag])
def test_every_declared_flag_is_on_the_command_line_and_sets_its_setting(name):
    spec = SETTINGS[name]
    assert spec.flag is not None
    parser = build_parser()
    actions = _flags(parser)
    for option in spec.flag.names:
        assert actions[option].help == spec.flag.help, option
    value = {"bool": None, "choice": (spec.kind.choices or ("",))[-1], "int": "2048"}.get(
        spec.kind.type, "some-value")
    given = [spec.flag.names[0]] + ([] if value is None else [value])
    overrides = settings_overrides(parser.parse_args(given))
    expected = {"bool": True, "int": 2048}.get(spec.kind.type, value)
    assert overrides[name] == expected
    for implied in spec.flag.implies:
        assert overrides[implied] is True
    others = {key for key, got in overrides.items() if got is not None}
    assert others == {name, *spec.flag.implies}
    # Every setting with a flag is a key of the overrides, None when its flag is not given.
    assert set(settings_overrides(parser.parse_args([]))) == {
        key for key, other in SETTINGS.items() if other.flag}


def test_the_command_line_sets_settings_only_through_declared_flags():
    parser = build_parser()
    setting_dests = {spec.flag.dest for spec in SETTINGS.values() if spec.flag}
    for action in parser._actions:
        if action.dest in SETTINGS and action.dest not in setting_dests:
            pytest.fail(f"{action.option_strings} sets the setting {action.dest} by hand: "
                        "declare its flag in core/setting_fields.py")


@pytest.mark.parametrize("name", FILES_WITH_THE_TABLE)
def test_the_untrusted_project_paragraph_names_every_gated_key(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    start = text.index("cannot set `approval_mode`")
    paragraph = text[start:text.index("\n\n", start)]
    for key in TRUST_GATED_KEYS:
        assert f"`{key}`" in paragraph, (name, key)
