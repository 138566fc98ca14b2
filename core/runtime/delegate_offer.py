"""The ``delegate`` tool, offered to an agent whose session has a delegate configured."""

from __future__ import annotations

import asyncio
import functools
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..agent import Agent

DELEGATE_GROUP = "delegates"
"""What the agent calls the tool it is lent for the configured delegates."""


async def offer_delegates(agent: Agent) -> None:
    """Offer ``agent``'s model the ``delegate`` tool when a delegate is configured for its
    project (its ``[delegates.NAME]``, an untrusted project's left out); else not at all."""
    from ...tools.delegate import DelegateTool
    from ..delegates.agent_host import run_delegated
    from ..delegates.config import DELEGATED_VARIABLE, load_delegates

    configs, _ = await asyncio.to_thread(load_delegates, agent.workdir)
    names = [config.name for config in configs if config.enabled]
    if os.environ.get(DELEGATED_VARIABLE):
        names = []  # this agent is itself a delegate: it does the work, it does not hand it on
    if not names:
        agent.tool_ctx.run_delegate = None
        agent.use_external_tools(DELEGATE_GROUP, [])
        return
    agent.tool_ctx.run_delegate = functools.partial(run_delegated, agent)
    agent.use_external_tools(DELEGATE_GROUP, [DelegateTool(names)])
