"""What the model is offered: the registry's tools as the persona limits them, the tools
lent from outside (MCP servers, the project's discovery command), and the system prompt
that describes them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from ..tools.base import Tool
from ..tools.registry import ToolRegistry
from . import text_protocol
from .config import Settings
from .knowledge import Knowledge
from .prompts import system_prompt
from .providers.base import Message, Provider


class OfferOwner(Protocol):
    """What the offer reads of its agent, as it is at each change (the person may switch
    the mode or the network between turns; knowledge read anew brings a new persona)."""

    @property
    def provider(self) -> Provider: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def knowledge(self) -> Knowledge: ...

    @property
    def messages(self) -> list[Message]: ...


class ToolOffer:
    """The tools one agent offers its model and the system prompt that goes with them.

    Args:
        owner: The agent (its provider, settings, knowledge and conversation).
        registry: The agent's tools.
        workdir: The project folder the system prompt names.
        native_tools: Whether the model takes tool schemas (else the system prompt lists
            the tools for the text protocol).
    """

    def __init__(self, owner: OfferOwner, registry: ToolRegistry, workdir: Path,
                 native_tools: bool) -> None:
        self._owner = owner
        self.registry = registry
        self.workdir = workdir
        self.native_tools = native_tools
        self.specs: dict[str, text_protocol.ToolSpec] = {}
        """The tools as the text protocol parses their calls (kept for native models too)."""
        self._external: dict[str, list[str]] = {}  # tools from outside, by group

    def limit_to_persona(self) -> None:
        """Offer the model only the tools the knowledge's persona allows (all without one)."""
        persona = self._owner.knowledge.persona
        if persona is None:
            self.registry.offer_only(None)
        else:
            self.registry.offer_only(persona.tool_filter(), persona.limit_reason())

    def refresh(self) -> None:
        """The tools and the system prompt anew, for the knowledge as it is now."""
        self.limit_to_persona()
        self.specs = text_protocol.tool_specs(self.registry.schemas())
        self.rewrite_system_prompt()

    def use_external(self, group: str, tools: Sequence[Tool]) -> bool:
        """Offer ``tools`` instead of the tools last given for ``group``; returns whether
        anything changed. A tool whose name a built-in tool has is left out."""
        old = self._external.get(group, [])
        fresh = [tool for tool in tools if tool.name not in self.registry
                 or tool.name in old]
        if sorted(old) == sorted(tool.name for tool in fresh):
            return False
        for name in old:
            self.registry.remove(name)
        for tool in fresh:
            self.registry.register(tool)
        self._external[group] = [tool.name for tool in fresh]
        self.specs = text_protocol.tool_specs(self.registry.schemas())
        if not self.native_tools:
            self.rewrite_system_prompt()  # the text protocol lists the tools in it
        return True

    def rewrite_system_prompt(self) -> None:
        """The system prompt from the settings, the tools and the knowledge as they are."""
        owner, registry = self._owner, self.registry
        messages = owner.messages
        messages[0] = {**messages[0], "content": system_prompt(
            self.workdir, owner.provider.model,
            None if self.native_tools else registry.schemas(),
            owner.settings.approval_mode, owner.settings.network,
            owner.knowledge.prompt_sections(skills=not registry.lean),
            lean=registry.lean)}
