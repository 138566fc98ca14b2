"""The engine's events as ACP session updates: streamed text, tool calls, the plan.

One :class:`UpdateTranslator` per session turns each :class:`~agent_tui.core.events.Event`
into the ``session/update`` payloads an ACP client shows. A call that changes a file is
shown as a diff: the file is read when the call starts and again when it ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import PlanEntry, ToolCallLocation, ToolKind

from ...core import events as ev
from ...core.text.visible_text import redrawn
from ...tools.names import EDIT_TOOLS, ToolName

TOOL_KINDS: dict[str, ToolKind] = {
    **{name: "read" for name in (
        ToolName.READ_FILE, ToolName.READ_MANY_FILES, ToolName.READ_IMAGE, ToolName.TODO_READ,
        ToolName.GET_INTERNAL_DOCS, ToolName.MEMORY_GET, ToolName.REHYDRATE,
        ToolName.ACTIVATE_SKILL)},
    **{name: "edit" for name in EDIT_TOOLS},
    **{name: "search" for name in (
        ToolName.LS, ToolName.GLOB_FILES, ToolName.GREP, ToolName.CODE_SEARCH,
        ToolName.MEMORY_SEARCH)},
    **{name: "execute" for name in (
        ToolName.SHELL, ToolName.BACKGROUND_PROCESS, ToolName.CODE_COVERAGE)},
    **{name: "fetch" for name in (
        ToolName.WEB_FETCH, ToolName.WEB_SEARCH, ToolName.RESEARCH, ToolName.HTTP_REQUEST,
        ToolName.GIF_SEARCH)},
    ToolName.TODO_WRITE: "think",
}
"""How a client should draw each built-in tool's calls; the rest are ``other``."""

SHOWN_OUTPUT = 8_000
"""Characters of a call's output a client is sent (the end of it, for live output)."""
DIFF_LIMIT = 2_000_000
"""Bytes of a file read to show a change of it as a diff; larger files get no diff."""

_TODO = re.compile(r"^\s*[-*] \[(?P<mark>[ xX])\] (?P<text>.+)$")


def tool_kind(name: str) -> ToolKind:
    """The ACP kind of a tool (``other`` for tools agent-tui does not know the nature of)."""
    return TOOL_KINDS.get(name, "other")


def plan_entries(todo: str) -> list[PlanEntry]:
    """The todo list's items as a plan: ticked ones done, the first open one in progress."""
    entries: list[PlanEntry] = []
    current = False
    for line in todo.splitlines():
        match = _TODO.match(line)
        if match is None:
            continue
        done = match.group("mark") in "xX"
        status = "completed" if done else "pending" if current else "in_progress"
        current = current or not done
        entries.append(PlanEntry(content=match.group("text").strip(), priority="medium",
                                 status=status))
    return entries


def _file_text(path: Path) -> str | None:
    """The file's text for a diff ("" when it does not exist); None when it cannot be shown."""
    try:
        if path.stat().st_size > DIFF_LIMIT:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    except OSError:
        return None


def _path_arg(args: Any) -> str | None:
    if isinstance(args, dict):
        for key in ("file_path", "path", "absolute_path"):
            if isinstance(args.get(key), str) and args[key]:
                return args[key]
    return None


@dataclass(slots=True)
class _Call:
    name: str
    path: Path | None = None
    before: str | None = None
    output: list[str] = field(default_factory=list)


class UpdateTranslator:
    """Turns one session's events into ACP session updates.

    Args:
        workdir: The project folder (relative paths in calls resolve against it).
        live: Events of a running turn (text comes as deltas); False for a session's
            history replayed to a client that loads it (text comes whole).
        terminal_calls: Calls whose command runs in one of the client's terminals, which
            shows their output (it is not sent again as text).
    """

    def __init__(self, workdir: Path, *, live: bool = True,
                 terminal_calls: set[str] | None = None) -> None:
        self.workdir = workdir
        self.live = live
        self.terminal_calls = terminal_calls if terminal_calls is not None else set()
        self._calls: dict[str, _Call] = {}

    def updates(self, event: ev.Event) -> list[Any]:
        """The updates that show ``event`` (none for events a client has no place for)."""
        return _TRANSLATIONS.get(type(event), UpdateTranslator._nothing)(self, event)

    def _text(self, event: ev.TextDelta) -> list[Any]:
        return [update_agent_message_text(event.text)] if event.text else []

    def _thought(self, event: ev.ThinkingDelta) -> list[Any]:
        return [update_agent_thought_text(event.text)] if event.text else []

    def _thinking(self, event: ev.Thinking) -> list[Any]:
        return [] if self.live or not event.text else [update_agent_thought_text(event.text)]

    def _answer(self, event: ev.AssistantMessage) -> list[Any]:
        return [] if self.live or not event.text else [update_agent_message_text(event.text)]

    def _prompt(self, event: ev.UserMessage) -> list[Any]:
        return [] if self.live else [update_user_message_text(event.text)]

    def _plan(self, event: ev.TodoUpdated) -> list[Any]:
        return [update_plan(plan_entries(event.content))]

    def _retry(self, event: ev.StreamRestart) -> list[Any]:
        return [update_agent_message_text(f"\n\n*({event.describe()})*\n\n")]

    def _error(self, event: ev.ErrorEvent) -> list[Any]:
        if event.fatal:
            return []
        return [update_agent_message_text(f"\n\n> agent-tui: {event.message}\n\n")]

    def _escalated(self, event: ev.Escalated) -> list[Any]:
        return [update_agent_message_text(
            f"\n\n*(escalated to {event.model}: {event.reason})*\n\n")]

    def _compacted(self, event: ev.Compacted) -> list[Any]:
        return [update_agent_message_text(
            f"\n\n*(context compacted: {event.tokens_before:,} → {event.tokens_after:,} "
            "tokens)*\n\n")]

    def _nothing(self, event: ev.Event) -> list[Any]:
        return []

    def _check(self, event: ev.CheckRan) -> list[Any]:
        """A lint or test run after the turn's edits: a call of its own in the client."""
        if event.status == "running":
            return [start_tool_call(event.id, f"{event.kind}: {event.command}", kind="execute",
                                    status="in_progress")]
        output = event.output[-SHOWN_OUTPUT:]
        content = [tool_content(text_block(_fenced(output)))] if output.strip() else None
        return [update_tool_call(event.id, status="completed" if event.status == "passed"
                                 else "failed", content=content)]

    def _committed(self, event: ev.AutoCommitted) -> list[Any]:
        subject = event.message.splitlines()[0] if event.message else ""
        return [update_agent_message_text(
            f"\n\n*(committed {event.commit[:7]}: {subject})*\n\n")]

    def _started(self, event: ev.ToolCallStarted) -> Any:
        call = _Call(event.name)
        self._calls[event.id] = call
        where = _path_arg(event.args)
        locations = None
        if where is not None:
            call.path = (self.workdir / Path(where).expanduser()).resolve()
            locations = [ToolCallLocation(path=str(call.path))]
            if event.name in EDIT_TOOLS and self.live:
                call.before = _file_text(call.path)
        return start_tool_call(event.id, event.summary or event.name, kind=tool_kind(event.name),
                               status="pending", locations=locations,
                               raw_input=event.args if isinstance(event.args, dict) else None)

    def _decided(self, event: ev.ApprovalDecided) -> Any:
        if event.decision == "allow":
            return update_tool_call(event.id, status="in_progress")
        self._calls.pop(event.id, None)
        return update_tool_call(event.id, status="failed", content=[
            tool_content(text_block(f"denied: {event.reason}"))])

    def _output(self, event: ev.ToolOutput) -> list[Any]:
        call = self._calls.get(event.id)
        if call is None or not event.text or event.id in self.terminal_calls:
            return []
        call.output.append(event.text)
        shown = redrawn("".join(call.output))[-SHOWN_OUTPUT:]
        call.output = [shown]
        return [update_tool_call(event.id, content=[tool_content(text_block(_fenced(shown)))])]

    def _finished(self, event: ev.ToolResultEvent) -> Any:
        call = self._calls.pop(event.id, None) or _Call(event.name)
        status = "completed" if event.ok else "failed"
        if event.id in self.terminal_calls:
            self.terminal_calls.discard(event.id)
            return update_tool_call(event.id, status=status, raw_output=_raw_output(event))
        if (event.ok and call.path is not None and event.name in EDIT_TOOLS
                and call.before is not None):
            after = _file_text(call.path)
            if after is not None and after != call.before:
                return update_tool_call(event.id, status=status, content=[tool_diff_content(
                    str(call.path), after, call.before or None)])
        text = event.display or event.output
        if len(text) > SHOWN_OUTPUT:
            text = text[:SHOWN_OUTPUT] + f"\n… {len(text) - SHOWN_OUTPUT:,} more characters"
        content = [tool_content(text_block(_fenced(text)))] if text.strip() else None
        if not event.ok and call.output and text.strip():
            # A call stopped mid-way (a cancel): what it printed stays shown, then why.
            content = [tool_content(text_block(_fenced(call.output[-1]))),
                       tool_content(text_block(text))]
        return update_tool_call(event.id, status=status, content=content,
                                raw_output=_raw_output(event))

    def end_open_calls(self, why: str) -> list[Any]:
        """Updates that end, as failed for ``why``, every call started and never ended (a
        session log written before cancelled calls were recorded)."""
        ended = [update_tool_call(call_id, status="failed",
                                  content=[tool_content(text_block(why))])
                 for call_id in self._calls]
        self._calls.clear()
        return ended


def _raw_output(event: ev.ToolResultEvent) -> dict[str, Any]:
    """A call's ``rawOutput``: whether it succeeded, and why it failed when it did (as in
    stream-json: ``error_type``)."""
    data = event.to_dict()
    return {key: data[key] for key in ("ok", "error_type") if key in data}


Translation = Callable[[UpdateTranslator, Any], list[Any]]

_TRANSLATIONS: dict[type[ev.Event], Translation] = {
    ev.SessionStart: UpdateTranslator._nothing,
    ev.UserMessage: UpdateTranslator._prompt,
    ev.ModelNote: UpdateTranslator._nothing,
    ev.TextDelta: UpdateTranslator._text,
    ev.ThinkingDelta: UpdateTranslator._thought,
    ev.Thinking: UpdateTranslator._thinking,
    ev.StreamRestart: UpdateTranslator._retry,
    ev.AssistantMessage: UpdateTranslator._answer,
    ev.ToolCallStarted: lambda self, event: [self._started(event)],
    ev.ToolOutput: UpdateTranslator._output,
    ev.ApprovalDecided: lambda self, event: [self._decided(event)],
    ev.Preview: UpdateTranslator._nothing,
    ev.ToolResultEvent: lambda self, event: [self._finished(event)],
    ev.Escalated: UpdateTranslator._escalated,
    ev.TodoUpdated: UpdateTranslator._plan,
    ev.ContextUpdated: UpdateTranslator._nothing,
    ev.ContextThinned: UpdateTranslator._nothing,
    ev.Compacted: UpdateTranslator._compacted,
    ev.Checkpoint: UpdateTranslator._nothing,
    ev.CheckRan: UpdateTranslator._check,
    ev.AutoCommitted: UpdateTranslator._committed,
    ev.TurnUsage: UpdateTranslator._nothing,
    ev.LaneStarted: UpdateTranslator._nothing,
    ev.RoundEnded: UpdateTranslator._nothing,
    ev.ErrorEvent: UpdateTranslator._error,
    ev.RunResult: UpdateTranslator._nothing,
}
"""How each kind of event shows in an ACP client, one entry per event class (``_nothing``:
the client has no place for it)."""


def _fenced(text: str) -> str:
    """``text`` in a Markdown code fence longer than any backtick run inside it, so the
    client shows it literally."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text.rstrip()}\n{fence}"
