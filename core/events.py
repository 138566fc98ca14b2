"""Typed events the engine emits: the only thing a front end consumes.

Each event is a frozen dataclass with a ``type`` (its kind: the ``type`` field of headless
``stream-json`` output and of the session log's records) and ``to_dict()``, which gives that
JSON object. Each class also says, once, what becomes of its events besides (``replayed``,
``restored``, ``transient``, ``shown``); :data:`EVENT_TYPES` lists every kind, and the lists
the session log, replay and the workbench need are read from it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage and cost of one model call or a sum of them.

    Attributes:
        prompt_tokens: Tokens sent to the model.
        completion_tokens: Tokens the model produced.
        cost: US dollars, when litellm knows the model's prices; else None.
        cache_read_tokens: Of the prompt tokens, those read from the provider's prompt
            cache (billed at a fraction of the price).
        cache_write_tokens: Of the prompt tokens, those written to the prompt cache
            (Anthropic bills them above the plain price; OpenAI and Gemini report none).
        reasoning_tokens: Of the completion tokens, those the model spent reasoning
            (``completion_tokens_details.reasoning_tokens``; 0 when the provider says none).
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        cost = (
            None
            if self.cost is None and other.cost is None
            else ((self.cost or 0.0) + (other.cost or 0.0))
        )
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            cost,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used in events."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "cost": self.cost,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
        }

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> Usage:
        """The usage :meth:`to_dict` wrote; a log from before the cache (or reasoning)
        counts has none."""
        cost = record.get("cost")
        return cls(int(record.get("prompt_tokens") or 0),
                   int(record.get("completion_tokens") or 0),
                   float(cost) if cost is not None else None,
                   int(record.get("cache_read_tokens") or 0),
                   int(record.get("cache_write_tokens") or 0),
                   int(record.get("reasoning_tokens") or 0))


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all engine events."""

    type: ClassVar[str] = "event"
    replayed: ClassVar[bool] = False
    """Read back from a session log: by replay, by an ACP client loading the session."""
    restored: ClassVar[bool] = False
    """A resumed session redraws it in the workbench (the transcript, the todos, the gauge);
    notices of the moment (errors, retries, thinning, compaction) are not redrawn."""
    transient: ClassVar[bool] = False
    """Logged without an fsync of its own: the whole text comes again in a later event."""
    shown: ClassVar[bool] = True
    """The workbench shows it; False: it is for the log, headless output or the model."""

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-ready dict with its ``type`` first."""
        data: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "parent_id" and value is None:
                continue  # only a sub-task's events name the call they belong to
            data[f.name] = value.to_dict() if isinstance(value, Usage) else value
        return data


@dataclass(frozen=True, slots=True)
class SessionStart(Event):
    """A run began."""

    type: ClassVar[str] = "session_start"
    shown: ClassVar[bool] = False
    session_id: str
    model: str
    workdir: str
    approval_mode: str
    tool_protocol: str


@dataclass(frozen=True, slots=True)
class UserMessage(Event):
    """The person's prompt, as sent to the model, and the names of the images it attaches
    (their bytes go to the model, not into the log)."""

    type: ClassVar[str] = "user_message"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    text: str
    images: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelNote(Event):
    """Something the person did that the model must hear of with the next prompt.

    E.g. that the person rejected hunks of its change or undid a turn. Notes are logged, so a
    resumed session still sends the ones no prompt has carried yet.
    """

    type: ClassVar[str] = "model_note"
    shown: ClassVar[bool] = False
    text: str


@dataclass(frozen=True, slots=True)
class TextDelta(Event):
    """A piece of assistant text as it streams in."""

    type: ClassVar[str] = "text_delta"
    transient: ClassVar[bool] = True
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta(Event):
    """A piece of the model's reasoning as it streams in (before its answer)."""

    type: ClassVar[str] = "thinking_delta"
    transient: ClassVar[bool] = True
    text: str


@dataclass(frozen=True, slots=True)
class Thinking(Event):
    """The model's reasoning of one response, whole; it precedes the ``AssistantMessage``.

    Attributes:
        text: The reasoning as the provider showed it (Anthropic's thinking, OpenAI-
            compatible servers' ``reasoning_content``, Gemini's thought summaries).
        blocks: Anthropic's thinking blocks (``type``, ``thinking``, ``signature``; or
            ``redacted_thinking`` with ``data``), which go back to the API with the message
            they came with: a resumed session sends them as the live one did.
    """

    type: ClassVar[str] = "thinking"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    text: str
    blocks: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class StreamRestart(Event):
    """A model call failed and is retried; text streamed since the last message is void.

    Attributes:
        attempt: Which retry this is (1 for the first).
        delay: Seconds until it starts.
        reason: What failed, in the provider's words.
        max_retries: Retries allowed in all (0: not known, as in older session logs).
    """

    type: ClassVar[str] = "retry"
    attempt: int
    delay: float
    reason: str
    max_retries: int = 0

    def describe(self, seconds_left: float | None = None) -> str:
        """The retry in words, with ``seconds_left`` (else the whole delay) rounded up to a
        whole second: ``retrying in 3 s (2 of 5): connection refused``."""
        left = self.delay if seconds_left is None else seconds_left
        when = f"in {math.ceil(left)} s" if left > 0 else "now"
        count = (f"{self.attempt} of {self.max_retries}" if self.max_retries
                 else f"retry {self.attempt}")
        return f"retrying {when} ({count}): {self.reason}"


@dataclass(frozen=True, slots=True)
class AssistantMessage(Event):
    """The model finished one response."""

    type: ClassVar[str] = "assistant_message"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    text: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ToolCallStarted(Event):
    """The model asked for a tool call (validated or not).

    ``name`` is the tool that runs; ``called_as`` the name the model used when it called
    the tool by another agent's name for it (gemini-cli's ``replace`` for ``edit_file``).
    ``parent_id`` is the ``task`` call whose sub-agent made it (None: the agent's own); the
    same for the call's ``tool_output``, ``approval`` and ``tool_result`` events.
    """

    type: ClassVar[str] = "tool_call"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    id: str
    name: str
    args: Any
    summary: str = ""
    called_as: str | None = None
    parent_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolOutput(Event):
    """Live output of a running tool (shell)."""

    type: ClassVar[str] = "tool_output"
    transient: ClassVar[bool] = True
    id: str
    text: str
    parent_id: str | None = None


@dataclass(frozen=True, slots=True)
class ApprovalDecided(Event):
    """Whether a tool call may run, and who or what decided.

    Attributes:
        edited_summary: When the person changed the call before allowing it (edited the
            command or the new content, left hunks out), what runs instead, as
            ``ToolCallStarted.summary`` says it; "" when the call runs as proposed.
        edited_args: The arguments that run instead (None when the call runs as proposed).
    """

    type: ClassVar[str] = "approval"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    id: str
    decision: str  # "allow" | "deny"
    reason: str = ""
    by: str = "policy"  # "policy" | "user" | "rule" | "hook"
    edited_summary: str = ""
    edited_args: Any = None
    parent_id: str | None = None


@dataclass(frozen=True, slots=True)
class Preview(Event):
    """What a command waiting for approval did when previewed in a sandbox over a scratch
    copy of the project (``p`` in the approval modal, ``--preview`` headless).

    Attributes:
        id: The call's id.
        command: The command previewed.
        changes: Each file it would change: ``{"path", "kind", "diff"}``, ``kind`` one of
            ``created``, ``modified``, ``deleted``.
        output: Its stdout and stderr together, truncated with a note.
        exit_code: Its exit code; None when the time box killed it.
        timed_out: The time box ran out.
        left_running: Command lines of processes it left running (killed afterwards).
    """

    type: ClassVar[str] = "preview"
    shown: ClassVar[bool] = False
    id: str
    command: str
    changes: list[dict[str, str]]
    output: str
    exit_code: int | None
    timed_out: bool
    left_running: list[str]


@dataclass(frozen=True, slots=True)
class ToolResultEvent(Event):
    """A tool call ended.

    Attributes:
        edit_tier: How an edit found the text it changed (``exact``, ``whitespace``,
            ``unescaped``, ``model``); None for calls that edit nothing.
        suggest_escalation: The tool suggests a stronger model (e.g. an edit whose text the
            model could not find in the file), with ``escalation_reason``.
        warnings: What people should notice about a call that succeeded (e.g. a syntax
            error an edit added).
        image_files: Image files the call saved (absolute paths, e.g. a screenshot), shown
            to people in the call's block.
        cancelled: The call did not finish: the turn was cancelled while it waited for
            approval, ran, or waited for an earlier call of the same response.
        error_type: Why a failed call failed, in a word scripts and hooks act on
            (``tools.base.ErrorType``: ``not_found``, ``denied``, ``timeout``,
            ``invalid_arguments``, ``cancelled``, ``repeated``, ``unavailable``, ``failed``);
            None for a call that succeeded, and in logs written before it was recorded.
    """

    type: ClassVar[str] = "tool_result"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    id: str
    name: str
    ok: bool
    output: str
    display: str | None = None
    duration: float = 0.0
    edit_tier: str | None = None
    suggest_escalation: bool = False
    escalation_reason: str | None = None
    warnings: list[str] = field(default_factory=list)
    image_files: list[str] = field(default_factory=list)
    cancelled: bool = False
    error_type: str | None = None
    parent_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form; ``error_type`` only when the call failed."""
        data = Event.to_dict(self)
        if self.ok:
            data.pop("error_type")
        elif self.error_type is None:  # a record from before error types
            data["error_type"] = "cancelled" if self.cancelled else "failed"
        return data


@dataclass(frozen=True, slots=True)
class Escalated(Event):
    """The rest of the run goes to a stronger model (``escalation_model``).

    Attributes:
        model: The model that takes over.
        reason: Why: the tool's escalation reason, or the sentence in which the model said
            it could not proceed.
        trigger: ``tool`` (a tool result suggested it) or ``answer`` (the model gave up).
    """

    type: ClassVar[str] = "escalated"
    replayed: ClassVar[bool] = True
    model: str
    reason: str
    trigger: str = "tool"


@dataclass(frozen=True, slots=True)
class TodoUpdated(Event):
    """The agent's todo list changed (markdown checkboxes)."""

    type: ClassVar[str] = "todo"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    content: str


@dataclass(frozen=True, slots=True)
class ContextUpdated(Event):
    """Tokens in the context against the model's window."""

    type: ClassVar[str] = "context"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    tokens: int
    window: int
    level: int = 0


@dataclass(frozen=True, slots=True)
class ContextThinned(Event):
    """Large old tool results were swapped for stubs (DEHYDRATED CONTEXT fragments)."""

    type: ClassVar[str] = "context_thinned"
    replayed: ClassVar[bool] = True
    level: int
    fragments: list[str]
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True, slots=True)
class Compacted(Event):
    """The history was replaced by a summary and the most recent turns."""

    type: ClassVar[str] = "compacted"
    replayed: ClassVar[bool] = True
    tokens_before: int
    tokens_after: int
    summary: str


@dataclass(frozen=True, slots=True)
class Checkpoint(Event):
    """The project's files were snapshotted in the shadow repository.

    ``phase`` is ``before`` (ahead of the turn's first change) or ``after`` (its end);
    ``commit`` names the snapshot there.
    """

    type: ClassVar[str] = "checkpoint"
    shown: ClassVar[bool] = False
    turn: int
    phase: str
    commit: str


@dataclass(frozen=True, slots=True)
class CheckRan(Event):
    """``lint_command`` or ``test_command`` ran after the turn's edits: reported when it
    starts (``running``) and when it ends (``passed`` or ``failed``), under one ``id``.

    Attributes:
        kind: ``lint`` or ``test``.
        command: The command as it ran (``{files}`` filled in).
        exit_code: Its exit status; None while it runs, or when it timed out or could not
            start (``output`` says which).
        output: The end of what it printed (stdout and stderr together).
        feedback: What the model was told of the failure to fix it ("" when nothing).
    """

    type: ClassVar[str] = "check"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    id: str
    kind: str
    command: str
    status: str
    exit_code: int | None = None
    output: str = ""
    duration: float = 0.0
    feedback: str = ""


@dataclass(frozen=True, slots=True)
class AutoCommitted(Event):
    """``auto_commit`` committed the files a turn changed to the project's git repository.

    Attributes:
        commit: The new commit's id.
        message: Its message (the model's, or a plain one listing the files).
        files: The committed files, project-relative.
        left_out: Files the turn changed that held the person's own uncommitted changes
            before it, so they were not committed.
    """

    type: ClassVar[str] = "auto_commit"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    turn: int
    commit: str
    message: str
    files: list[str]
    left_out: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TurnUsage(Event):
    """Usage and cost of one model call, and of the session so far."""

    type: ClassVar[str] = "usage"
    replayed: ClassVar[bool] = True
    restored: ClassVar[bool] = True
    usage: Usage
    session: Usage


@dataclass(frozen=True, slots=True)
class LaneStarted(Event):
    """In autonomous mode, the player or the coach starts its part of a round.

    Attributes:
        round: The round's number, from 1.
        role: ``player`` or ``coach``.
    """

    type: ClassVar[str] = "lane"
    round: int
    role: str


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    """A round of autonomous mode ended: the player worked, the coach reviewed.

    Attributes:
        round: The round's number, from 1.
        approved: The coach approved the work.
        review: The coach's review (its feedback when it did not approve).
    """

    type: ClassVar[str] = "round"
    round: int
    approved: bool
    review: str


@dataclass(frozen=True, slots=True)
class ErrorEvent(Event):
    """Something went wrong; ``message`` says what and what to do."""

    type: ClassVar[str] = "error"
    replayed: ClassVar[bool] = True
    message: str
    fatal: bool = False


@dataclass(frozen=True, slots=True)
class RunResult(Event):
    """The run of one prompt ended: the last assistant text, the model calls it made, the
    usage of them all.

    ``escalation_reasons`` holds why tools suggested a stronger model during the run (one
    entry per suggestion, in order); ``suggest_escalation`` is true when there is any.
    ``escalated_to`` names the ``escalation_model`` that took the run over, if one did.
    """

    type: ClassVar[str] = "result"
    replayed: ClassVar[bool] = True
    shown: ClassVar[bool] = False
    text: str
    model_calls: int
    usage: Usage
    session_id: str
    ok: bool = True
    error: str | None = None
    suggest_escalation: bool = False
    escalation_reasons: list[str] = field(default_factory=list)
    escalated_to: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, with ``turns`` kept as a deprecated alias of ``model_calls``
        (what the ``result`` line carried before it was named for what it counts)."""
        data = Event.to_dict(self)
        data["turns"] = self.model_calls
        return data


EventSink = Callable[[Event], None]


def _every_event_type() -> dict[str, type[Event]]:
    kinds: dict[str, type[Event]] = {}
    for value in list(globals().values()):
        if isinstance(value, type) and issubclass(value, Event) and value is not Event:
            if value.type in kinds:
                raise TypeError(f"{value.__name__} and {kinds[value.type].__name__} share the "
                                f"kind {value.type!r}")
            kinds[value.type] = value
    return kinds


EVENT_TYPES: dict[str, type[Event]] = _every_event_type()
"""Every kind of event and its class, in the order they are declared here."""
