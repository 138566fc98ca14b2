"""One ACP session: an agent-tui agent in one project folder, recorded in our session store,
and the ordered stream of updates that shows it to the client."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp.schema import (
    AgentMessageChunk,
    PermissionOption,
    TextContentBlock,
    ToolCallProgress,
    ToolCallUpdate,
)

from ...core.agent import Agent
from ...core.config import Settings
from ...core.events import Event
from ...core.runtime.assembly import open_agent
from ...core.runtime.outside_tools import lend_outside_tools
from ...core.safety.redaction import RedactingSink, settings_secrets
from ...core.sessions.start import OpenedSession, close_session
from ..workbench.commands import COMMANDS
from .approver import AcpApprover
from .client_side import ClientFiles, ClientTerminals
from .updates import UpdateTranslator

Send = Callable[[Any], Any]
"""Sends one ``session/update`` payload to the client (awaitable)."""


@dataclass(slots=True)
class AcpSession:
    """A session an ACP client opened, with what it runs on.

    Attributes:
        agent: The engine.
        opened: Its log in our session store (``agent-tui --resume ID`` goes on from it).
        mcp: Its MCP servers (``core.mcp.McpManager``), or None.
        warnings: What went wrong while it started, told with the first answer.
        prompt_task: The prompt running now, if any (``session/cancel`` cancels it).
    """

    agent: Agent
    opened: OpenedSession
    mcp: Any = None
    warnings: list[str] = field(default_factory=list)
    prompt_task: asyncio.Task[Any] | None = None
    _outbox: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    _sender: asyncio.Task[None] | None = None

    @property
    def session_id(self) -> str:
        """The session's id, ours and the client's."""
        return self.agent.session_id

    def start_sending(self, client: Any) -> None:
        """Send queued updates to ``client``, in order, from now on."""
        async def send(update: Any) -> None:
            await client.session_update(session_id=self.session_id, update=update)

        self._sender = asyncio.create_task(self._send_all(send))

    def queue(self, update: Any) -> None:
        """Queue one update for the client (events arrive synchronously, sends are not)."""
        self._outbox.put_nowait(update)

    async def flush(self) -> None:
        """Wait until every queued update has been sent."""
        await self._outbox.join()

    async def _send_all(self, send: Send) -> None:
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            try:
                for update in merged(batch):
                    with contextlib.suppress(Exception):  # a gone client: the turn goes on
                        await send(update)
            finally:
                for _ in batch:
                    self._outbox.task_done()

    async def close(self) -> None:
        """Cancel a running prompt, stop the servers, release the session log."""
        if self.prompt_task is not None:
            self.prompt_task.cancel()
            with contextlib.suppress(BaseException):
                await self.prompt_task
        if self._sender is not None:
            self._sender.cancel()
        await asyncio.to_thread(self.agent.close)
        if self.mcp is not None:
            await self.mcp.close()
        await asyncio.to_thread(close_session, self.opened)


def merged(batch: Sequence[Any]) -> list[Any]:
    """``batch`` with runs of streamed text joined into one chunk and runs of progress of
    one call into its last state: a fast stream costs the client one message per send."""
    out: list[Any] = []
    for update in batch:
        last = out[-1] if out else None
        if (isinstance(update, AgentMessageChunk) and isinstance(last, AgentMessageChunk)
                and isinstance(update.content, TextContentBlock)
                and isinstance(last.content, TextContentBlock)):
            out[-1] = last.model_copy(update={"content": last.content.model_copy(
                update={"text": last.content.text + update.content.text})})
        elif (isinstance(update, ToolCallProgress) and isinstance(last, ToolCallProgress)
              and update.tool_call_id == last.tool_call_id):
            changed = {name: getattr(update, name) for name in update.model_fields_set
                       if getattr(update, name) is not None}
            out[-1] = last.model_copy(update=changed)
        else:
            out.append(update)
    return out


async def open_acp_session(
    settings: Settings, workdir: Path, opened: OpenedSession, client: Any,
    *, mcp_servers: Sequence[Any] = (), editor_files: bool = False,
    client_terminals: bool = False,
) -> AcpSession:
    """An agent for ``workdir`` recording into ``opened`` (its history restored when it has
    one), shown to and approved by ``client`` (the connection to the ACP client), with the
    project's discovered tools and MCP servers plus the client's ``mcp_servers``
    (``core.mcp.McpServerConfig``).

    With ``editor_files`` the tools see the client's text of files (edits never overwrite
    unsaved changes); with ``client_terminals`` shell commands run in the client's terminals
    (unless a sandbox is asked for, which only agent-tui's own processes have).

    Updates are queued from the start; the caller starts sending them once the client
    knows the session (after its reply to ``session/new`` or with ``session/load``).
    """
    warnings: list[str] = []
    terminal_calls: set[str] = set()
    translator = UpdateTranslator(workdir, terminal_calls=terminal_calls)
    holder: list[AcpSession] = []

    def show(event: Event) -> None:
        for update in translator.updates(event):
            holder[0].queue(update)

    async def ask_client(call: ToolCallUpdate, options: list[PermissionOption]) -> Any:
        session = holder[0]
        await session.flush()  # the call is on the client's screen before the question
        try:
            answer = await client.request_permission(session_id=session.session_id,
                                                     tool_call=call, options=options)
        except Exception:  # noqa: BLE001 - a client that cannot answer refuses the call
            return None
        return answer.outcome

    agent = await open_agent(settings, workdir, AcpApprover(ask_client, workdir),
                             RedactingSink(show, settings_secrets(settings)), session=opened,
                             command_names=COMMANDS.names, warn=warnings.append)
    session = AcpSession(agent, opened, warnings=warnings)
    holder.append(session)
    if editor_files:
        agent.tool_ctx.editor_text = ClientFiles(client, agent.session_id,
                                                 asyncio.get_running_loop())
    if client_terminals:
        terminals = ClientTerminals(client, agent.session_id, session.queue)
        terminals.calls = terminal_calls
        agent.tool_ctx.command_runner = terminals
    session.mcp = await lend_outside_tools(agent, settings, workdir, warnings.append,
                                           extra=mcp_servers, wait_s=MCP_START_S)
    return session


MCP_START_S = 15.0
"""How long a new session waits for its MCP servers before it starts without the slow ones."""
