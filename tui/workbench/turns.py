"""The front session's prompts: shown, queued behind the running one, run one at a time.

:class:`FrontTurns` runs what the person sends to the session in front: a prompt typed while
another runs waits in the session's queue (``app.front.queue``) and runs when that one ends;
a running prompt is one worker in the app's ``turn`` group, which Esc cancels. While a prompt
runs the app is busy and one timer redraws what it waits for; once it ends and the person is
away, the garbage collector gets its turn (:mod:`.pauses`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..widgets.conversation import UserBlock
from ..widgets.key_footer import KeyFooter
from ..widgets.waiting import TICK_S
from . import NO_MODEL
from .pauses import collect_everything, freeze_between_turns
from .session import QueuedPrompt

if TYPE_CHECKING:
    from textual.timer import Timer

    from ...core.agent import Agent
    from ...tools.base import ImagePart

AWAY_BEFORE_COLLECTING_ALL = 30.0
"""Seconds without a key, after a turn, before everything is collected (a longer pause)."""

Images = tuple[tuple[str, "ImagePart"], ...]
"""The images a prompt attaches: (name, part)."""


class FrontTurns:
    """Runs the front session's prompts, one after another, as the app's ``turn`` worker.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`).
        replaying: The app replays a recorded session (it loads no model library).
    """

    def __init__(self, app: Any, *, replaying: bool = False) -> None:
        self.app = app
        self.replaying = replaying
        self._wait_timer: Timer | None = None
        """Redraws what the running prompt waits for (paused while none runs)."""

    async def submit(self, text: str) -> None:
        """What the person sent from the prompt box: a slash command runs, an MCP server's
        prompt (``/mcp__server__prompt ARGS``) or any other text is queued as a prompt, with
        the images it names."""
        app = self.app
        if text.startswith("/"):
            name, _, typed = text.strip().partition(" ")
            prompt = app.outside_tools.prompt_named(name)
            if prompt is not None:
                await self._run_mcp_prompt(prompt, text, typed)
                return
            if app.knowledge.custom_command(name) is None:
                await app.run_slash_command(text.strip())
                return
        from ...tools.images import prompt_image_parts

        # Read now, not when the turn starts, so that the prompt shows what it attaches.
        images, problems = await asyncio.to_thread(prompt_image_parts, text, app.workdir)
        for problem in problems:
            app.notice(f"Not attached: {problem}", error=True)
        await self.queue_prompt(text, tuple(images))

    async def _run_mcp_prompt(self, prompt: Any, line: str, typed: str) -> None:
        """Send an MCP server's prompt (``/mcp__server__prompt ARGS``) as the next prompt."""
        from ...core.mcp import McpError

        try:
            text = await self.app.outside_tools.manager.get_prompt(
                prompt.server, prompt.name, prompt.bind(typed)
            )
        except (McpError, ValueError) as exc:
            self.app.notice(str(exc), error=True)
            return
        await self.queue_prompt(text, shown=line)

    async def queue_prompt(
        self, text: str, images: Images = (), *, shown: str | None = None
    ) -> None:
        """Show the person's prompt (``shown``, else ``text``) and run ``text``, after the
        running turn if any."""
        app = self.app
        block = UserBlock(
            text if shown is None else shown,
            queued=app.busy,
            images=tuple(name for name, _ in images),
        )
        await app.conversation.add(block)
        if app.busy:
            app.queue.append(QueuedPrompt(text, images, block))
            app.status.queued = len(app.queue)
        else:
            self.start_turn(text, images)

    def start_turn(self, text: str, images: Images = ()) -> None:
        """Run one prompt, already shown in the conversation, in a worker; a custom
        command's line (``/review 42``) runs as the prompt its file makes of it; ``images``
        are the images it attaches (name, part)."""

        async def one_prompt(agent: Agent) -> None:
            await self.run_prompt(agent, text, images)

        if self._begin():
            front = self.app.front
            front.title = front.title or " ".join(text.split())[:48]
            self._run(one_prompt)

    def start_work(self, work: Callable[[Agent], Awaitable[None]]) -> None:
        """Run ``work`` with the session's agent as a turn (busy, Esc cancels, the queue
        waits): what autonomous mode runs."""
        if self._begin():
            self._run(work)

    def _begin(self) -> bool:
        if not self.app.settings.model:
            self.app.notice(NO_MODEL, error=True)
            return False
        self.set_busy(True)
        self.app.view.prompt_shown = True
        return True

    def _run(self, work: Callable[[Agent], Awaitable[None]]) -> None:
        """The worker of one turn; cancelling it cancels the stream and kills tools."""
        self.app.run_worker(self._turn_of(work), exclusive=True, group="turn", exit_on_error=False)

    async def _turn_of(self, work: Callable[[Agent], Awaitable[None]]) -> None:
        app = self.app
        agent: Agent | None = None
        cancelled = False
        try:
            agent = await app.ensure_agent()
            app.outside_tools.offer_tools(agent)
            await work(agent)
        except asyncio.CancelledError:
            cancelled = True
            if agent is None or agent is app.agent:  # else it went to the background
                await app.view.finish_assistant()
                app.notice("Cancelled: the stream was stopped and running tools were killed.")
            raise
        except Exception as exc:  # the engine reports its own failures; this is a bug
            app.notice(f"Unexpected error: {type(exc).__name__}: {exc}", error=True)
        finally:
            self.work_ended(agent, cancelled=cancelled)

    def work_ended(self, agent: Agent | None, *, cancelled: bool = False) -> None:
        """A prompt of ``agent`` ended: the front session takes its next queued prompt; a
        session in the background (sent there meanwhile, or started there) its own."""
        app = self.app
        if agent is not None and agent is not app.agent:
            app.background.ended(agent, cancelled=cancelled)
            return
        self.set_busy(False)
        app.away.turn_ended(outcome="cancelled" if cancelled else app.front.outcome)
        app.call_later(self._next_in_queue)
        app.call_later(app.knowledge.reload_pending)
        app.set_timer(1.0, self._freeze_if_idle)

    async def run_prompt(self, agent: Agent, text: str, images: Images = ()) -> None:
        """Run a typed prompt with ``agent`` as every front end does
        (:func:`~agent_tui.core.runtime.prompt_resolution.resolve_prompt`): a custom command's
        prompt with its allowed tools and on its model, the MCP resources it names attached;
        ``images`` are those read when it was typed."""
        from ...core.runtime.prompt_resolution import PromptFailed, resolve_prompt, run_resolved

        app = self.app
        knowledge = await app.knowledge.ready()
        try:
            prompt = await resolve_prompt(
                text, app.workdir, knowledge.commands, app.outside_tools.manager, images=images
            )
        except PromptFailed as exc:
            app.notice(str(exc), error=True)
            return
        for warning in prompt.warnings:
            app.notice(warning, error=True)
        if prompt.model and prompt.model != agent.provider.model:
            app.notice(f"{prompt.command} runs on {prompt.model}.")
        await run_resolved(agent, prompt, app.agents.make_provider)

    def _freeze_if_idle(self) -> None:
        if self.app.busy:
            return
        freeze_between_turns()
        self.app.set_timer(AWAY_BEFORE_COLLECTING_ALL, self._collect_all_if_away)

    def _collect_all_if_away(self) -> None:
        away = time.monotonic() - self.app.last_key_at
        if not self.app.busy and away >= AWAY_BEFORE_COLLECTING_ALL:
            collect_everything()

    def _next_in_queue(self) -> None:
        app = self.app
        if app.busy or not app.queue:
            return
        prompt = app.queue.popleft()
        prompt.block.mark_sent()
        app.status.queued = len(app.queue)
        self.start_turn(prompt.text, prompt.images)

    def set_busy(self, busy: bool) -> None:
        """Whether the front session runs a prompt (the status bar says so)."""
        app = self.app
        app.busy = busy
        app.status.busy = busy
        app.query_one(KeyFooter).busy = busy
        self._show_waits(busy)

    def _show_waits(self, busy: bool) -> None:
        """Show what the running prompt waits for, live (one timer for the app, paused
        while no prompt runs)."""
        app = self.app
        if not busy:
            if self._wait_timer is not None:
                self._wait_timer.pause()
            if app.has_view:
                app.view.turn_ended()
            return
        from ...core.providers.litellm import is_loaded

        # A replay shows a recorded session: it loads no model library.
        loading = not self.replaying and app.agent is None and not is_loaded()
        app.view.turn_started(loading=loading)
        if self._wait_timer is None:
            self._wait_timer = app.set_interval(TICK_S, app.view.tick)
        else:
            self._wait_timer.resume()
