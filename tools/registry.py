"""One registry for every tool the agent can call: built-in, MCP, discovered and skill tools."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .aliases import BY_NAME, canonical_name
from .base import Invocation, Tool, ToolArgumentError, ToolContext

__all__ = ["ToolRegistry", "canonical_name", "parse_arguments"]


class ToolRegistry:
    """Tools by name, their schemas for the model, and validation of the model's calls."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._schemas_json: str | None = None
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add a tool. A second tool of the same name is a programming error."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        self._schemas_json = None

    def remove(self, name: str) -> None:
        """Take the tool ``name`` out (an MCP server's tool that is gone); no error if absent."""
        if self._tools.pop(name, None) is not None:
            self._schemas_json = None

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or None."""
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self):
        return iter(self._tools.values())

    @property
    def names(self) -> list[str]:
        """Names of all registered tools, in registration order."""
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of every tool (a fresh copy each call).

        Generating them with pydantic costs milliseconds a tool, and they are sent on every
        model call: they are built once and copied, since providers' adapters may edit them.
        """
        if self._schemas_json is None:
            self._schemas_json = json.dumps([tool.schema() for tool in self._tools.values()])
        return json.loads(self._schemas_json)

    def build(
        self, name: str, arguments: str | Mapping[str, Any] | None, ctx: ToolContext
    ) -> Invocation[Any]:
        """Turn a model's tool call into an invocation.

        ``arguments`` may be the raw JSON text the model produced or a parsed mapping. A
        name or parameters another agent uses for one of these tools (``tools/aliases.py``)
        become that tool's; the invocation is always the tool's own.

        Raises:
            ToolArgumentError: unknown tool, malformed JSON or invalid arguments; the message
                is written for the model, with what it should send instead.
        """
        alias = BY_NAME.get(name)
        tool = self._tools.get(alias.tool if alias is not None else name)
        if tool is None:
            if alias is not None:
                raise ToolArgumentError(
                    f"{name!r} is {alias.seed}'s name for agent-tui's {alias.tool!r}, which "
                    f"is not available in this session. Available tools: "
                    f"{', '.join(self._tools)}.")
            raise ToolArgumentError(
                f"there is no tool named {name!r}. Available tools: {', '.join(self._tools)}."
            )
        args = parse_arguments(arguments, tool)
        if alias is not None:
            args = alias.translate(args)
        return tool.build(args, ctx)


def parse_arguments(arguments: str | Mapping[str, Any] | None, tool: Tool) -> Mapping[str, Any]:
    """Parse a tool call's arguments, explaining to the model what was wrong with them."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, Mapping):
        return arguments
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError as exc:
        raise ToolArgumentError(
            f"the arguments of {tool.name} are not valid JSON ({exc.msg} at position {exc.pos}). "
            f"Send one JSON object matching this schema: {json.dumps(tool.parameters_schema())}"
        ) from None
    if not isinstance(parsed, dict):
        raise ToolArgumentError(
            f"the arguments of {tool.name} must be a JSON object, not {type(parsed).__name__}. "
            f"Schema: {json.dumps(tool.parameters_schema())}"
        )
    return parsed
