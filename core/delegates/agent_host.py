"""A delegate at work for an agent-tui session, under the session's rules, and ``/code``.

:class:`AgentHost` is the :class:`~.base.DelegateHost` of a session: the delegate's writes
are the session's ``write_file`` calls and its commands the session's ``shell`` calls, asked
for by no model (``ToolCalls.run_own``): the same hooks, judge, sandbox, approvals and
checkpoint, so F7's review and ``/undo`` cover them. Its permission requests go to the
session's approver; what it reports is shown as a lane: one ``delegate`` call whose lines are
the delegate's own calls, its answer the call's output.

``/code [@PROJECT] PROMPT`` (GLTCH's command) hands PROMPT to the first configured delegate
in a new folder under its workspace, named after the prompt; ``@PROJECT`` goes on in that
folder, continuing the delegate's session there when it can load sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ...tools.base import CURRENT_CALL_ID, ToolResult
from ...tools.names import ToolName
from .. import paths
from ..approval import Allow, ApprovalRequest, ArgumentDetails
from ..events import ErrorEvent, RunResult, ToolCallStarted, ToolOutput, ToolResultEvent, Usage
from ..providers.base import ToolCallRequest
from .base import (
    CommandOutcome,
    Delegate,
    DelegateError,
    DelegateRefused,
    DelegateResult,
    DelegateUpdate,
    PermissionAnswer,
)
from .config import DelegateConfig, load_delegates

if TYPE_CHECKING:
    from ..agent import Agent

DELEGATE_CALL = "delegate_"
"""How the id of a delegated run's call starts."""
CODE_USAGE = ("Type what to build after /code, e.g. /code a CLI that converts CSV to JSON; "
              "/code @NAME PROMPT goes on in the folder NAME of an earlier /code.")
NO_DELEGATES = ("No delegate is configured: add one to config.toml, e.g. [delegates.opencode] "
                'with command = "opencode" and args = ["acp"] (see the README, "Delegating to '
                'other agents").')
SESSIONS_FILE = "delegate-sessions.json"
"""In the data folder: per delegated folder, each delegate's last session id there."""
CANCEL_GRACE_S = 5.0
"""How long a cancelled delegate has to end its turn before its run is ended for it."""
_EXIT_CODE = re.compile(r"Exit code: (-?\d+)")


def make_delegate(config: DelegateConfig) -> Delegate:
    """The route that speaks to ``config``'s delegate."""
    if config.protocol == "opencode":
        from .opencode import OpenCodeDelegate

        return OpenCodeDelegate(config)
    from .acp import AcpDelegate

    return AcpDelegate(config)


class AgentHost:
    """What a delegate may do in ``folder``, done as ``agent``'s own calls (see the module)."""

    def __init__(self, agent: Agent, name: str, folder: Path, lane_id: str) -> None:
        self.agent = agent
        self.name = name
        self.folder = folder
        self.lane_id = lane_id
        self._ids = itertools.count(1)
        self._started: dict[str, float] = {}

    def _inside(self, path: Path) -> Path:
        full = (path if path.is_absolute() else self.folder / path).resolve()
        for root in (self.folder.resolve(), self.agent.workdir.resolve()):
            if full == root or root in full.parents:
                return full
        raise DelegateRefused(f"{full} is outside the project; agent-tui lets {self.name} "
                              f"read and write only under {self.agent.workdir}.")

    async def read_text(self, path: Path) -> str:
        full = self._inside(path)
        try:
            data = await asyncio.to_thread(full.read_bytes)
        except FileNotFoundError:
            raise DelegateRefused(f"{full} does not exist.") from None
        except OSError as exc:
            raise DelegateRefused(f"{full} cannot be read: {exc.strerror or exc}.") from None
        # What the delegate read counts as read: its write over the file then passes the
        # read-before-write check of agent-tui's write_file, as the model's would.
        self.agent.tool_ctx.reads.record(full, data)
        return data.decode("utf-8", errors="replace")

    async def write_text(self, path: Path, content: str) -> None:
        full = self._inside(path)
        result = await self._run_own(ToolName.WRITE_FILE,
                                     {"file_path": str(full), "content": content})
        if not result.ok:
            raise DelegateRefused(result.error or result.llm_content)

    async def run_command(self, command: str, cwd: Path) -> CommandOutcome:
        folder = self._inside(cwd)
        result = await self._run_own(ToolName.SHELL,
                                     {"command": command, "working_dir": str(folder)})
        output, _, status = result.llm_content.rpartition("\n")
        code = _EXIT_CODE.match(status)
        if code is None:  # refused or stopped: what the shell tool said is the output
            return CommandOutcome(result.llm_content, None)
        return CommandOutcome(output, int(code.group(1)))

    async def ask_permission(self, title: str, details: str, always: bool) -> PermissionAnswer:
        mode = self.agent.settings.approval_mode
        if mode == "yolo":
            return "once"
        if mode == "plan":
            return "reject"
        request = ApprovalRequest(
            call_id=f"{self.lane_id}/ask-{next(self._ids)}", tool="delegate", kind="info",
            summary=title, reason=f"{self.name} asks before it goes on",
            details=ArgumentDetails(details),
            rules=(f"delegate({self.name})",) if always else ())
        decision = await self.agent.approver.ask(request, None)
        if isinstance(decision, Allow):
            return "always" if decision.scope != "once" else "once"
        return "reject"

    def report(self, update: DelegateUpdate) -> None:
        emit = self.agent.emit
        if update.kind in ("message", "thought", "plan"):
            text = (update.text if update.kind == "message" else
                    f"\nPlan:\n{_plan_lines(update.text)}\n" if update.kind == "plan" else
                    f"\n[thought] {update.text}\n")
            emit(ToolOutput(self.lane_id, text))
            return
        call_id = f"{self.lane_id}/{update.call_id}"
        if update.kind == "tool_call" and call_id not in self._started:
            self._started[call_id] = time.monotonic()
            emit(ToolCallStarted(call_id, self.name, {}, summary=update.text,
                                 parent_id=self.lane_id))
        if update.status in ("completed", "failed") and call_id in self._started:
            took = time.monotonic() - self._started.pop(call_id)
            emit(ToolResultEvent(call_id, self.name, update.status == "completed",
                                 update.text, duration=took, parent_id=self.lane_id))

    async def _run_own(self, tool: str, args: dict[str, str]) -> ToolResult:
        call = ToolCallRequest(f"{self.lane_id}-{next(self._ids)}", tool, json.dumps(args))
        return await self.agent.calls.run_own(call)


_PLAN_MARKS = {"completed": "✓", "in_progress": "▸", "pending": "○"}
_PLAN_ENTRY = re.compile(r"\[(\w+)\] (.*)")


def _plan_lines(plan: str) -> str:
    """A plan's ``[status] entry`` lines as a list with a mark for each status."""
    lines = []
    for line in plan.splitlines():
        entry = _PLAN_ENTRY.fullmatch(line)
        mark = _PLAN_MARKS.get(entry.group(1)) if entry else None
        lines.append(f"  {mark} {entry.group(2)}" if entry and mark else f"  {line}")
    return "\n".join(lines)


async def run_code(agent: Agent, argument: str) -> RunResult:
    """``/code [@PROJECT] PROMPT`` for ``agent`` (see the module); emitted as a run's end is.
    Every failure is an error event and a failed result whose text says what to do."""
    project, prompt = _parse(argument)
    if not prompt:
        return _ended(agent, None, CODE_USAGE)
    try:
        config, folder, resume = _choose(agent, project, prompt)
    except DelegateError as exc:
        return _ended(agent, None, str(exc))
    lane_id = f"{DELEGATE_CALL}{secrets.token_hex(6)}"
    agent.emit(ToolCallStarted(lane_id, "delegate",
                               {"delegate": config.name, "folder": str(folder), "prompt": prompt},
                               summary=f"{config.name}: {prompt}"))
    started = time.monotonic()
    checkpoints = agent.calls.checkpoints
    try:
        result = await _work(agent, config, folder, prompt, resume, lane_id)
    except asyncio.CancelledError:
        agent.emit(ToolResultEvent(lane_id, "delegate", False, "cancelled",
                                   duration=time.monotonic() - started, cancelled=True))
        raise
    except DelegateError as exc:
        agent.emit(ToolResultEvent(lane_id, "delegate", False, str(exc),
                                   duration=time.monotonic() - started, error_type="failed"))
        return _ended(agent, None, str(exc))
    finally:
        await asyncio.shield(checkpoints.end_turn())
    where = _where(agent, folder)
    agent.emit(ToolResultEvent(lane_id, "delegate", True, result.text,
                               duration=time.monotonic() - started))
    agent.add_note(f"The person had {config.name} work in {where} (not a call of yours): "
                   f"{prompt}\nIts answer ({result.stop_reason}):\n{result.text}")
    cost = f" It reported a cost of ${result.cost:.4f}." if result.cost is not None else ""
    text = f"{config.name} worked in {where} and stopped ({result.stop_reason}).{cost}\n\n" \
           f"{result.text}"
    return _ended(agent, RunResult(text, 0, Usage(cost=result.cost), agent.session_id), None)


async def run_delegated(agent: Agent, prompt: str, project: str | None) -> str:
    """The ``delegate`` tool's work for ``agent``: ``prompt`` handed to the first delegate in
    a new folder (or ``project``'s), its lane the running call's, and its answer returned.

    The call runs inside a model turn: the pipeline took the turn's before-snapshot ahead of
    it and the turn's end takes the after-snapshot, so whatever the delegate wrote itself is
    the turn's; its calls through us are the turn's own calls. The call's start and end are
    the pipeline's events; the lane's lines and the answer's text are this call's.

    Raises:
        RuntimeError: What went wrong and what to do (no delegate, no such project, the
            delegate failed).
    """
    lane_id = CURRENT_CALL_ID.get() or f"{DELEGATE_CALL}{secrets.token_hex(6)}"
    try:
        config, folder, resume = _choose(agent, project, prompt)
        result = await _work(agent, config, folder, prompt, resume, lane_id)
    except DelegateError as exc:
        raise RuntimeError(str(exc)) from None
    if result.cost is not None:  # counted as a sub-agent's: the session's and the run's
        spent = Usage(cost=result.cost)
        agent.usage = agent.usage + spent
        agent.subagents.spent = agent.subagents.spent + spent
    cost = f"; it reported a cost of ${result.cost:.4f}" if result.cost is not None else ""
    name = folder.name if folder != agent.workdir else None
    again = f" (project {name!r} goes on there)" if name else ""
    return (f"{config.name} worked in {_where(agent, folder)}{again} and stopped "
            f"({result.stop_reason}){cost}. Its answer:\n\n{result.text}")


def _choose(agent: Agent, project: str | None, prompt: str
            ) -> tuple[DelegateConfig, Path, str | None]:
    """The delegate, the folder it works in and the session it goes on with (None: new)."""
    configs, warnings = load_delegates(agent.workdir)
    enabled = [c for c in configs if c.enabled]
    if not enabled:
        raise DelegateError(" ".join([NO_DELEGATES, *warnings]))
    config = enabled[0]
    folder = _folder(config, project, prompt, agent.workdir)
    return config, folder, _last_session(folder, config.name) if project else None


async def _work(agent: Agent, config: DelegateConfig, folder: Path, prompt: str,
                resume: str | None, lane_id: str) -> DelegateResult:
    """Run the delegate in ``folder`` with ``lane_id``'s lane; a cancel reaches it."""
    delegate = make_delegate(config)
    host = AgentHost(agent, config.name, folder, lane_id)
    # A delegate may write files itself instead of asking us to: the project is snapshotted
    # before and after, so the review and /undo cover whatever it changed.
    await agent.calls.checkpoints.before_outside_change()
    # The run goes on while the cancel is said: cancelling it at once would close the
    # connection before the delegate heard session/cancel (and stopped its own work).
    work = asyncio.ensure_future(delegate.run(prompt, host, resume))
    try:
        result = await asyncio.shield(work)
    except asyncio.CancelledError:
        await asyncio.shield(_stop(delegate, work))
        raise
    _keep_session(folder, config.name, result.session_id)
    return result


async def _stop(delegate: Delegate, work: asyncio.Future[DelegateResult]) -> None:
    """Ask the delegate to stop and give it ``CANCEL_GRACE_S`` to end its turn; then end
    the run (and its program) whatever it said."""
    if work.done():
        return
    await delegate.cancel()
    with contextlib.suppress(Exception, asyncio.CancelledError):
        await asyncio.wait_for(work, CANCEL_GRACE_S)


def _where(agent: Agent, folder: Path) -> str:
    if folder == agent.workdir:
        return "the project"
    return str(folder.relative_to(agent.workdir) if folder.is_relative_to(agent.workdir)
               else folder)


def _parse(argument: str) -> tuple[str | None, str]:
    text = argument.strip()
    if text.startswith("@"):
        project, _, rest = text[1:].partition(" ")
        return project.strip() or None, rest.strip()
    return None, text


def _folder(config: DelegateConfig, project: str | None, prompt: str, workdir: Path) -> Path:
    if config.in_project:
        return workdir
    workspace = config.workspace
    if project is not None:
        folder = workspace / project
        if not folder.is_dir() or "/" in project or project in (".", ".."):
            known = sorted(p.name for p in workspace.iterdir() if p.is_dir()) \
                if workspace.is_dir() else []
            listed = f" The projects are: {', '.join(known)}." if known else \
                " There are none yet: /code PROMPT starts one."
            raise DelegateError(f"No project {project!r} under {workspace}.{listed}")
        return folder
    slug = "-".join(re.findall(r"[a-z0-9]+", prompt.lower())[:5])[:40].strip("-") or "work"
    folder = workspace / slug
    for number in itertools.count(2):
        if not folder.exists():
            break
        folder = workspace / f"{slug}-{number}"
    try:
        folder.mkdir(parents=True)
    except OSError as exc:
        raise DelegateError(f"The folder {folder} could not be made ({exc.strerror or exc}); "
                            f"set `workspace` in [delegates.{config.name}] to a folder that "
                            "can be written.") from None
    return folder


def _sessions_file() -> Path:
    return paths.data_dir() / SESSIONS_FILE


def _last_session(folder: Path, name: str) -> str | None:
    entry = _read_sessions().get(str(folder.resolve()))
    value = entry.get(name) if isinstance(entry, dict) else None
    return value if isinstance(value, str) else None


def _keep_session(folder: Path, name: str, session_id: str) -> None:
    data = _read_sessions()
    entry = data.setdefault(str(folder.resolve()), {})
    if not isinstance(entry, dict):
        entry = data[str(folder.resolve())] = {}
    entry[name] = session_id
    path = _sessions_file()
    temporary = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        temporary.replace(path)
    except OSError:
        pass  # only @PROJECT's continuation is lost: it starts a new session there


def _read_sessions() -> dict[str, object]:
    try:
        data = json.loads(_sessions_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _ended(agent: Agent, result: RunResult | None, error: str | None) -> RunResult:
    if result is None:
        result = RunResult("", 0, Usage(), agent.session_id, ok=False, error=error)
    if error is not None:
        agent.emit(ErrorEvent(error, fatal=True))
    agent.emit(result)
    return result
