"""The lean tool set: the few tools a model with a small context window needs, described in
as few words as they can be.

The full set's schemas and instructions take about 7,000 tokens, most of an 8K window. The lean
set offers reading, searching, editing, writing and the shell (what g3, egirl and GLTCH give
their models as the core) and rehydrate (a result cut to fit a small window says to read the
rest with it), each with its essential parameters only; the tools' own validation
is unchanged, so an optional parameter the model still sends works.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

LEAN_WINDOW = 16_384
"""``tool_set = "auto"`` chooses the lean set for context windows up to this many tokens: at
16K the full set's fixed cost is nearly half the window, at 32K a fifth."""


@dataclass(frozen=True, slots=True)
class LeanTool:
    """A tool of the lean set as the model sees it.

    Attributes:
        description: The tool's description, shortened.
        parameters: The parameters offered, each with its short description, in order.
    """

    description: str
    parameters: dict[str, str] = field(default_factory=dict)


_PATH = "File path, relative to the project folder."

LEAN_TOOLS: dict[str, LeanTool] = {
    "read_file": LeanTool(
        "Read a text file. Lines come numbered `42: text`; the prefix is not in the file.",
        {
            "file_path": _PATH,
            "start_line": "First line, 1-indexed.",
            "end_line": "Last line, inclusive.",
        },
    ),
    "grep": LeanTool(
        "Search file contents for a regular expression; prints `path:line: text`.",
        {
            "pattern": "Python regular expression.",
            "path": "Folder or file to search (default: the project folder).",
        },
    ),
    "edit_file": LeanTool(
        "Replace old_text with new_text in a file you have read. Copy old_text exactly, "
        "without line numbers; it must occur once.",
        {
            "file_path": _PATH,
            "old_text": "Exact text to replace.",
            "new_text": "Text to put in its place.",
        },
    ),
    "write_file": LeanTool(
        "Create a file or replace its whole content (read an existing file first).",
        {"file_path": _PATH, "content": "The whole new content."},
    ),
    "shell": LeanTool(
        "Run a bash command in the project folder; returns its output and exit code. "
        "Not interactive.",
        {"command": "The command, e.g. `pytest -q`."},
    ),
    "rehydrate": LeanTool(
        "Bring back a result moved out of the context or cut to fit, by the fragment id it names.",
        {
            "fragment_id": "The fragment id.",
            "start_line": "First line, 1-indexed.",
            "end_line": "Last line, inclusive.",
        },
    ),
}
"""The lean set: each tool's short form, by name."""


def lean_is_chosen(tool_set: str, window: int) -> bool:
    """Whether a session offers the lean set: ``tool_set`` is ``lean``, or ``auto`` with a
    context window of at most :data:`LEAN_WINDOW` tokens."""
    return tool_set == "lean" or (tool_set == "auto" and window <= LEAN_WINDOW)


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The lean form of a tool's function-calling schema (the tool must be in
    :data:`LEAN_TOOLS`): its short description and its essential parameters only."""
    function = schema["function"]
    lean = LEAN_TOOLS[function["name"]]
    full = function["parameters"]
    properties: dict[str, Any] = {}
    for name, description in lean.parameters.items():
        prop = copy.deepcopy(full["properties"][name])
        prop["description"] = description
        prop.pop("default", None)
        properties[name] = prop
    parameters = {
        "type": "object",
        "properties": properties,
        "required": [n for n in full.get("required", []) if n in properties],
    }
    return {
        "type": "function",
        "function": {
            "name": function["name"],
            "description": lean.description,
            "parameters": parameters,
        },
    }


LEAN_WHY = (
    "the lean tool set for small context windows offers only "
    + ", ".join(LEAN_TOOLS)
    + ' (tool_set = "full" offers every tool)'
)
"""What a call of a tool the lean set leaves out is told."""
