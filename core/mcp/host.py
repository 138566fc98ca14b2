"""What agent-tui offers MCP servers beyond calling their tools: the project folder as a
root, a person to fill in a server's form (elicitation), the session's model for a server's
own questions (sampling), and a place for the server's log messages.

A front end fills an :class:`McpHost` in (the workbench opens a form and asks before each
sampling request; a headless run has nobody to ask) and hands it to the
:class:`~agent_tui.core.mcp.McpManager`. Plain data: no SDK import.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

ElicitAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class ElicitationRequest:
    """A server asks the person for information (``elicitation/create``).

    Attributes:
        server: The server's configured name.
        message: What the server says it needs.
        schema: The form's JSON schema (flat: one property per field) in form mode.
        url: The page the server asks the person to visit, in URL mode (None: a form).
    """

    server: str
    message: str
    schema: dict[str, Any] = field(default_factory=dict)
    url: str | None = None


@dataclass(frozen=True)
class ElicitationAnswer:
    """The person's answer to an :class:`ElicitationRequest`.

    Attributes:
        action: ``accept`` (with ``content``), ``decline`` or ``cancel``.
        content: The form's values by field name, when accepted.
        reason: Why it was declined when nobody could answer (told to the server).
    """

    action: ElicitAction
    content: dict[str, Any] | None = None
    reason: str = ""


@dataclass(frozen=True)
class SamplingRequest:
    """A server asks the session's model for a completion (``sampling/createMessage``).

    Attributes:
        server: The server's configured name.
        messages: The conversation as (role, text) pairs; parts that are not text are
            described in words.
        system_prompt: The server's system prompt, if any.
        max_tokens: The most tokens the server wants back.
        temperature: The server's temperature, if any.
    """

    server: str
    messages: tuple[tuple[str, str], ...]
    system_prompt: str | None
    max_tokens: int
    temperature: float | None = None

    def describe(self) -> str:
        """The request as a person reads it before allowing it."""
        lines = [f"system: {self.system_prompt}"] if self.system_prompt else []
        lines += [f"{role}: {text}" for role, text in self.messages]
        lines.append(f"(at most {self.max_tokens} tokens"
                     + (f", temperature {self.temperature:g})" if self.temperature is not None
                        else ")"))
        return "\n".join(lines)


@dataclass(frozen=True)
class SamplingAnswer:
    """The model's reply to a :class:`SamplingRequest`.

    Attributes:
        text: What the model answered.
        model: The model that answered.
        stop_reason: ``endTurn`` or ``maxTokens``, when known.
    """

    text: str
    model: str
    stop_reason: str | None = None


class SamplingRefused(Exception):
    """A sampling request was not carried out; the message says why, for the server."""


Elicit = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
Sample = Callable[[SamplingRequest], Awaitable[SamplingAnswer]]

NO_PERSON_TO_ASK = ("agent-tui has no form to show here (a headless run or an ACP session), "
                    "so nobody can fill in this form; run it in agent-tui's workbench to "
                    "answer")


@dataclass
class McpHost:
    """What the session lends its MCP servers; a front end sets the parts it supports.

    Attributes:
        roots: Folders the servers may work in (the project folder), offered as
            ``file://`` roots.
        elicit: Asks the person to fill in a server's form (None: nobody can; every request
            is declined with :data:`NO_PERSON_TO_ASK`).
        sample: Runs a server's sampling request on the session's model after the person
            allowed it (None: sampling is refused); raises :class:`SamplingRefused`.
        note: Tells the person something about a server's request (e.g. that a form was
            declined because nobody could answer); None: nobody is told.
    """

    roots: list[Path] = field(default_factory=list)
    elicit: Elicit | None = None
    sample: Sample | None = None
    note: Callable[[str], None] | None = None

    def tell(self, text: str) -> None:
        """Tell the person ``text`` if someone listens; a listener's failure is ignored."""
        if self.note is not None:
            try:
                self.note(text)
            except Exception:
                pass
