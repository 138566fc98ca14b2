"""The approval exchange: the engine asks with data, a front end answers with a decision.

An :class:`ApprovalRequest` carries only data, every text in it already redacted: the tool,
a one-line summary, what the call will do (a command and where it runs, an edit's diff and
hunks, or another tool's arguments), a command's parts with their verdicts, the rules
"always allow" would save, and what a preview needs. The answer is one of a closed set of
:data:`Decision` types. The engine alone (:mod:`.calls.gate`) turns a decision into what
runs, what the model is told and what is kept or saved; front ends never see the call.

A command can be previewed before the answer: the engine hands the approver a
:data:`Previewer` that runs it in a sandbox over a scratch copy of the project, logs the
``preview`` event and returns what it did (redacted).

The workbench asks a person in a modal; a headless run has nobody to ask, so
:class:`HeadlessApprover` refuses and tells the model how the run could be allowed.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from .events import ErrorEvent, EventSink, Preview
from .safety.preview import CommandPreview, PreviewUnavailable

if TYPE_CHECKING:
    import threading

    from .changes.hunks import Hunk
    from .safety.permission_rules import Scope
    from .safety.permissions import PartVerdict

SCOPE_WORDS: dict[str, str] = {
    "session": "this session", "project": "this project", "user": "every project"}
"""How long each scope of "always allow" lasts, in words."""


# ----------------------------------------------------------------------------- the request


@dataclass(frozen=True, slots=True)
class CommandDetails:
    """A command waiting for approval.

    Attributes:
        command: The command line.
        working_dir: Where it runs, for people (``.`` is the project folder).
    """

    command: str
    working_dir: str


@dataclass(frozen=True, slots=True)
class EditDetails:
    """A file change waiting for approval.

    Attributes:
        path: The file, for people (relative to the project when inside it).
        before: Its content before the change ("" for a new file).
        after: Its content after the change (None when the tool cannot say).
        details: Free text the tool adds.
        hunks: The change's hunks when the person can tick them (two or more), else empty.
    """

    path: str
    before: str
    after: str | None
    details: str = ""
    hunks: tuple[Hunk, ...] = ()


@dataclass(frozen=True, slots=True)
class ArgumentDetails:
    """Any other call waiting for approval: its arguments as indented JSON."""

    arguments: str


Details = CommandDetails | EditDetails | ArgumentDetails
"""What the call will do, as the person must see it."""


@dataclass(frozen=True, slots=True)
class PreviewSpec:
    """What a preview of the command runs.

    Attributes:
        command: The command line.
        working_dir: Where it starts.
        project: The project folder the sandbox copies.
        timeout_s: The time box.
    """

    command: str
    working_dir: Path
    project: Path
    timeout_s: float


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A call waiting for a yes or no, as data; every text is redacted.

    Attributes:
        call_id: The model's id of the call.
        tool: The tool's name.
        kind: ``execute``, ``edit`` or ``info``: what kind of confirmation the tool asks for.
        summary: One line saying what the call does (``shell: rm -r build``).
        reason: Why it needs approval (e.g. "runs a command").
        details: What the call will do.
        parts: For a command, each simple command with its verdict and why.
        rules: The rules "always allow" would save (empty: none can allow it).
        any_mode: No approval mode would run it without a person (a protected file, an
            ask rule, a command that does not parse).
        editable: The person may edit the command, or the new content, before it runs.
        preview: What a preview would run (None: the call cannot be previewed).
        warnings: What the person should weigh first, one sentence each (e.g. a syntax
            error the proposed edit adds).
    """

    call_id: str
    tool: str
    kind: str
    summary: str
    reason: str
    details: Details
    parts: tuple[PartVerdict, ...] = ()
    rules: tuple[str, ...] = ()
    any_mode: bool = False
    editable: bool = False
    preview: PreviewSpec | None = None
    warnings: tuple[str, ...] = ()


# ----------------------------------------------------------------------------- decisions


@dataclass(frozen=True, slots=True)
class Allow:
    """Run the call as proposed.

    Attributes:
        scope: ``once`` (this call only), or how long ``rules`` allow such calls:
            ``session`` (kept in memory), ``project`` or ``user`` (saved in the user config).
        rules: Which of the request's rules to keep (ignored for ``once``).
    """

    scope: Scope = "once"
    rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WriteHunks:
    """Write only some hunks of the change (by index into the request's hunks).

    Attributes:
        kept: The ticked hunks, written.
        total: How many hunks the person was shown.
        scope: As :attr:`Allow.scope`.
        rules: As :attr:`Allow.rules`.
    """

    kept: tuple[int, ...]
    total: int
    scope: Scope = "once"
    rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Deny:
    """Refuse the call.

    Attributes:
        reason: What the person typed for the model (None: no reason given); for a
            policy's refusal, the whole message to the model.
        by: ``user`` (a person refused) or ``policy`` (nobody could be asked).
    """

    reason: str | None = None
    by: Literal["user", "policy"] = "user"


@dataclass(frozen=True, slots=True)
class RunEdited:
    """Run the person's edit of the command instead of the model's."""

    command: str


@dataclass(frozen=True, slots=True)
class WriteEdited:
    """Write the person's edit of the new content (an edit_file runs as a write_file)."""

    content: str


Decision = Allow | WriteHunks | Deny | RunEdited | WriteEdited
"""Every answer a front end can give."""


@dataclass(frozen=True, slots=True)
class RememberedRules:
    """Rules "always allow" saved in the user config, or why they could not be.

    Attributes:
        rules: The rules, applying from now on in this run either way.
        scope: ``project`` or ``user``.
        path: The config file written (None when saving failed).
        error: Why saving failed (None when it worked).
    """

    rules: tuple[str, ...]
    scope: Scope
    path: Path | None = None
    error: str | None = None


# ----------------------------------------------------------------------------- approvers


Previewer = Callable[["threading.Event | None"], Awaitable[CommandPreview]]
"""Runs the request's command in the preview sandbox (stopped when the event is set), logs
the ``preview`` event and returns what it did, redacted.

Raises ``PreviewUnavailable`` (its message says why and what to do) or ``PreviewCancelled``.
"""


class Approver(Protocol):
    """Answers approval requests; the TUI asks a person, headless mode applies a policy."""

    async def ask(self, request: ApprovalRequest, preview: Previewer | None) -> Decision:
        """Decide on ``request``; may wait as long as a person needs.

        ``preview`` runs the command in a sandbox first (None: it cannot be previewed).
        """
        ...

    def remembered(self, saved: RememberedRules) -> None:
        """Told after "always allow" rules were saved for a project or every project."""
        ...

    async def review_summary(self, summary: str) -> str:
        """The compaction summary as the person accepts it (possibly edited)."""
        ...


def preview_event(call_id: str, preview: CommandPreview) -> Preview:
    """The ``preview`` event that records ``preview`` of the call ``call_id``."""
    return Preview(
        id=call_id, command=preview.command,
        changes=[{"path": c.path, "kind": c.kind, "diff": c.diff} for c in preview.changes],
        output=preview.output, exit_code=preview.exit_code, timed_out=preview.timed_out,
        left_running=list(preview.left_running))


class HeadlessApprover:
    """Refuses every call that needs approval: nobody is there to give it.

    Args:
        mode: The run's approval mode (named in the refusal).
        preview: First preview each shell or background_process command (``--preview``);
            the preview logs itself, and ``emit`` gets an
            :class:`~agent_tui.core.events.ErrorEvent` when there can be none.
        emit: Where that error goes (the agent's ``emit``, so it is logged).
        tell: Where the person is told of each refusal, in their words and with what would
            allow the call (:func:`refusal_for_person`); the model's words are for the model.
    """

    def __init__(self, mode: str, *, preview: bool = False,
                 emit: EventSink | None = None,
                 tell: Callable[[ApprovalRequest, str], None] | None = None) -> None:
        self.mode = mode
        self.preview = preview
        self.emit = emit
        self.tell = tell

    async def review_summary(self, summary: str) -> str:
        """Nobody to review it: the summary applies as the model wrote it."""
        return summary

    def remembered(self, saved: RememberedRules) -> None:
        """Never called: a headless run allows nothing by hand."""

    async def ask(self, request: ApprovalRequest, preview: Previewer | None = None) -> Decision:
        """Refuse, telling the model what was refused and how a person could allow it."""
        if self.preview and preview is not None:
            try:
                await preview(None)
            except PreviewUnavailable as exc:
                if self.emit is not None:
                    self.emit(ErrorEvent(f"no preview of {request.summary}: {exc}"))
        if self.tell is not None:
            self.tell(request, refusal_for_person(request, self.mode))
        if request.any_mode:
            return Deny(by="policy", reason=(
                f"this call {request.reason}; it needs a person's approval in every "
                "approval mode, which a headless run cannot get. Do not retry it; do the "
                "task another way if you can, or tell the user what to run themselves."))
        return Deny(by="policy", reason=(
            f"this call {request.reason} and needs a person's approval, which a headless "
            f"run in '{self.mode}' approval mode cannot get. Do not retry it; finish what "
            "you can without it and tell the user, who can rerun with --approval-mode "
            "auto-edit (file edits in the project) or yolo (everything)."))


def refusal_for_person(request: ApprovalRequest, mode: str) -> str:
    """What a headless run tells the person about a call it refused: the call, why it
    needed approval, and the flag or rule that would have let it run."""
    said = (f"refused {request.summary} ({request.reason}): it needs your approval, which a "
            "headless run cannot ask for")
    if request.any_mode:
        return (f"{said}, and no approval mode runs it unasked. Run it yourself, or run "
                "agent-tui without -p and approve it.")
    if request.kind == "edit" and mode == "default" and "outside the project" not in \
            request.reason:
        return f"{said}. To allow file edits in the project, rerun with --approval-mode auto-edit."
    allow = "--approval-mode yolo (everything runs unasked)"
    if request.rules:
        rules = ", ".join(json.dumps(rule) for rule in request.rules)
        allow += f", or add allow_rules = [{rules}] to config.toml"
    return f"{said}. To allow it, rerun with {allow}."
