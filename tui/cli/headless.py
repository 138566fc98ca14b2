"""Headless mode: ``agent-tui -p PROMPT``. Output goes to stdout in the requested format;
diagnostics go to stderr. Nothing here imports textual.

Tool names and summaries, errors, previews and the answer are outside text and often end up
on a terminal: in the text formats their escape sequences, control and invisible characters
are written as visible pictures (``␛``), never raw. JSON escapes control characters itself.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ...core.agent import Agent
from ...core.approval import ApprovalRequest, HeadlessApprover
from ...core.config import Settings
from ...core.events import (
    ApprovalDecided,
    AutoCommitted,
    CheckRan,
    ErrorEvent,
    Escalated,
    Event,
    EventSink,
    LaneStarted,
    Preview,
    RoundEnded,
    RunResult,
    SessionStart,
    StreamRestart,
    ToolCallStarted,
    ToolResultEvent,
)
from ...core.runtime.assembly import open_agent
from ...core.runtime.outside_tools import lend_outside_tools as lend_tools
from ...core.runtime.prompt_resolution import PromptFailed, resolve_prompt, run_resolved
from ...core.safety.redaction import RedactingSink, settings_secrets
from ...core.sessions.start import OpenedSession
from ...tools.base import EDIT_TIER_NOTES
from ...tools.images import image_parts, load_image, prompt_image_parts
from ..outside_text import visible
from ..workbench.commands import COMMANDS

if TYPE_CHECKING:
    from ...core.mcp import McpManager
    from ...core.personas import Persona

OUTPUT_FORMATS = ("text", "json", "stream-json")


class HeadlessPrinter:
    """Writes events as text, one JSON result, or JSON lines (``stream-json``)."""

    def __init__(self, output_format: str, out: TextIO, err: TextIO) -> None:
        self.output_format = output_format
        self.out = out
        self.err = err
        self._told: set[str] = set()  # calls whose refusal the person was told of
        self._denied: set[str] = set()  # calls whose refusal was printed

    def tell_refusal(self, request: ApprovalRequest, text: str) -> None:
        """Tell the person, once, that the call was refused and what would allow it (the
        text formats; stream-json carries the ``approval`` event)."""
        if self.output_format == "stream-json":
            return
        self._told.add(request.call_id)
        self.err.write(visible(f"  ✗ {text}") + "\n")
        self.err.flush()

    def handle(self, event: Event, role: str | None = None) -> None:
        """Print one event as the output format wants it.

        ``role`` names the agent it came from when two work together (autonomous mode's
        ``player`` and ``coach``): stream-json carries it, the text lines start with it, and
        a run's result is then not the final one (the caller prints that).
        """
        if self.output_format == "stream-json":
            data = event.to_dict()
            if role is not None:
                data["role"] = role
            self.out.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
            self.out.flush()
            return
        if isinstance(event, RunResult):
            if role is None:
                self._finish(event)
            return
        if self.output_format == "json" and not isinstance(event, ErrorEvent | StreamRestart):
            return  # one JSON result at the end; only trouble is told on stderr on the way
        if isinstance(event, ApprovalDecided) and event.decision == "deny":
            self._denied.add(event.id)
            if event.id in self._told:
                return  # the person was told in their words already
        elif isinstance(event, ToolResultEvent) and event.id in self._denied:
            return  # its refusal was the line before: once is enough
        show = PROGRESS_LINES.get(type(event))
        line = show(event) if show is not None else None
        if line and getattr(event, "parent_id", None) is not None:
            line = "\n".join(f"    {part}" for part in line.split("\n"))  # under its task
        if line:
            self.err.write(visible(f"[{role}] {line}" if role else line) + "\n")
            self.err.flush()

    def _finish(self, result: RunResult) -> None:
        if self.output_format == "json":
            self.out.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
        elif result.text:
            self.out.write(visible(result.text.rstrip("\n")) + "\n")
        self.out.flush()


def _result_line(event: ToolResultEvent) -> str:
    if event.ok:
        line = f"  ✓ {event.name} ({event.duration:.1f}s)"
        if note := EDIT_TIER_NOTES.get(event.edit_tier or ""):
            line += f", {note}"
        line += "".join(f"\n  ! {warning}" for warning in event.warnings)
    else:
        line = f"  ✗ {event.name}: {(event.output.splitlines() or [''])[0][:160]}"
    if event.suggest_escalation:
        line += f"\n  ↑ a stronger model may help: {event.escalation_reason or 'the tool said so'}"
    return line


PROGRESS_LINES: dict[type[Event], Callable[[Any], str | None]] = {
    ToolCallStarted: lambda e: f"● {e.summary or e.name}",
    ApprovalDecided: lambda e: f"  ✗ denied: {e.reason}" if e.decision == "deny" else None,
    ToolResultEvent: _result_line,
    StreamRestart: lambda e: f"  ↻ {e.describe()}",
    ErrorEvent: lambda e: f"agent-tui: error: {e.message}",
    Escalated: lambda e: f"↑ escalated to {e.model}: {e.reason}",
    LaneStarted: lambda e: f"── round {e.round}: the {e.role}",
    RoundEnded: lambda e: (f"── round {e.round}: the coach approves" if e.approved
                           else f"── round {e.round}: the coach asks for changes:\n{e.review}"),
    Preview: lambda e: preview_text(e),
    CheckRan: lambda e: check_line(e),
    AutoCommitted: lambda e: (f"● committed {e.commit[:7]} {e.message.splitlines()[0]}"
                              + (f" (left out: {', '.join(e.left_out)})" if e.left_out else "")),
}
"""What the text formats tell the person on stderr, one line (or block) per event type."""


def check_line(event: CheckRan) -> str:
    """A lint or test run for people: its command, then how it ended and, when it failed,
    the end of its output."""
    if event.status == "running":
        return f"● {event.kind}: {event.command}"
    if event.status == "passed":
        return f"  ✓ {event.kind} passed ({event.duration:.1f}s)"
    ended = f"exit {event.exit_code}" if event.exit_code is not None else "did not finish"
    tail = "\n".join(f"    {line}" for line in event.output.splitlines()[-PREVIEW_OUTPUT_LINES:])
    fixing = ", sent to the model to fix" if event.feedback else ""
    return f"  ✗ {event.kind} failed ({ended}{fixing})" + (f"\n{tail}" if tail else "")


PREVIEW_DIFF_LINES = 40
"""Lines of each file's diff a text-mode preview prints."""
PREVIEW_OUTPUT_LINES = 20
"""Last lines of a previewed command's output a text-mode preview prints."""


def preview_text(event: Preview) -> str:
    """A previewed command's effect for people: how it ended, each change with the start
    of its diff, the end of its output and what it left running."""
    if event.timed_out:
        ended = "killed by the time box"
    else:
        ended = f"exit {event.exit_code}"
    count = len(event.changes)
    lines = [f"  ◇ preview ({ended}, {count} file{'' if count == 1 else 's'} changed; "
             "nothing was written to the project)"]
    for change in event.changes:
        lines.append(f"    {change['kind']:<8} {change['path']}")
        diff = change["diff"].splitlines()
        lines += [f"      {line}" for line in diff[:PREVIEW_DIFF_LINES]]
        if len(diff) > PREVIEW_DIFF_LINES:
            lines.append(f"      … {len(diff) - PREVIEW_DIFF_LINES} more diff lines")
    output = event.output.splitlines()
    if output:
        shown = output[-PREVIEW_OUTPUT_LINES:]
        skipped = f" (last {len(shown)} of {len(output)} lines)" if len(output) > len(shown) \
            else ""
        lines.append(f"    output{skipped}:")
        lines += [f"      {line}" for line in shown]
    for command in event.left_running:
        lines.append(f"    left running (then killed): {command}")
    return "\n".join(lines)


async def run_headless(
    settings: Settings,
    workdir: Path,
    prompt: str,
    output_format: str,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    *,
    session: OpenedSession | None = None,
    preview: bool = False,
    images: Sequence[str] = (),
) -> int:
    """Run one prompt to the end; return the exit code (0 done, 1 failure).

    With ``session`` the run is recorded in that session's log (and goes on from its
    history when it was resumed); without, nothing is written. With ``preview`` each shell
    or background_process call that needs approval is first previewed in a sandbox (a
    ``preview`` event), then refused as without it.  ``images`` are image files (``--image``) the
    prompt attaches; one that cannot be read ends the run before it starts (exit code 2).
    """
    attached = []
    for name in images:  # --image FILE: read before anything starts, or say why not
        loaded = load_image(workdir / Path(name).expanduser(), name)
        if isinstance(loaded, str):
            err.write(f"agent-tui: error: --image {visible(name)}: {visible(loaded)}\n")
            return 2
        attached.append((loaded.shown, image_parts([loaded])[0]))
    printer = HeadlessPrinter(output_format, out, err)
    # stdout ends up in CI logs and pipes: it shows no key, as the workbench shows none.
    shown = RedactingSink(printer.handle, settings_secrets(settings))
    approver = HeadlessApprover(settings.approval_mode, preview=preview,
                                tell=printer.tell_refusal)
    agent = await headless_agent(settings, workdir, shown, approver, err, session=session)
    knowledge = agent.knowledge
    printer.handle(SessionStart(agent.session_id, agent.provider.model, str(workdir),
                                settings.approval_mode, agent.tool_protocol))
    mcp = await lend_outside_tools(agent, settings, workdir, err)
    # `-p "/review 42"` runs a custom command, `-p "/mcp__docs__review app.py"` a server's
    # prompt, as the workbench does.
    try:
        try:
            resolved = await resolve_prompt(prompt, workdir, knowledge.commands, mcp,
                                            images=attached, read_images=prompt_image_parts)
        except PromptFailed as exc:
            err.write(f"agent-tui: error: {visible(str(exc))}\n")
            return 2
        for warning in resolved.warnings:
            err.write(f"agent-tui: warning: {visible(warning)}\n")
        result = await run_resolved(agent, resolved)
    finally:
        await asyncio.to_thread(agent.close)
        if mcp is not None:
            await mcp.close()
    return 0 if result.ok else 1


async def headless_agent(settings: Settings, workdir: Path, sink: EventSink,
                         approver: HeadlessApprover, err: TextIO, *,
                         session: OpenedSession | None = None,
                         persona: Persona | None = None) -> Agent:
    """An agent for a run without a workbench: the project's knowledge and memory, the
    session's history when it goes on from one; what is wrong with them said on ``err``.
    ``persona`` replaces the one the settings name."""
    agent = await open_agent(settings, workdir, approver, sink, session=session,
                             command_names=COMMANDS.names, persona=persona,
                             warn=_warner(err))
    approver.emit = agent.emit
    return agent


async def lend_outside_tools(agent: Agent, settings: Settings, workdir: Path,
                             err: TextIO) -> McpManager | None:
    """Give ``agent`` the project's discovered tools and its MCP servers' tools; returns the
    servers (to close after the run) or None. What fails is said on ``err``."""
    return await lend_tools(agent, settings, workdir, _warner(err))


def _warner(err: TextIO) -> Callable[[str], None]:
    """What says each warning on ``err``, a line each."""
    def warn(warning: str) -> None:
        err.write(f"agent-tui: warning: {visible(warning)}\n")

    return warn
