"""What a server offers and what a call returns, as plain data the rest of agent-tui reads."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types


@dataclass(frozen=True)
class McpToolInfo:
    """One tool an MCP server offers.

    Attributes:
        server: The server's configured name.
        name: The tool's exact name on that server.
        description: What the server says the tool does.
        input_schema: The JSON schema of its arguments.
    """

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass
class McpCallResult:
    """What one tool call returned.

    Attributes:
        text: The text parts joined, with a line for each part that is not text.
        is_error: The server reported the call as failed (``isError``).
        images: Images as (MIME type, base64 data).
    """

    text: str
    is_error: bool
    images: list[tuple[str, str]] = field(default_factory=list)


def needs_task(tool: types.Tool) -> bool:
    """Whether the tool can only run as a task (``execution.taskSupport`` ``required``, the
    2025-11 protocol's tasks), which agent-tui's SDK cannot drive: such tools are not
    offered."""
    return tool.execution is not None and tool.execution.task_support == "required"


def tool_info(server: str, tool: types.Tool) -> McpToolInfo:
    """The :class:`McpToolInfo` of a listed tool."""
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    return McpToolInfo(server, tool.name, tool.description or tool.title or "", dict(schema))


def call_result(result: types.CallToolResult) -> McpCallResult:
    """Turn a ``tools/call`` result into text and images."""
    lines: list[str] = []
    images: list[tuple[str, str]] = []
    for part in result.content:
        if isinstance(part, types.TextContent):
            lines.append(part.text)
        elif isinstance(part, types.ImageContent):
            images.append((part.mime_type, part.data))
        elif isinstance(part, types.EmbeddedResource):
            resource = part.resource
            if isinstance(resource, types.TextResourceContents):
                lines.append(resource.text)
            elif (resource.mime_type or "").startswith("image/"):
                images.append((resource.mime_type or "", resource.blob))
            else:
                kind = resource.mime_type or "unknown type"
                lines.append(f"[binary resource {resource.uri} ({kind}, "
                             f"{_decoded_size(resource.blob)} bytes) not shown]")
        elif isinstance(part, types.ResourceLink):
            lines.append(f"[resource link: {part.name} <{part.uri}>]")
        elif isinstance(part, types.AudioContent):
            lines.append(f"[audio ({part.mime_type}, {_decoded_size(part.data)} bytes) not "
                         "shown]")
        else:
            lines.append(f"[{getattr(part, 'type', type(part).__name__)} content not shown]")
    if not lines and not images and result.structured_content is not None:
        lines.append(json.dumps(result.structured_content, ensure_ascii=False))
    return McpCallResult("\n".join(lines), bool(result.is_error), images)


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)
