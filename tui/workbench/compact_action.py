"""``/compact [FOCUS]`` in the workbench: the conversation summarized now, run as a turn is
(the app busy, Esc cancels), its summary shown for editing first as automatic compaction
shows it (unless ``review_compaction`` is off)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.agent import Agent


def compact_now(app: Any, focus: str) -> None:
    """Compact the front session's conversation, its summary steered by ``focus``; the app
    (:class:`~agent_tui.tui.app.AgentApp`) shows the tokens before and after."""

    async def review(summary: str) -> str:
        if not app.settings.review_compaction:
            return summary
        from ..screens.compaction import CompactionScreen

        return await app.push_screen_wait(CompactionScreen(summary, on_demand=True, focus=focus))

    async def work(agent: Agent) -> None:
        from ...core.runtime.direct_commands import compact_conversation

        await compact_conversation(agent, focus, review)

    app.start_work(work)
