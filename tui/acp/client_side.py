"""What agent-tui borrows from an ACP client that offers it: its view of files (so an edit
never overwrites what the person has not saved) and its terminals (so a command runs where
the person watches it)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from acp import tool_terminal_ref, update_tool_call
from acp.schema import EnvVariable

from ...tools.base import CURRENT_CALL_ID, CommandRun

EDITOR_READ_S = 5.0
"""How long a tool waits for the client's text of a file before it goes on without it."""
TERMINAL_POLL_S = 0.25
"""How often a running terminal's output is fetched for the tool's live output."""
TERMINAL_OUTPUT_BYTES = 1_000_000
"""Output a client's terminal keeps for agent-tui (the shell tool keeps head and tail of it)."""


class ClientFiles:
    """The client's text of a file (its editor's buffer, unsaved changes included), for
    ``ToolContext.editor_text``: asked with ``fs/read_text_file`` from a worker thread.

    Args:
        client: The connection to the client.
        session_id: The session the tools run in.
        loop: The event loop the connection runs on.
    """

    def __init__(self, client: Any, session_id: str, loop: asyncio.AbstractEventLoop) -> None:
        self.client = client
        self.session_id = session_id
        self.loop = loop

    def __call__(self, path: Path) -> str | None:
        """The client's text of ``path``; None when it cannot say in time (or when asked on
        the event loop itself, which would wait for its own answer)."""
        if self.loop.is_closed() or _on_loop(self.loop):
            return None
        future = asyncio.run_coroutine_threadsafe(
            self.client.read_text_file(session_id=self.session_id, path=str(path)), self.loop)
        try:
            return future.result(EDITOR_READ_S).content
        except Exception:  # noqa: BLE001 - no answer: the tools go by the disk alone
            future.cancel()
            return None


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class ClientTerminals:
    """A :class:`~agent_tui.tools.base.CommandRunner` that runs the shell tool's commands in
    the client's terminals (``terminal/create``…), embedded in the call the client shows.

    Args:
        client: The connection to the client.
        session_id: The session the tools run in.
        show: Queues a session update (the call's terminal).
    """

    def __init__(self, client: Any, session_id: str, show: Callable[[Any], None]) -> None:
        self.client = client
        self.session_id = session_id
        self.show = show
        self.calls: set[str] = set()
        """Calls whose output the client shows in its terminal, not as text."""

    async def run(self, command: str, cwd: Path, env: Mapping[str, str] | None,
                  timeout_s: float, feed: Callable[[bytes], None]) -> CommandRun:
        """Run ``command`` with bash in a client terminal; see ``CommandRunner.run``."""
        ids = {"session_id": self.session_id}
        try:
            created = await self.client.create_terminal(
                command="bash", args=["-c", command], cwd=str(cwd),
                env=[EnvVariable(name=k, value=v) for k, v in _changed_env(env).items()],
                output_byte_limit=TERMINAL_OUTPUT_BYTES, **ids)
        except Exception as exc:  # noqa: BLE001 - the client's error, said to the model
            raise OSError(f"the client could not open a terminal for it: {exc}") from None
        ids["terminal_id"] = created.terminal_id
        call_id = CURRENT_CALL_ID.get()
        if call_id is not None:
            self.calls.add(call_id)
            self.show(update_tool_call(call_id, status="in_progress",
                                       content=[tool_terminal_ref(created.terminal_id)]))
        exited = asyncio.ensure_future(self.client.wait_for_terminal_exit(**ids))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        seen = ""
        try:
            while True:
                await asyncio.wait({exited}, timeout=max(0.0, min(
                    TERMINAL_POLL_S, deadline - loop.time())))
                output = await self.client.terminal_output(**ids)
                seen = _feed_new(seen, output.output, feed)
                if exited.done():
                    status = exited.result()
                    return CommandRun(status.exit_code, status.signal)
                if loop.time() >= deadline:
                    with contextlib.suppress(Exception):
                        await self.client.kill_terminal(**ids)
                    return CommandRun(None, "SIGKILL", timed_out=True)
        finally:
            exited.cancel()
            # Cancelled or not, the terminal is the client's to close; its output stays
            # shown in the call.
            with contextlib.suppress(Exception):
                await asyncio.shield(self._release(ids))

    async def _release(self, ids: dict[str, str]) -> None:
        with contextlib.suppress(Exception):
            await self.client.kill_terminal(**ids)
        await self.client.release_terminal(**ids)


def _changed_env(env: Mapping[str, str] | None) -> dict[str, str]:
    """What agent-tui sets for commands beyond the environment the client started it with."""
    if env is None:
        return {}
    return {name: value for name, value in env.items() if os.environ.get(name) != value}


def _feed_new(seen: str, output: str, feed: Callable[[bytes], None]) -> str:
    """Pass on what ``output`` (all a terminal kept) adds to ``seen``; return ``output``.

    A terminal that dropped its oldest output is matched on the end of what was seen."""
    if output.startswith(seen):
        new = output[len(seen):]
    else:
        tail = seen[-256:]
        at = output.rfind(tail) if tail else -1
        new = output[at + len(tail):] if at >= 0 else output
    if new:
        feed(new.encode("utf-8", errors="replace"))
    return output

