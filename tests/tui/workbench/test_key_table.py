"""What the workbench's keys do is declared once (tui/workbench/key_table.py), each key named
by its binding's action: /help's keys, the key-hint footer and the keys tables of the README
and of the keys doc follow the bindings, and every binding shows in them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.binding import Binding

from agent_tui.tui.app import AgentApp
from agent_tui.tui.widgets.key_footer import APPROVALS, IDLE, RUNNING, TYPING
from agent_tui.tui.workbench.commands import help_text
from agent_tui.tui.workbench.key_table import (
    BEGIN,
    END,
    FILES_WITH_THE_TABLE,
    KEY_ROWS,
    bound,
    keys_paragraph,
    with_keys,
    with_table,
)

ROOT = Path(__file__).resolve().parents[3]
ACTIONS = re.compile(r"\{([^{}]+)\}")


def app_actions() -> set[str]:
    return {b.action if isinstance(b, Binding) else b[1] for b in AgentApp.BINDINGS}


@pytest.mark.parametrize("name", FILES_WITH_THE_TABLE)
def test_the_committed_keys_tables_are_what_the_declaration_gives(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"{name} lost its keys table"
    assert with_table(text) == text, (
        f"{name}'s keys table is not the declaration's: run "
        "python3 -m agent_tui.tui.workbench.key_table")


def test_every_binding_of_the_workbench_shows_in_the_table_and_in_help():
    in_table = {action for row in KEY_ROWS for action in ACTIONS.findall(row.keys)}
    in_help = {action for row in KEY_ROWS for item in row.brief
               for action in ACTIONS.findall(item)}
    assert app_actions() <= in_table, app_actions() - in_table
    assert app_actions() <= in_help, app_actions() - in_help


def test_help_names_each_key_as_its_binding_does():
    keys = bound()
    assert keys["show_keys"] == "F1" and keys["browse_sessions"] == "Ctrl+R"
    assert help_text().startswith(keys_paragraph() + "\n\n**Approvals**")
    for row in KEY_ROWS:
        for item in row.brief:
            assert with_keys(item) in help_text()


def test_a_key_named_by_an_action_nothing_binds_is_refused():
    with pytest.raises(KeyError):
        with_keys("{no_such_action} does nothing")


def test_the_footer_hints_name_bound_actions_only():
    keys = bound()
    for hint in (*IDLE, *TYPING, *RUNNING, APPROVALS):
        assert not hint.action or hint.action in keys, hint
