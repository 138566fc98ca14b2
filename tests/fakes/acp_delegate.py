"""A scripted coding agent that speaks ACP over stdio, for agent-tui's delegate tests.

Run as a program (``python tests/fakes/acp_delegate.py``). It does what real ACP agents (Claude
Code's and Gemini CLI's adapters) do with a client that offers its file system and terminals:
reads ``input.txt`` with ``fs/read_text_file``, asks ``session/request_permission`` before it
writes, writes ``out.txt`` with ``fs/write_text_file``, runs ``echo`` through ``terminal/*``,
and reports a plan, a thought, tool calls and its answer with ``session/update``. The prompt
steers it:

- ``direct``: writes ``direct.txt`` itself, on the disk, as OpenCode does (``costly``: and
  reports a cost of $0.25);
- ``outside``: asks to write ``/tmp/…/outside.txt`` (above the project);
- ``in place``: writes ``input.txt`` back (a file it has read);
- ``die``: exits in the middle of the turn;
- ``slow``: waits for ``session/cancel`` and ends ``cancelled``.

``FAKE_DELEGATE_HANG=1`` makes it never answer ``initialize``; ``FAKE_DELEGATE_CANCEL_MARK``
names a file it writes when it hears ``session/cancel``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    run_agent,
    start_tool_call,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AgentCapabilities,
    Cost,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PlanEntry,
    PromptResponse,
    ToolCallUpdate,
    UsageUpdate,
)


class ScriptedDelegate:
    def __init__(self) -> None:
        self.client: Any = None
        self.cwd = Path.cwd()
        self.cancelled = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        if os.environ.get("FAKE_DELEGATE_HANG"):
            await asyncio.sleep(3600)
        return InitializeResponse(protocol_version=PROTOCOL_VERSION,
                                  agent_capabilities=AgentCapabilities(load_session=False),
                                  agent_info=Implementation(name="scripted", version="1"))

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self.cwd = Path(cwd)
        return NewSessionResponse(session_id="scripted-1")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        if mark := os.environ.get("FAKE_DELEGATE_CANCEL_MARK"):
            Path(mark).write_text(f"session/cancel {session_id}\n")
        self.cancelled.set()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = " ".join(getattr(block, "text", "") for block in prompt)
        say = self.client.session_update
        await say(session_id, update_plan([PlanEntry(content="read, write, check",
                                                     priority="high", status="in_progress")]))
        await say(session_id, update_agent_thought_text("Reading the input first."))
        if "slow" in text:
            await self.cancelled.wait()
            return PromptResponse(stop_reason="cancelled")
        if "die" in text:
            os._exit(3)
        if "direct" in text:
            (self.cwd / "direct.txt").write_text("written by the delegate itself\n")
            if "costly" in text:
                await say(session_id, UsageUpdate(session_update="usage_update", used=100,
                                                  size=1000, cost=Cost(amount=0.25,
                                                                       currency="USD")))
            await say(session_id, update_agent_message_text("Wrote direct.txt myself."))
            return PromptResponse(stop_reason="end_turn")
        read = await self.client.read_text_file(session_id=session_id,
                                                path=str(self.cwd / "input.txt"))
        target = (self.cwd.parent.parent / "outside.txt" if "outside" in text
                  else self.cwd / "input.txt" if "in place" in text else self.cwd / "out.txt")
        await say(session_id, start_tool_call("w1", f"Write {target.name}", kind="edit",
                                              status="pending"))
        answer = await self.client.request_permission(
            session_id=session_id,
            tool_call=ToolCallUpdate(tool_call_id="w1", title=f"Write {target.name}",
                                     kind="edit"),
            options=[PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
                     PermissionOption(option_id="always", name="Always", kind="allow_always"),
                     PermissionOption(option_id="no", name="Reject", kind="reject_once")])
        chosen = getattr(answer.outcome, "option_id", None)
        if chosen not in ("yes", "always"):
            await say(session_id, update_tool_call("w1", status="failed"))
            await say(session_id, update_agent_message_text("You said no; nothing written."))
            return PromptResponse(stop_reason="end_turn")
        try:
            await self.client.write_text_file(session_id=session_id, path=str(target),
                                              content=read.content.upper())
        except Exception as exc:  # the client refused: say so, as real agents do
            await say(session_id, update_tool_call("w1", status="failed"))
            await say(session_id, update_agent_message_text(f"The write was refused: {exc}"))
            return PromptResponse(stop_reason="end_turn")
        await say(session_id, update_tool_call("w1", status="completed"))
        terminal = await self.client.create_terminal(session_id=session_id, command="echo",
                                                     args=["checked"], cwd=str(self.cwd))
        exited = await self.client.wait_for_terminal_exit(session_id=session_id,
                                                          terminal_id=terminal.terminal_id)
        output = await self.client.terminal_output(session_id=session_id,
                                                   terminal_id=terminal.terminal_id)
        await self.client.release_terminal(session_id=session_id,
                                           terminal_id=terminal.terminal_id)
        await say(session_id, update_agent_message_text(
            f"Wrote {target.name}; the check said {output.output.strip()!r} "
            f"(exit {exited.exit_code})."))
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(ScriptedDelegate()))
    sys.exit(0)
