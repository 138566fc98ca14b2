"""MCP servers' tools, offered to the model like any other: ``mcp__<server>__<tool>``.

Each :class:`McpTool` wraps one :class:`~agent_tui.core.mcp.McpToolInfo` and calls it through
the session's :class:`~agent_tui.core.mcp.McpManager`; a failed call is a result the model
reads, never an exception.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from ..core.mcp import McpError, McpManager, McpToolInfo
from .base import (
    ImagePart,
    Invocation,
    OpenArguments,
    OutputCallback,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolResult,
    _simplify_schema,
)

PROGRESS_BAR_CELLS = 10
MAX_TOOL_NAME = 64
"""The longest function name the providers accept."""
_NOT_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_DESCRIBE_ARGS_CHARS = 80


def mcp_tool_name(server: str, tool: str) -> str:
    """The name the model calls an MCP tool by: ``mcp__<server>__<tool>``, with characters
    outside ``[A-Za-z0-9_-]`` replaced by ``_``, at most 64 characters (a longer name keeps a
    hash of the whole so that two long names stay apart)."""
    name = _NOT_NAME_CHARS.sub("_", f"mcp__{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[:MAX_TOOL_NAME - len(digest) - 1]}_{digest}"


class McpTool(Tool):
    """One tool of an MCP server.

    ``Tool`` keeps ``name``, ``description`` and ``ask_reason`` on the class, so each
    ``McpTool(info, manager)`` is an instance of a subclass made for that tool.

    Attributes:
        info: The tool as its server lists it.
        manager: The session's MCP servers, which carry out the calls.
    """

    kind = ToolKind.OTHER
    Params = OpenArguments

    def __new__(cls, info: McpToolInfo, manager: McpManager) -> McpTool:
        description = f"[MCP server {info.server}] {info.description}".rstrip()
        own = type(f"McpTool_{mcp_tool_name(info.server, info.name)}", (cls,), {
            "name": mcp_tool_name(info.server, info.name),
            "description": description,
            "ask_reason": f"calls the MCP server {info.server}",
            "__doc__": description,
        })
        return super().__new__(own)

    def __init__(self, info: McpToolInfo, manager: McpManager) -> None:
        self.info = info
        self.manager = manager

    def parameters_schema(self) -> dict[str, Any]:
        """The server's input schema (titles dropped, as for built-in tools)."""
        schema = _simplify_schema(self.info.input_schema) if self.info.input_schema else {}
        schema.setdefault("type", "object")
        if schema["type"] == "object":
            schema.setdefault("properties", {})
        return schema

    def build(self, args: Mapping[str, Any], ctx: ToolContext) -> Invocation[OpenArguments]:
        """Check that ``args`` is an object with the keys the schema requires.

        Raises:
            ToolArgumentError: not an object, or required keys missing; the message shows
                the schema.
        """
        schema_text = json.dumps(self.parameters_schema())
        if not isinstance(args, Mapping):
            raise ToolArgumentError(f"the arguments of {self.name} must be a JSON object, not "
                                    f"{type(args).__name__}. Schema: {schema_text}")
        required = self.info.input_schema.get("required", [])
        missing = [key for key in required if isinstance(key, str) and key not in args]
        if missing:
            raise ToolArgumentError(f"invalid arguments for {self.name}: missing required "
                                    f"{', '.join(missing)}. Expected parameters (JSON schema): "
                                    f"{schema_text}")
        # The arguments are the params too: the approval modal shows params, and a person
        # approves what the call sends.
        return McpInvocation(self, OpenArguments(**args), ctx, dict(args))

    def create_invocation(self, params: Any, ctx: ToolContext) -> Invocation[OpenArguments]:
        """Make an invocation of already checked arguments (a pydantic model or a dict)."""
        arguments = params if isinstance(params, dict) else dict(params.model_extra or {})
        return McpInvocation(self, OpenArguments(**arguments), ctx, arguments)


class McpInvocation(Invocation[OpenArguments]):
    """One call of an MCP tool."""

    tool: McpTool

    def __init__(self, tool: McpTool, params: OpenArguments, ctx: ToolContext,
                 arguments: dict[str, Any]) -> None:
        super().__init__(tool, params, ctx)
        self.arguments = arguments

    def describe(self) -> str:
        if not self.arguments:
            return self.tool.name
        shown = json.dumps(self.arguments, ensure_ascii=False, separators=(",", ":"))
        if len(shown) > _DESCRIBE_ARGS_CHARS:
            shown = shown[:_DESCRIBE_ARGS_CHARS - 1] + "…"
        return f"{self.tool.name} {shown}"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        info = self.tool.info
        on_progress = None
        if on_output is not None:
            def on_progress(done: float, total: float | None, message: str | None) -> None:
                # A carriage return redraws the call's progress line in its block.
                on_output("\r" + progress_text(done, total, message))
        try:
            result = await self.tool.manager.call(info.server, info.name, self.arguments,
                                                  on_progress=on_progress)
        except McpError as exc:
            return ToolResult.failure(str(exc))
        if result.is_error:
            return ToolResult.failure(result.text.strip() or f"the MCP server {info.server} "
                                      f"reported that {info.name} failed, without saying why")
        images = [ImagePart(mime, data) for mime, data in result.images]
        text = result.text
        if images and not self.ctx.supports_images:
            text += (f"\n[{len(images)} image(s) not shown: this model does not take images]")
            images = []
        if not text.strip():
            text = f"[{len(images)} image(s)]" if images else "(the tool returned nothing)"
        return ToolResult(llm_content=text.strip(), images=images)


def progress_text(done: float, total: float | None, message: str | None) -> str:
    """A server's progress notification as one line: a bar and ``3/5`` when the total is
    known, the count alone when not, and the server's message."""
    if total and total > 0:
        filled = max(0, min(PROGRESS_BAR_CELLS, round(PROGRESS_BAR_CELLS * done / total)))
        line = f"{'▰' * filled}{'▱' * (PROGRESS_BAR_CELLS - filled)} {done:g}/{total:g}"
    else:
        line = f"progress {done:g}"
    return f"{line} {' '.join(message.split())}" if message else line


def mcp_tools(manager: McpManager) -> list[Tool]:
    """A tool for each tool of the manager's ready servers (``enabled_tools`` applied)."""
    return [McpTool(info, manager) for info in manager.tools()]
