"""The tools every agent has, in the order they are offered to the model."""

from __future__ import annotations

from .base import Tool
from .files import EditFileTool, ReadFileTool, WriteFileTool
from .shell import ShellTool
from .todo import TodoReadTool, TodoWriteTool


def builtin_tools() -> list[Tool]:
    """Fresh instances of the built-in tools."""
    return [ReadFileTool(), WriteFileTool(), EditFileTool(), ShellTool(), TodoReadTool(),
            TodoWriteTool()]
