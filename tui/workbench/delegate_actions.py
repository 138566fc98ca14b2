"""``/code`` and ``/delegates`` in the workbench: work handed to another coding agent runs as
a turn does (busy, Esc reaches the delegate as ``session/cancel``), through the same direct
command every front end runs (:mod:`agent_tui.core.delegates.agent_host`)."""

from __future__ import annotations

import asyncio
from typing import Any

from ...core.delegates.config import load_delegates


async def code(app: Any, arg: str) -> None:
    """Show ``/code ARG`` as the person's entry and run it as the next turn."""
    from ..widgets.conversation import UserBlock

    line = f"/code {arg}".strip()
    await app.conversation.add(UserBlock(line))
    app.start_turn(line)


async def list_delegates(app: Any) -> None:
    """Say which delegates are configured and whether each starts and answers."""
    configs, warnings = await asyncio.to_thread(load_delegates, app.workdir)
    for warning in warnings:
        app.notice(warning, error=True)
    if not configs:
        from ...core.delegates.agent_host import NO_DELEGATES

        app.notice(NO_DELEGATES)
        return
    app.notice(f"Checking {len(configs)} delegate(s)…")
    for line in await delegate_lines(configs):
        app.notice(line)


async def delegate_lines(configs: list[Any]) -> list[str]:
    """One line per delegate: name, command, folder, and whether it answers (probed at once)."""
    from ...core.delegates.agent_host import make_delegate

    async def state(config: Any) -> str:
        if not config.enabled:
            return "disabled"
        problem = await make_delegate(config).probe()
        return "answers" if problem is None else f"does not answer: {problem}"

    states = await asyncio.gather(*(state(config) for config in configs))
    lines = []
    for config, said in zip(configs, states, strict=True):
        where = "the project" if config.in_project else str(config.workspace)
        command = config.url or " ".join([config.command, *config.args])
        lines.append(f"{config.name} ({config.protocol}: {command}; works in {where}): {said}")
    return lines
