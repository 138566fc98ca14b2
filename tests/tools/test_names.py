"""Tool names live in one place: every built-in tool is named there, and the groups the
engine treats alike hold tools of the matching kind."""

from __future__ import annotations

from agent_tui.tools.base import ToolKind
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.names import (
    COMMAND_RULE_TOOL,
    COMMAND_TOOLS,
    EDIT_TOOLS,
    FOLDER_READING_TOOLS,
    PREVIEW_TOOLS,
    READ_TOOLS,
    ToolName,
)

KINDS = {tool.name: tool.kind for tool in builtin_tools(every=True)}


def test_every_built_in_tool_has_a_name_there_and_every_name_a_tool():
    assert sorted(KINDS) == sorted(ToolName)


def test_groups_hold_tools_of_the_matching_kind():
    assert {KINDS[name] for name in EDIT_TOOLS} == {ToolKind.EDIT}
    assert {KINDS[name] for name in READ_TOOLS | FOLDER_READING_TOOLS} == {ToolKind.READ}
    assert {KINDS[name] for name in COMMAND_TOOLS} == {ToolKind.EXECUTE}
    assert COMMAND_RULE_TOOL in COMMAND_TOOLS and PREVIEW_TOOLS <= COMMAND_TOOLS


def test_names_are_the_plain_strings_the_model_sends():
    assert ToolName.READ_FILE == "read_file" and f"{ToolName.SHELL}(ls)" == "shell(ls)"
