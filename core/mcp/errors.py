"""The one error the MCP client raises."""

from __future__ import annotations


class McpError(Exception):
    """An MCP server could not do what was asked; the message says what happened and what
    to do next, for people and the model alike."""
