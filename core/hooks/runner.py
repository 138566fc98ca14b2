"""Running the hooks of an event for a session and combining what they said."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from pathlib import Path

from .answers import Answer, read_answer
from .hook_set import Hook, HookSet
from .outcomes import (
    HookOutcome,
    PromptVerdict,
    ToolHookVerdict,
    post_tool_outcome,
    prompt_verdict,
    session_start_outcome,
    stop_outcome,
    tool_verdict,
)
from .process import run_hook

SESSION_START_SOURCES: tuple[str, ...] = ("startup", "resume", "clear")
"""Why a session starts, as SessionStart hooks are told it."""


class HookRunner:
    """Runs a session's hooks: one method per event, each returning what the hooks said.

    The matching hooks of an event run at once; an event without hooks returns without
    starting anything, so asking on every tool call costs nothing.

    Args:
        hooks: The hooks, from :func:`~agent_tui.core.hooks.load_hooks`.
        workdir: The project folder: the hooks' working directory, ``cwd`` in their input
            and ``$AGENT_TUI_PROJECT_DIR`` / ``$CLAUDE_PROJECT_DIR``.
        session_id: The session's id, ``session_id`` in their input.
        env: Their environment (before the two variables above); None means this
            process's own.
    """

    def __init__(self, hooks: HookSet, workdir: Path, session_id: str,
                 env: Mapping[str, str] | None = None) -> None:
        self.hooks = hooks
        self.workdir = workdir
        self.session_id = session_id
        self._env = env

    async def pre_tool_use(self, tool_name: str, tool_input: object,
                           call_id: str) -> ToolHookVerdict:
        """Ask the PreToolUse hooks matching ``tool_name`` about a call before it runs."""
        hooks = self.hooks.for_event("PreToolUse", tool_name)
        if not hooks:
            return ToolHookVerdict()
        return tool_verdict(await self._run(hooks, {
            "tool_name": tool_name, "tool_input": tool_input, "tool_use_id": call_id}))

    async def post_tool_use(self, tool_name: str, tool_input: object, call_id: str,
                            ok: bool, output: str,
                            error_type: str | None = None) -> HookOutcome:
        """Tell the PostToolUse hooks matching ``tool_name`` how a call went.

        Args:
            error_type: Why a failed call failed (``tools.base.ErrorType``), passed on as
                ``tool_response.error_type``.

        Returns:
            ``feedback`` for the model, ``failures`` and ``stop``.
        """
        hooks = self.hooks.for_event("PostToolUse", tool_name)
        if not hooks:
            return HookOutcome()
        response: dict[str, object] = {"ok": ok, "output": output}
        if error_type is not None:
            response["error_type"] = error_type
        return post_tool_outcome(await self._run(hooks, {
            "tool_name": tool_name, "tool_input": tool_input, "tool_use_id": call_id,
            "tool_response": response}))

    async def user_prompt_submit(self, prompt: str) -> PromptVerdict:
        """Ask the UserPromptSubmit hooks about a prompt before the model sees it."""
        hooks = self.hooks.for_event("UserPromptSubmit")
        if not hooks:
            return PromptVerdict()
        return prompt_verdict(await self._run(hooks, {"prompt": prompt}))

    async def stop(self, last_answer: str, stop_hook_active: bool = False) -> HookOutcome:
        """Ask the Stop hooks whether the agent may end its turn with ``last_answer``.

        Args:
            last_answer: The model's final text.
            stop_hook_active: True when the turn already went on because a Stop hook said
                so; hooks read it to avoid keeping the agent going forever.

        Returns:
            ``go_on_reason`` (set: the turn goes on with it told to the model),
            ``failures`` and ``stop``.
        """
        hooks = self.hooks.for_event("Stop")
        if not hooks:
            return HookOutcome()
        return stop_outcome(await self._run(hooks, {
            "last_answer": last_answer, "stop_hook_active": stop_hook_active}))

    async def session_start(self, source: str) -> HookOutcome:
        """Run the SessionStart hooks.

        Args:
            source: One of :data:`SESSION_START_SOURCES`.

        Returns:
            ``context`` for the model, ``failures`` and ``stop``.
        """
        hooks = self.hooks.for_event("SessionStart")
        if not hooks:
            return HookOutcome()
        return session_start_outcome(await self._run(hooks, {"source": source}))

    async def _run(self, hooks: list[Hook], fields: dict[str, object]) -> list[Answer]:
        payload = {"session_id": self.session_id, "cwd": str(self.workdir),
                   "hook_event_name": hooks[0].event, **fields}
        stdin = json.dumps(payload, default=str).encode()
        project = str(self.workdir)
        env = {**(os.environ if self._env is None else self._env),
               "AGENT_TUI_PROJECT_DIR": project, "CLAUDE_PROJECT_DIR": project}
        runs = await asyncio.gather(*(run_hook(h, stdin, self.workdir, env) for h in hooks))
        return [read_answer(run) for run in runs]
