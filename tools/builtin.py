"""The tools every agent has, in the order they are offered to the model."""

from __future__ import annotations

from .base import Tool
from .files import EditFileTool, ReadFileTool, WriteFileTool
from .shell import ShellTool


def builtin_tools() -> list[Tool]:
    """Fresh instances of the built-in tools: read_file, write_file, edit_file, shell."""
    return [ReadFileTool(), WriteFileTool(), EditFileTool(), ShellTool()]
