"""What a prompt sent from outside the workbench (``-p``, an ACP client) asks the agent.

``/review 42`` runs the custom command ``/review``, ``/mcp__docs__review app.py`` an MCP
server's prompt, anything else is sent as typed. The workbench has its own slash commands;
these are the ones that make sense without it. Nothing here imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.custom_commands import CustomCommands


class PromptFailed(Exception):
    """The prompt names an MCP prompt that could not be fetched; the message says why."""


@dataclass(frozen=True, slots=True)
class TypedPrompt:
    """The text the model gets for a typed prompt.

    Attributes:
        text: The prompt itself, a custom command's or an MCP server's prompt.
        allowed_rules: Permission rules allowed for this turn (a custom command's tools).
        warning: What the person should know (a command's tools not granted).
    """

    text: str
    allowed_rules: tuple[str, ...] = ()
    warning: str | None = None


async def typed_prompt(prompt: str, commands: CustomCommands, mcp: Any = None) -> TypedPrompt:
    """What ``prompt`` sends, given the session's custom commands and MCP servers
    (``core.mcp.McpManager`` or None).

    Raises:
        PromptFailed: an MCP prompt's server failed or its arguments do not fit.
    """
    if not prompt.startswith("/"):
        return TypedPrompt(prompt)
    name, _, arguments = prompt.strip().partition(" ")
    if mcp is not None and name.startswith("/mcp__"):
        found = next((p for p in mcp.prompts() if p.command == name), None)
        if found is not None:
            from ..core.mcp import McpError

            try:
                return TypedPrompt(await mcp.get_prompt(found.server, found.name,
                                                        found.bind(arguments)))
            except (McpError, ValueError) as exc:
                raise PromptFailed(str(exc)) from None
    command = commands.get(name)
    if command is None:
        return TypedPrompt(prompt)
    warning = None
    if command.allowed_tools and not command.granted_rules:
        warning = (f"{command.name}: its allowed-tools are not granted: the project is not "
                   "trusted.")
    return TypedPrompt(command.prompt(arguments), command.granted_rules, warning)
