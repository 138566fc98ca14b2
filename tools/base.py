"""The two-phase tool framework: a Tool validates arguments into an Invocation, which runs.

A tool is a small class with a ``name``, a ``kind``, a pydantic ``Params`` model (the JSON
schema the model sees comes from it) and ``create_invocation``. ``Tool.build`` validates raw
arguments and returns an ``Invocation`` that can describe itself, name the paths it touches,
say what a person must confirm, and finally ``execute``.
"""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .read_ledger import ReadLedger

if TYPE_CHECKING:
    from ..core.memory import ProjectMemory
    from ..core.safety.sandbox import BwrapSandbox
    from ..core.settings import Settings
    from ..core.skills import Skill, SkillCatalog
    from ..core.todos import TodoStore
    from .browser.session import BrowserSession


class ToolKind(StrEnum):
    """What a tool does, which decides how permissions treat it."""

    READ = "read"
    EDIT = "edit"
    EXECUTE = "execute"
    FETCH = "fetch"
    COMPUTER = "computer"
    MEMORY = "memory"
    THINK = "think"
    OTHER = "other"


class ToolParams(BaseModel):
    """Base of every tool's ``Params``: unknown arguments are an error the model can read."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class OpenArguments(ToolParams):
    """The arguments of a tool whose schema comes from outside agent-tui (an MCP server, a
    project's own declaration): kept as the model sent them, checked by the schema's owner;
    ``model_dump`` gives them all, so the approval shows what the call sends."""

    model_config = ConfigDict(extra="allow")


CURRENT_CALL_ID: ContextVar[str | None] = ContextVar("current_call_id", default=None)
"""The model's id of the tool call running in this task (set by the engine around each
execute), for what a tool hands the call to outside agent-tui (a client's terminal)."""


@dataclass(frozen=True, slots=True)
class CommandRun:
    """How a command run elsewhere ended.

    Attributes:
        exit_code: Its exit code; None when it was killed or timed out.
        signal: The signal that killed it, by name, if one did.
        timed_out: The time box ran out and it was killed.
    """

    exit_code: int | None
    signal: str | None = None
    timed_out: bool = False


class CommandRunner(Protocol):
    """Runs the shell tool's commands somewhere other than agent-tui's own processes (an
    ACP client's terminals), where a front end offers that and no sandbox is asked for."""

    async def run(self, command: str, cwd: Path, env: Mapping[str, str] | None,
                  timeout_s: float, feed: Callable[[bytes], None]) -> CommandRun:
        """Run ``command`` with bash in ``cwd``, passing its output to ``feed`` as it comes
        and killing it after ``timeout_s``. Raises OSError when it cannot start."""
        ...


EDIT_TIER_NOTES: dict[str, str] = {
    "whitespace": "matched ignoring whitespace",
    "unescaped": "matched once unescaped",
    "model": "matched as the model corrected it",
}
"""How people are told an edit did not match exactly, by ``ToolResult.edit_tier``."""


class ErrorType(StrEnum):
    """Why a tool call failed, in a word scripts and hooks can act on (the ``error_type`` of
    a failed ``tool_result`` event, in stream-json and the session log)."""

    FAILED = "failed"
    """Anything else: the tool ran and its work failed (the default)."""
    NOT_FOUND = "not_found"
    """The file or folder the call names does not exist."""
    DENIED = "denied"
    """Refused before it ran: by the approval mode, the rules, the person, or a hook."""
    TIMEOUT = "timeout"
    """It ran out of time and was stopped."""
    INVALID_ARGUMENTS = "invalid_arguments"
    """The call itself was wrong: no such tool, arguments that are not JSON or do not fit
    the tool's schema, or a person's edit of it that does not."""
    CANCELLED = "cancelled"
    """A cancel stopped it, or it never started because of one."""
    REPEATED = "repeated"
    """The same call as the one just before it; not run again."""
    UNAVAILABLE = "unavailable"
    """What it needs is off or missing here: the network, a tool outside this session's
    set, a service not configured."""


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image a tool hands to a multimodal model."""

    media_type: str
    data_base64: str


@dataclass(slots=True)
class ToolResult:
    """What a tool call produced.

    Attributes:
        llm_content: The text the model receives.
        display: A text for people; the front end falls back to ``llm_content``.
        error: Set when the call failed; the model still receives ``llm_content``.
        images: Image attachments for multimodal models.
        suggest_escalation: A hint that a stronger model may be needed (egirl).
        escalation_reason: Why, in a sentence, when ``suggest_escalation`` is set.
        edit_tier: How an edit found the text it changed: ``exact``, ``whitespace``
            (ignoring runs of spaces and tabs, indentation, trailing spaces, line endings),
            ``unescaped`` (over-escaped text read back) or ``model`` (a correction the
            model made); None for calls that edit nothing.
        warnings: Things people should notice about a call that succeeded, one sentence
            each (e.g. a syntax error an edit added); also in ``llm_content``.
        image_files: Image files the call saved (absolute paths, e.g. a screenshot) that
            people should see: the workbench shows them in the call's block.
        error_type: Why a failed call failed (:class:`ErrorType`); None on a failure reads
            as ``failed``, so only failures of a known kind set it.
    """

    llm_content: str
    display: str | None = None
    error: str | None = None
    images: list[ImagePart] = field(default_factory=list)
    suggest_escalation: bool = False
    escalation_reason: str | None = None
    edit_tier: str | None = None
    warnings: list[str] = field(default_factory=list)
    image_files: list[str] = field(default_factory=list)
    error_type: ErrorType | None = None

    @property
    def ok(self) -> bool:
        """True when the call succeeded."""
        return self.error is None

    @property
    def failure_type(self) -> ErrorType | None:
        """Why the call failed (``failed`` when no kind was given); None when it succeeded."""
        if self.ok:
            return None
        return self.error_type or ErrorType.FAILED

    @classmethod
    def failure(cls, message: str, *, suggest_escalation: bool = False,
                escalation_reason: str | None = None,
                error_type: ErrorType = ErrorType.FAILED) -> ToolResult:
        """A failed call whose message goes to the model and to people alike."""
        return cls(llm_content=f"Error: {message}", error=message,
                   suggest_escalation=suggest_escalation, escalation_reason=escalation_reason,
                   error_type=error_type)


@dataclass(frozen=True, slots=True)
class Confirmation:
    """What a person must see before a risky call runs.

    Attributes:
        title: One line saying what will happen.
        kind: ``edit`` (a file change), ``execute`` (a command) or ``info`` (anything else).
        path: The file an edit changes.
        before: The file's content before an edit ("" for a new file).
        after: The file's content after an edit.
        command: The command an execute call runs.
        working_dir: Where that command runs.
        details: Free text, e.g. the arguments of another tool.
        warnings: What a person should weigh before approving, one sentence each (e.g. a
            syntax error the proposed edit adds).
    """

    title: str
    kind: str = "info"
    path: Path | None = None
    before: str | None = None
    after: str | None = None
    command: str | None = None
    working_dir: Path | None = None
    details: str = ""
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SubTask:
    """A sub-task the ``task`` tool hands to a fresh agent.

    Attributes:
        call_id: The ``task`` call's id: the child's calls are shown under it.
        description: A few words naming it (the title of its lane).
        prompt: Everything the child needs to know; it sees nothing else of the
            conversation.
        persona: The persona the child takes on (None: none).
        read_only: Restrict the child to reading (plan mode, read-only tools and commands).
    """

    call_id: str
    description: str
    prompt: str
    persona: str | None = None
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class TaskPersona:
    """A persona the ``task`` tool offers: its name, what it is for, whether it only reads
    (its tasks run in parallel)."""

    name: str
    description: str
    read_only: bool


@dataclass(slots=True)
class ToolContext:
    """What a running tool may know about its surroundings.

    Attributes:
        workdir: The project folder; relative paths resolve against it.
        output_dir: Where tools keep large outputs (full shell logs).
        shell_timeout_ms: Default timeout of a shell command.
        output_limit: Characters of output a tool returns before it truncates.
        env: Environment for subprocesses (None: inherit).
        sandbox: The sandbox shell and background commands run in (None: none).
        todos: The session's todo list (None: the run keeps none).
        network_enabled: Whether tools may reach the network (off until the person says).
        supports_images: Whether the model takes image parts.
        settings: The run's settings (tools read their own options from it), or None.
        run_subagent: Runs a sub-agent on a prompt with only the named tools and returns
            its final answer (None where sub-agents are unavailable).
        run_task: Runs a :class:`SubTask` in a fresh agent and returns its final answer;
            raises ``RuntimeError`` with the reason when it fails (None where sub-tasks
            are unavailable: in a sub-agent itself).
        run_delegate: Hands a prompt to the session's delegate (in a new folder, or the
            earlier one named) and returns its answer; raises ``RuntimeError`` with what to
            do when it fails (None where no delegate is configured, and in a sub-agent).
        reads: What this agent has seen of each file (content hashes); edits of a file
            not read, or changed on disk since, are refused. Each agent has its own.
        browser: The session's browser (``tools.browser.BrowserSession``), made by the first
            browser tool that needs it; a sub-agent shares its parent's.
        memory: The memories this project's agent reads and writes
            (``core.memory.ProjectMemory``), or None where the run keeps none.
        skills: The skills this session may activate (``core.skills.SkillCatalog``), or None.
        on_skill_activated: Called with a skill once ``activate_skill`` has loaded it (the
            engine grants the skill's allowed tools for the session, where its source may).
        editor_text: The text of a file as the person's editor holds it, unsaved changes
            included (an ACP client that offers its file system); None when it cannot say.
            Blocking: call it from a worker thread. None where there is no editor.
        command_runner: Where shell commands run instead of agent-tui's own processes (an
            ACP client's terminals); None: here. Never used under a sandbox.
    """

    workdir: Path
    output_dir: Path
    shell_timeout_ms: int = 120_000
    output_limit: int = 30_000
    env: Mapping[str, str] | None = None
    sandbox: BwrapSandbox | None = None
    todos: TodoStore | None = None
    network_enabled: bool = False
    supports_images: bool = False
    settings: Settings | None = None
    run_subagent: Callable[[str, list[str]], Awaitable[str]] | None = None
    run_task: Callable[[SubTask], Awaitable[str]] | None = None
    run_delegate: Callable[[str, str | None], Awaitable[str]] | None = None
    reads: ReadLedger = field(default_factory=ReadLedger)
    browser: BrowserSession | None = None
    memory: ProjectMemory | None = None
    skills: SkillCatalog | None = None
    on_skill_activated: Callable[[Skill], None] | None = None
    editor_text: Callable[[Path], str | None] | None = None
    command_runner: CommandRunner | None = None

    def shared_browser(self) -> BrowserSession:
        """The session's browser (``tools.browser.BrowserSession``), made now if no tool has
        made it yet; hand it to a sub-agent's context so both drive one browser."""
        if self.browser is None:
            from .browser.session import BrowserSession

            self.browser = BrowserSession()
        return self.browser

    def close(self) -> None:
        """Release what the session's tools hold open (the browser); idempotent."""
        if self.browser is not None:
            self.browser.close()

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """Resolve a path from the model: ``~`` expanded, relative to the project folder."""
        p = Path(os.path.expanduser(os.fspath(path)))
        return p if p.is_absolute() else self.workdir / p


OutputCallback = Callable[[str], None]
P = TypeVar("P", bound=ToolParams, covariant=True)


class Invocation(ABC, Generic[P]):
    """One validated call of a tool, ready to describe, confirm and execute."""

    def __init__(self, tool: Tool, params: P, ctx: ToolContext) -> None:
        self.tool = tool
        self.params = params
        self.ctx = ctx

    @abstractmethod
    def describe(self) -> str:
        """A one-line summary for people, e.g. ``shell: ls -la``."""

    def locations(self) -> list[Path]:
        """The paths this call reads or writes (absolute, not yet resolved for symlinks)."""
        return []

    @property
    def read_only(self) -> bool:
        """True when this call changes nothing (read-only calls of one response run
        concurrently); by default its tool's ``read_only``."""
        return self.tool.read_only

    async def prepare(self) -> None:  # noqa: B027
        """Work that must be done before the call is judged and shown for approval and that
        may take time or ask the model (e.g. correcting an edit that does not match).

        The engine awaits it once, before ``confirmation`` and ``execute``. It must not
        change anything outside the invocation; failures are left for ``execute`` to report.
        """

    def confirmation(self) -> Confirmation | None:
        """What a person must see to approve this call, or None if nothing needs showing."""
        return None

    def harmless(self) -> str | None:
        """Why this call needs nobody's approval although its tool's kind would ask (a GET
        to a domain the person allowed), or None. Rules, plan mode and denials still
        apply first."""
        return None

    @abstractmethod
    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Run the call. Failures are returned as a ``ToolResult`` with ``error``, never raised."""


class ToolArgumentError(Exception):
    """The call cannot be built: the model's arguments did not fit the tool's schema, or
    what the tool needs is not there (``error_type`` says which)."""

    def __init__(self, message: str,
                 error_type: ErrorType = ErrorType.INVALID_ARGUMENTS) -> None:
        super().__init__(message)
        self.error_type = error_type


class Tool(ABC):
    """A tool the model can call.

    Subclasses set ``name``, ``kind``, ``description`` and ``Params`` and implement
    ``create_invocation``.
    """

    name: ClassVar[str]
    kind: ClassVar[ToolKind]
    description: ClassVar[str]
    Params: ClassVar[type[ToolParams]]
    ask_reason: ClassVar[str | None] = None
    """Why a call asks first, said to people (default: by ``kind``, e.g. "runs a command")."""
    repeatable: ClassVar[bool] = False
    """Whether a call may usefully repeat right after the same call (polling a process, a
    new screenshot); other tools' immediate repeats are not run again (g3)."""

    @property
    def read_only(self) -> bool:
        """True for tools that never change anything (they may run concurrently)."""
        return self.kind in (ToolKind.READ, ToolKind.THINK)

    def parameters_schema(self) -> dict[str, Any]:
        """The JSON schema of ``Params``, as sent to the model.

        Without ``Params``' own docstring ("Arguments of read_file."): the tool's description
        says it, and on every call it costs tokens.
        """
        schema: dict[str, Any] = _simplify_schema(self.Params.model_json_schema())
        schema.pop("description", None)
        return schema

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling description of this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters_schema(),
            },
        }

    def build(self, args: Mapping[str, Any], ctx: ToolContext) -> Invocation[ToolParams]:
        """Validate ``args`` and return an invocation.

        Raises:
            ToolArgumentError: with a message that names each bad field and shows the schema.
        """
        try:
            params = self.Params.model_validate(dict(args))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
                for err in exc.errors()
            )
            raise ToolArgumentError(
                f"invalid arguments for {self.name}: {problems}. "
                f"Expected parameters (JSON schema): {json.dumps(self.parameters_schema())}"
            ) from None
        self.validate(params, ctx)
        return self.create_invocation(params, ctx)

    def validate(self, params: Any, ctx: ToolContext) -> None:  # noqa: B027
        """Checks beyond the schema; raise ``ToolArgumentError`` to reject the call."""

    @abstractmethod
    def create_invocation(self, params: Any, ctx: ToolContext) -> Invocation[ToolParams]:
        """Make the invocation of validated ``params``."""


def _simplify_schema(node: Any) -> Any:
    """Drop pydantic's titles and ``anyOf [X, null]`` of optional fields.

    Some providers (Gemini among them) reject ``anyOf`` with ``null``; an optional field is
    already expressed by not being ``required``.
    """
    if isinstance(node, list):
        return [_simplify_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _simplify_schema(v) for k, v in node.items() if k != "title"}
    variants = out.get("anyOf")
    if isinstance(variants, list):
        non_null = [v for v in variants if v != {"type": "null"}]
        if len(non_null) == 1 and len(non_null) < len(variants):
            del out["anyOf"]
            out = {**non_null[0], **out}
            if out.get("default", ...) is None:
                del out["default"]
    if isinstance(out.get("properties"), dict):
        out["properties"] = {
            name: _simplify_schema(prop) for name, prop in node["properties"].items()
        }
    return out
