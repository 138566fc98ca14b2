"""The tools every agent has, in the order they are offered to the model."""

from __future__ import annotations

from .base import Tool
from .files import EditFileTool, ReadFileTool, WriteFileTool
from .shell import ShellTool
from .todo import TodoReadTool, TodoWriteTool

# Each tool family imports its tools below its own marker line.
# [search-imports]
# [code-imports]
# [files-more-imports]
# [web-imports]
# [process-docs-imports]


def builtin_tools() -> list[Tool]:
    """Fresh instances of the built-in tools."""
    tools: list[Tool] = [ReadFileTool(), WriteFileTool(), EditFileTool(), ShellTool(),
                         TodoReadTool(), TodoWriteTool()]
    # [search-tools]
    # [code-tools]
    # [files-more-tools]
    # [web-tools]
    # [process-docs-tools]
    return tools
