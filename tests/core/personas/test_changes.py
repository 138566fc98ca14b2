"""What taking on a persona changes in the settings: the model and the approval mode, never
wider than the command line's --approval-mode, and only narrower from an untrusted project."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.personas import Persona, persona_changes


def persona(*, model=None, mode=None, may_grant=True, source="user") -> Persona:
    return Persona("p", "d", "prompt", Path("/agents/p.md"), source, model=model,
                   approval_mode=mode, may_grant=may_grant)


def settings(**values) -> Settings:
    return Settings(model="openai/base", **values)


def test_model_and_mode_switch_when_the_source_may_grant():
    changes = persona_changes(persona(model="openai/strong", mode="auto-edit"), settings())
    assert changes.settings == {"agent": "p", "model": "openai/strong",
                                "approval_mode": "auto-edit"}
    assert changes.notes == []


def test_no_model_and_no_mode_change_only_the_name():
    assert persona_changes(persona(), settings()).settings == {"agent": "p"}


@pytest.mark.parametrize(("flag", "wanted", "got"), [
    ("default", "yolo", "default"), ("default", "auto-edit", "default"),
    ("auto-edit", "yolo", "auto-edit"), ("default", "plan", "plan"),
    ("yolo", "auto-edit", "auto-edit"), ("plan", "default", "plan")])
def test_the_mode_is_never_wider_than_the_command_lines(flag, wanted, got):
    changes = persona_changes(persona(mode=wanted), settings(approval_mode=flag), flag)
    assert changes.settings.get("approval_mode", flag) == got
    assert bool(changes.notes) == (got != wanted)
    if changes.notes:
        assert f"--approval-mode {flag}" in changes.notes[0]


def test_an_untrusted_projects_persona_only_narrows():
    untrusted = persona(model="openai/pricey", mode="yolo", may_grant=False, source="project")
    changes = persona_changes(untrusted, settings())
    assert changes.settings == {"agent": "p"}
    assert any("may not choose the model until you trust the folder" in n for n in changes.notes)
    assert any("may only make the mode stricter" in n for n in changes.notes)

    stricter = persona(mode="plan", may_grant=False, source="project")
    assert persona_changes(stricter, settings()).settings["approval_mode"] == "plan"


def test_the_command_lines_model_wins_at_start():
    changes = persona_changes(persona(model="openai/strong"), settings(), None, "openai/base")
    assert changes.settings == {"agent": "p"}
    assert "--model openai/base on the command line wins" in changes.notes[0]
