"""MCP prompts (offered as slash commands) and resources (attached with ``@server:uri``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import mcp_types as types
from mcp.client.session import ClientSession

_MAX_PAGES = 20
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class McpPromptInfo:
    """One prompt a server offers.

    Attributes:
        server: The server's name.
        name: The prompt's name, as the server gives it.
        description: What it is for.
        arguments: Its arguments in order: (name, required, description).
    """

    server: str
    name: str
    description: str
    arguments: tuple[tuple[str, bool, str], ...] = ()

    @property
    def command(self) -> str:
        """The slash command that runs it: ``/mcp__server__prompt`` (characters outside
        ``[A-Za-z0-9_-]`` made ``_``)."""
        return "/" + _NOT_NAME.sub("_", f"mcp__{self.server}__{self.name}")

    @property
    def hint(self) -> str:
        """Its arguments as the completion list shows them: ``NAME [OPTIONAL]``."""
        return " ".join(name.upper() if required else f"[{name.upper()}]"
                        for name, required, _ in self.arguments)

    def bind(self, typed: str) -> dict[str, str]:
        """The arguments of what was typed after the command: words in order, the last
        argument taking the rest.

        Raises:
            ValueError: a required argument is missing; the message names it.
        """
        names = [name for name, _, _ in self.arguments]
        words = typed.split(maxsplit=max(len(names) - 1, 0)) if names else []
        bound = dict(zip(names, words, strict=False))
        missing = [name for name, required, _ in self.arguments if required and name not in bound]
        if missing:
            raise ValueError(f"{self.command} needs {', '.join(missing)}: {self.command} "
                             f"{self.hint}")
        return bound


async def list_all_prompts(session: ClientSession, server: str) -> list[McpPromptInfo]:
    """Every prompt the server lists (none when it offers no prompts)."""
    capabilities = session.server_capabilities
    if capabilities is None or capabilities.prompts is None:
        return []
    found: list[McpPromptInfo] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await session.list_prompts(
            params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        for prompt in page.prompts:
            found.append(McpPromptInfo(server, prompt.name, prompt.description or "", tuple(
                (a.name, bool(a.required), a.description or "")
                for a in prompt.arguments or [])))
        cursor = page.next_cursor
        if not cursor:
            break
    return found


def prompt_text(result: types.GetPromptResult) -> str:
    """A prompt's messages as one text for the model (what is not text is described)."""
    parts = []
    for message in getattr(result, "messages", None) or []:
        content = message.content
        if isinstance(content, types.TextContent):
            parts.append(content.text)
        elif isinstance(content, types.EmbeddedResource) and isinstance(
                content.resource, types.TextResourceContents):
            parts.append(content.resource.text)
        else:
            parts.append(f"[{getattr(content, 'type', 'content')} not shown]")
    return "\n\n".join(part for part in parts if part)


def resource_text(result: types.ReadResourceResult, uri: str) -> str:
    """A resource's contents as text (binary parts described)."""
    parts = []
    for item in getattr(result, "contents", None) or []:
        if isinstance(item, types.TextResourceContents):
            parts.append(item.text)
        else:
            kind = getattr(item, "mime_type", None) or "no type"
            parts.append(f"[binary contents of {uri} ({kind}) not shown]")
    return "\n".join(parts)
