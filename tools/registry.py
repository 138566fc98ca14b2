"""One registry for every tool the agent can call: built-in, MCP, discovered and skill tools."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .aliases import BY_NAME, canonical_name
from .base import ErrorType, Invocation, Tool, ToolArgumentError, ToolContext, ToolParams
from .lean import LEAN_TOOLS, LEAN_WHY, lean_is_chosen, lean_schema

__all__ = ["ToolRegistry", "canonical_name", "parse_arguments"]


class ToolRegistry:
    """Tools by name, their schemas for the model, and validation of the model's calls.

    A limit (:meth:`offer_only`, a persona's ``tools``) hides tools from the model: they
    stay registered (``in`` and :meth:`register` still see them) but are neither offered,
    iterated, got nor built. The lean set (:meth:`use_lean`, ``tools/lean.py``) hides every
    tool but its few and offers those in their short form.
    """

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._schemas_json: str | None = None
        self._offered: Callable[[str], bool] | None = None
        self._hidden_why = ""
        self._lean = False
        for tool in tools:
            self.register(tool)

    def offer_only(self, offered: Callable[[str], bool] | None, why: str = "") -> None:
        """Offer the model only the tools whose name ``offered`` accepts (None: all of
        them, tools registered later included).

        Args:
            offered: Tells whether a tool name is offered.
            why: What a call of a hidden tool is told, e.g. ``the reviewer persona offers
                only read_file, grep``.
        """
        self._offered = offered
        self._hidden_why = why
        self._schemas_json = None

    def use_lean(self, lean: bool) -> None:
        """Offer the lean tool set (True) or every tool (False, the default)."""
        self._lean = lean
        self._schemas_json = None

    def choose_set(self, tool_set: str, window: int) -> None:
        """Offer the set ``tool_set`` names (``full``, ``lean``, or ``auto``: the lean set for
        a context window of ``window`` tokens when it is small)."""
        self.use_lean(lean_is_chosen(tool_set, window))

    @property
    def lean(self) -> bool:
        """Whether the lean tool set is offered."""
        return self._lean

    def _visible(self) -> dict[str, Tool]:
        if self._offered is None and not self._lean:
            return self._tools
        return {name: tool for name, tool in self._tools.items()
                if (self._offered is None or self._offered(name))
                and (not self._lean or name in LEAN_TOOLS)}

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
        """The offered tool called ``name``, or None."""
        return self._visible().get(name)

    def __contains__(self, name: object) -> bool:
        """Whether a tool called ``name`` is registered, offered or not."""
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        """The offered tools, in registration order."""
        return iter(list(self._visible().values()))

    @property
    def names(self) -> list[str]:
        """Names of the offered tools, in registration order."""
        return list(self._visible())

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of every tool (a fresh copy each call).

        Generating them with pydantic costs milliseconds a tool, and they are sent on every
        model call: they are built once and copied, since providers' adapters may edit them.
        """
        if self._schemas_json is None:
            self._schemas_json = json.dumps([
                lean_schema(tool.schema()) if self._lean else tool.schema()
                for tool in self._visible().values()])
        schemas: list[dict[str, Any]] = json.loads(self._schemas_json)
        return schemas

    def build(
        self, name: str, arguments: str | Mapping[str, Any] | None, ctx: ToolContext
    ) -> Invocation[ToolParams]:
        """Turn a model's tool call into an invocation.

        ``arguments`` may be the raw JSON text the model produced or a parsed mapping. A
        name or parameters another agent uses for one of these tools (``tools/aliases.py``)
        become that tool's; the invocation is always the tool's own.

        Raises:
            ToolArgumentError: unknown tool, malformed JSON or invalid arguments; the message
                is written for the model, with what it should send instead.
        """
        alias = BY_NAME.get(name)
        visible = self._visible()
        wanted = alias.tool if alias is not None else name
        tool = visible.get(wanted)
        if tool is None:
            available = ", ".join(visible)
            why = LEAN_WHY if self._lean and wanted not in LEAN_TOOLS else self._hidden_why
            if wanted in self._tools and why:
                raise ToolArgumentError(
                    f"{wanted!r} is not available: {why}. Available tools: {available}.",
                    ErrorType.UNAVAILABLE)
            if alias is not None:
                raise ToolArgumentError(
                    f"{name!r} is {alias.seed}'s name for agent-tui's {alias.tool!r}, which "
                    f"is not available in this session. Available tools: {available}.",
                    ErrorType.UNAVAILABLE)
            raise ToolArgumentError(
                f"there is no tool named {name!r}. Available tools: {available}."
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
