"""MCP servers' sampling requests run on a session's own model, each allowed by the person
the way a tool call is (the approver asks; ``yolo`` mode runs them unasked)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..approval import Allow, ApprovalRequest, ArgumentDetails, Deny
from ..mcp.host import Sample, SamplingAnswer, SamplingRefused, SamplingRequest
from ..providers.base import ProviderError

if TYPE_CHECKING:
    from ..agent import Agent

_numbers = itertools.count(1)

SAMPLING_REASON = "lets an MCP server use your model (sampling)"


def sampling_approval(request: SamplingRequest) -> ApprovalRequest:
    """The approval a sampling request waits for: the server, its messages, its limit."""
    first = next((text for role, text in request.messages if role == "user"), "")
    first = " ".join(first.split())
    if len(first) > 60:
        first = first[:59] + "…"
    return ApprovalRequest(
        call_id=f"mcp-sampling-{next(_numbers)}", tool=f"mcp__{request.server}__sampling",
        kind="info", summary=f"MCP server {request.server} asks the model: {first}",
        reason=SAMPLING_REASON, details=ArgumentDetails(request.describe()))


def agent_sampler(agent_of: Callable[[], Agent]) -> Sample:
    """Runs sampling requests on the model of the agent ``agent_of`` returns at the time
    (the workbench's front session's), after its approver allowed each; ``yolo`` mode runs
    them unasked, as it does tool calls.

    Raises (from the returned function):
        SamplingRefused: the person (or a headless run's policy) did not allow it, or the
            model call failed; the message says which, for the server.
    """

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        agent = agent_of()
        if agent.settings.approval_mode != "yolo":
            decision = await agent.approver.ask(sampling_approval(request), None)
            if isinstance(decision, Deny) and decision.by == "policy":
                raise SamplingRefused(
                    "agent-tui could not ask a person to allow this sampling request (a run "
                    "without a workbench); --approval-mode yolo allows it unasked")
            if not isinstance(decision, Allow):
                why = f": {decision.reason}" if isinstance(decision, Deny) and \
                    decision.reason else ""
                raise SamplingRefused(f"the person did not allow this sampling request{why}")
        messages = ([{"role": "system", "content": request.system_prompt}]
                    if request.system_prompt else [])
        messages += [{"role": "assistant" if role == "assistant" else "user", "content": text}
                     for role, text in request.messages]
        try:
            reply = await agent.provider.complete(messages, None, lambda _text: None)
        except ProviderError as exc:
            raise SamplingRefused(f"the model call failed: {exc.message}") from None
        stop = "maxTokens" if reply.finish_reason == "length" else "endTurn"
        return SamplingAnswer(reply.text, agent.provider.model, stop)

    return sample
