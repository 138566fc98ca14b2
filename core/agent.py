"""The agent loop: ask the model, run its tool calls, repeat until it answers.

One model call is :mod:`.model_call`'s; each tool call goes through :mod:`.calls` (hooks,
approval, the turn's checkpoint, execute); the hooks around a prompt are
:mod:`.hooks.turn`'s, thinning and compaction :mod:`.context.compaction`'s; what the model
is offered is :mod:`.tool_offer`'s, a stronger model's takeover :mod:`.escalation`'s and a
sub-agent :mod:`.subagents`'. Everything the loop does is reported as an event to
``on_event``; front ends (the TUI, the headless printer) consume nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..tools.base import ImagePart, Tool, ToolContext
from ..tools.registry import ToolRegistry
from . import model_call, paths, text_protocol
from .after_turn import AfterTurn
from .approval import Approver
from .calls import (
    ApprovalGate,
    HookStopped,
    ResponseCalls,
    ToolCalls,
    TurnCheckpoints,
    fit_results,
    result_messages,
)
from .changes.checkpoints import Checkpoints, checkpoints_off
from .changes.snapshot_scope import SnapshotLimits
from .config import Settings
from .context.compaction import compact, fit_context
from .context.window import CompactionLoop, ContextManager
from .escalation import Escalation
from .events import (
    AssistantMessage,
    ContextUpdated,
    ErrorEvent,
    Event,
    EventSink,
    ModelNote,
    RunResult,
    Thinking,
    TodoUpdated,
    TurnUsage,
    Usage,
    UserMessage,
)
from .hooks import HookRunner
from .hooks.turn import before_prompt, stop_go_on
from .knowledge import Knowledge
from .providers.base import Message, ModelReply, Provider, ProviderError, ToolCallRequest
from .retry import RetryPolicy
from .safety.redaction import settings_secrets
from .safety.sandbox import make_sandbox
from .safety.subprocess_env import subprocess_env
from .sessions.log import SessionLog, SessionStore, turn_starts
from .sessions.resume import TRANSIENT_EVENTS, RestoredSession, restore, with_notes
from .subagents import SubAgents
from .todos import TodoStore
from .tool_offer import ToolOffer

if TYPE_CHECKING:
    from .context.repo_map import RepoMap
    from .memory import ProjectMemory
    from .skills import Skill

MULTIMODAL_MODELS = "anthropic/claude-sonnet-4-20250514, openai/gpt-4o or gemini/gemini-2.5-flash"
"""Models to suggest to a person who attached an image to a model that takes none."""


class LimitsExceeded(Exception):
    """The run used all the model calls (``max_turns``) or the money (``max_cost``) it was
    allowed."""


class Agent:
    """One conversation with a model, with tools, in one project folder."""

    def __init__(
        self,
        provider: Provider,
        registry: ToolRegistry,
        settings: Settings,
        workdir: Path,
        approver: Approver,
        on_event: EventSink,
        session_id: str | None = None,
        session: SessionStore | None = None,
        knowledge: Knowledge | None = None,
        memory: ProjectMemory | None = None,
    ) -> None:
        """An agent at ``workdir``.

        Args:
            knowledge: The project's instructions, skills and hooks (None: none).
            memory: The project's memories the memory tools use
                (``core.memory.ProjectMemory``; None: the run keeps none).
        """
        self.provider = provider
        self.registry = registry
        self.settings = settings
        self.workdir = workdir
        self.approver = approver
        self.on_event = on_event
        self.session = session
        if session is not None:
            session.hide(settings_secrets(settings))
        self.session_id = session.session_id if session else (
            session_id or paths.new_session_id())
        self.native_tools = provider.supports_native_tools()
        self.retry = RetryPolicy(
            settings.max_retries, settings.retry_base_delay, settings.retry_max_delay
        )
        self.usage = Usage()
        self._reasoning_told: set[str] = set()  # reasoning_effort notes said (once each)
        self.subagent = False
        """A sub-agent's tool calls pass the hooks; its prompt and its stop do not."""
        self.subagents = SubAgents(self, Agent)
        self.tool_ctx = ToolContext(
            workdir=workdir,
            output_dir=paths.tool_output_dir(self.session_id),
            shell_timeout_ms=settings.shell_timeout_ms,
            output_limit=settings.tool_output_limit,
            env=subprocess_env(settings),
            sandbox=make_sandbox(settings, paths.session_dir(self.session_id) / "sandbox-tmp"),
            todos=TodoStore(paths.session_dir(self.session_id) / "todo.md",
                            on_change=lambda content: self.emit(TodoUpdated(content))),
            network_enabled=settings.network,
            supports_images=provider.supports_images(),
            settings=settings,
            run_subagent=self.subagents.run,
            run_task=self.subagents.run_task,
            memory=memory,
            on_skill_activated=self._skill_activated,
        )
        self.knowledge = knowledge or Knowledge(workdir)
        self.tool_ctx.skills = self.knowledge.skills
        self.offer = ToolOffer(self, registry, workdir, self.native_tools)
        """The tools the model is offered and the system prompt that describes them."""
        self.subagents.offer_personas()
        self.offer.limit_to_persona()
        self.hooks = HookRunner(self.knowledge.hooks, workdir, self.session_id,
                                self.tool_ctx.env)
        self.session_source = "startup"
        """What ``SessionStart`` hooks are told started the session: ``startup``,
        ``resume`` (a restored log) or ``clear`` (after /clear)."""
        self._session_started = False
        self.context = ContextManager(provider.context_window(), provider.count_tokens,
                                      paths.fragments_dir(self.session_id))
        self.repo_map: RepoMap | None = None
        """The repository map sent after the history (core/runtime gives one)."""
        registry.choose_set(settings.tool_set, self.context.window)
        self.offer.specs = text_protocol.tool_specs(registry.schemas())
        self.messages: list[Message] = [{"role": "system", "content": ""}]
        self.offer.rewrite_system_prompt()
        self._calls_made = 0
        self._notes: list[str] = []
        self.escalation = Escalation(self)
        """Whether ``escalation_model`` has taken the current run over."""
        self.gate = ApprovalGate(approver, registry, self.tool_ctx, workdir, self.emit)
        """Decides whether each call runs; keeps the rules the person gave."""
        checkpoints = (Checkpoints(workdir, self.session_id, SnapshotLimits.of(settings))
                       if checkpoints_off(workdir) is None else None)
        self.calls = ToolCalls(self, registry, self.tool_ctx, self.gate, TurnCheckpoints(
            workdir, checkpoints, self.emit, lambda: self.settings.checkpoint_timeout))
        """Runs each tool call through the hooks, the gate and the turn's checkpoints."""
        self.after_turn = AfterTurn(workdir, lambda: self.settings, self.calls.checkpoints,
                                    lambda: self.provider, self.tool_ctx.env, self.emit)
        """The checks after a turn's edits (lint_command, test_command) and its commit."""
        # Turn N is the N-th prompt of the session log; None: count them at the next prompt.
        self._next_turn: int | None = None if session is not None else 0
        self._response_calls = ResponseCalls()  # to answer what a cancel leaves unanswered

    @property
    def checkpoints(self) -> Checkpoints | None:
        """Snapshots of the project around each turn that changes it; None when they are off."""
        return self.calls.checkpoints.checkpoints

    @checkpoints.setter
    def checkpoints(self, checkpoints: Checkpoints | None) -> None:
        self.calls.checkpoints.checkpoints = checkpoints

    @property
    def session_rules(self) -> list[str]:
        """Allow rules the person gave for this session only (kept in memory)."""
        return self.gate.session_rules

    @property
    def tool_protocol(self) -> str:
        """``native`` or ``text``: how tools reach this model."""
        return "native" if self.native_tools else "text"

    def close(self) -> None:
        """Release what the session's tools hold open (its browser); the agent can still
        run afterwards (a browser tool starts a new browser)."""
        self.tool_ctx.close()

    def emit(self, event: Event) -> None:
        """Record the event in the session log (fsync'd), then hand it to the front end."""
        if self.session is not None and event.type not in TRANSIENT_EVENTS:
            self.session.append(event.to_dict())
        self._response_calls.saw(event)
        self.on_event(event)

    def restore(self, log: SessionLog) -> RestoredSession:
        """Load a recorded session's history, usage and todos, to go on where it stopped."""
        restored = restore(log, native_tools=self.native_tools)
        self.session_source = "resume"
        self.messages[1:] = restored.messages
        self.usage = restored.usage
        self._notes = list(restored.notes)
        self._next_turn = len(turn_starts(log.events))
        return restored

    def adopt(self, previous: Agent) -> None:
        """Go on from ``previous`` (e.g. after a switch of model): the conversation so far,
        the rules the person gave for this session and the notes still waiting for a prompt.

        What the previous agent had read is not carried: the model reads files again before
        it changes them, as after a resume.
        """
        self.messages[1:] = previous.messages[1:]
        self.gate.share_rules(previous.gate)
        self._session_started = previous._session_started
        self._notes = list(previous._notes)
        self._next_turn = previous._next_turn

    def use_knowledge(self, knowledge: Knowledge) -> None:
        """Go on with ``knowledge`` read anew (an AGENTS.md, a skill or the hooks changed):
        the system prompt, the skills on offer and the hooks. Call it between turns."""
        self.knowledge = knowledge
        self.tool_ctx.skills = knowledge.skills
        self.hooks = HookRunner(knowledge.hooks, self.workdir, self.session_id,
                                self.tool_ctx.env)
        self.subagents.offer_personas()
        self.offer.refresh()

    def use_external_tools(self, group: str, tools: Sequence[Tool]) -> bool:
        """Offer ``tools`` instead of the tools this agent was last given for ``group``
        (``mcp``: the MCP servers' tools as they are now; ``discovered``: the project's
        discovery command's). Call it between turns; returns whether anything changed.
        A tool whose name a built-in tool has is left out."""
        return self.offer.use_external(group, tools)

    def _skill_activated(self, skill: Skill) -> None:
        """``activate_skill`` loaded ``skill``: its allowed tools are allowed for the session,
        where its source may grant them (not an untrusted repository's)."""
        if skill.may_grant:
            rules = self.gate.session_rules
            rules.extend(r for r in skill.allowed_tools if r not in rules)

    def add_note(self, text: str) -> None:
        """Tell the model ``text`` along with the person's next prompt.

        For what the person does outside the conversation that the model must know, e.g.
        rejecting hunks of its change or undoing a turn. The note is logged at once.
        """
        self.emit(ModelNote(text))
        self._notes.append(text)

    # -- the loop ----------------------------------------------------------------------

    async def run(self, prompt: str, *, allowed_rules: Sequence[str] = (),
                  images: Sequence[tuple[str, ImagePart]] = ()) -> RunResult:
        """Work on ``prompt`` until the model answers without tool calls.

        Failures (the provider giving up, the turn limit, a hook that blocks the prompt) end
        the run with ``ok=False``; they are reported as events and in the result, never
        raised.

        Args:
            allowed_rules: Permission rules allowed for this turn only (a custom command's
                allowed tools).
            images: Images the prompt attaches: each one's name and its part for the model.
        """
        await self._start_turn()
        blocked = await self._prompt_hooks(prompt)
        if blocked is None and images and not self.provider.supports_images():
            blocked = (f"The model {self.provider.model} does not take images, so the prompt "
                       f"was not sent. Switch to one that does (e.g. {MULTIMODAL_MODELS}) with "
                       "/model NAME or --model, or send the prompt without the image.")
        if blocked is not None:
            self.emit(ErrorEvent(blocked, fatal=True))
            result = RunResult("", 0, Usage(), self.session_id, ok=False, error=blocked)
            self.emit(result)
            return result
        text = with_notes(self._notes, prompt)
        self.messages.append({"role": "user", "content": text if not images else [
            {"type": "text", "text": text},
            *({"type": "image_url",
               "image_url": {"url": f"data:{part.media_type};base64,{part.data_base64}"}}
              for _name, part in images)]})
        self._notes.clear()
        self.emit(UserMessage(prompt, tuple(name for name, _part in images)))
        if self.repo_map is not None:
            await self.repo_map.refresh_between_turns(self.messages, self.emit)
        self.gate.turn_rules = list(allowed_rules)
        self.calls.start_run()
        self.escalation.start_run()
        self.after_turn.start_run()
        self._stop_hook_active = False
        model_calls = 0
        usage = Usage()
        self.subagents.spent = Usage()
        text = ""
        try:
            while True:
                if model_calls >= self.settings.max_turns:
                    raise LimitsExceeded(
                        f"stopped after {model_calls} model calls (max_turns); raise "
                        "--max-turns to let the agent go on"
                    )
                self._check_budget()
                model_calls += 1
                await self._fit_context()
                reply = await self._ask_model()
                usage = usage + reply.usage
                text = reply.text
                if not reply.tool_calls:
                    if (await self._stop_hooks_go_on(text)
                            or self.escalation.take_over_answer(text)
                            or (not self.subagent
                                and await self.after_turn.fix_needed(self.messages))):
                        continue
                    break
                if reply.text.strip():
                    self.calls.last_call = None  # text between two same calls: no blind repeat
                suggested = len(self.calls.escalations)
                await self._run_tools(reply.tool_calls)
                if len(self.calls.escalations) > suggested:
                    self.escalation.take_over(self.calls.escalations[suggested], "tool")
        except asyncio.CancelledError:
            self.gate.turn_rules = []
            self._response_calls.answer_all(self.messages, self.native_tools, self.emit)
            await self.calls.checkpoints.end_turn()
            raise
        except (ProviderError, LimitsExceeded, CompactionLoop, HookStopped) as exc:
            if isinstance(exc, HookStopped):
                self._response_calls.answer_all(
                    self.messages, self.native_tools, self.emit,
                    "a hook stopped the work before this call finished")
            message = exc.message if isinstance(exc, ProviderError) else str(exc)
            self.emit(ErrorEvent(message, fatal=True))
            result = RunResult(text, model_calls, usage + self.subagents.spent, self.session_id,
                               ok=False, error=message)
        else:
            result = RunResult(text, model_calls, usage + self.subagents.spent, self.session_id)
        self.gate.turn_rules = []
        if self.calls.escalations:
            result = replace(result, suggest_escalation=True,
                             escalation_reasons=list(self.calls.escalations))
        if self.escalation.active is not None:
            result = replace(result, escalated_to=self.escalation.active.model)
        await self.calls.checkpoints.end_turn()
        if result.ok and not self.subagent:
            await self.after_turn.commit(prompt)
        self.emit(result)
        return result

    # -- hooks -------------------------------------------------------------------------

    async def _prompt_hooks(self, prompt: str) -> str | None:
        """``SessionStart`` (once) and ``UserPromptSubmit``: what they add reaches the model
        with the prompt; returns why the prompt is blocked, or None."""
        if self.subagent:
            return None
        started_by = None if self._session_started else self.session_source
        self._session_started = True
        said = await before_prompt(self.hooks, self.emit, prompt, started_by)
        self._notes.extend(said.notes)
        return said.blocked

    async def _stop_hooks_go_on(self, answer: str) -> bool:
        """``Stop`` hooks may send the model back to work with a reason; the turn limit
        still bounds it."""
        if self.subagent:
            return False
        reason = await stop_go_on(self.hooks, self.emit, answer, self._stop_hook_active)
        if reason is None:
            return False
        self._stop_hook_active = True
        self.messages.append({"role": "user", "content": (
            f"A Stop hook says the work is not finished: {reason}")})
        return True

    # -- turns and model calls ---------------------------------------------------------

    async def _start_turn(self) -> None:
        """Number the turn a new prompt starts (the count of earlier prompts in the log)."""
        if self._next_turn is None:
            assert self.session is not None
            log = await asyncio.to_thread(self.session.read)
            self._next_turn = len(turn_starts(log.events))
        self.calls.checkpoints.start(self._next_turn)
        self._next_turn += 1

    async def _fit_context(self) -> None:
        """Before a model call: thin old tool results, and compact when past the mark."""
        tools = self.registry.schemas() if self.native_tools else None
        await fit_context(self.context, self.messages, tools, self.emit, self._compact)

    async def _compact(self) -> None:
        """Replace the history by a summary the model writes (and the person may edit)."""
        todos = self.tool_ctx.todos.read() if self.tool_ctx.todos else None
        await compact(self.context, self.messages, self.provider, self.approver, self.session,
                      todos, self.emit)

    def _check_budget(self) -> None:
        """Stop before the next model call once the session has spent ``max_cost`` (a model
        litellm has no prices for costs nothing it knows of, so it is never stopped)."""
        limit, spent = self.settings.max_cost, self.usage.cost
        if limit is not None and spent is not None and spent >= limit:
            raise LimitsExceeded(f"stopped after spending ${spent:.4f} (max_cost ${limit:g}); "
                                 "raise --max-cost to let the agent go on")

    async def _ask_model(self) -> ModelReply:
        """One model call with retries; appends the assistant message and reports usage."""
        tools = self.registry.schemas() if self.native_tools else None
        await self._tell_reasoning_note()
        reply = await model_call.complete(
            lambda: self.escalation.active or self.provider, self.messages, tools,
            None if self.native_tools else self.offer.specs, self.retry, self.emit, self._compact,
            self.repo_map.request_tail() if self.repo_map else ())
        reply = self._record_reply(reply)
        self.usage = self.usage + reply.usage
        self.emit(TurnUsage(reply.usage, self.usage))
        # A provider that sends no usage leaves counting to us: tens of milliseconds for a
        # long conversation, not on the event loop the workbench draws with.
        tokens = reply.usage.total_tokens or await asyncio.to_thread(
            self.provider.count_tokens, self.messages)
        level = self.context.last_report.level if self.context.last_report else 0
        self.emit(ContextUpdated(tokens, self.provider.context_window(), level))
        return reply

    async def _tell_reasoning_note(self) -> None:
        """Say once per model that its calls go without the configured reasoning effort."""
        provider = self.escalation.active or self.provider
        if self.settings.reasoning_effort is None or provider.model in self._reasoning_told:
            return
        self._reasoning_told.add(provider.model)
        if note := await asyncio.to_thread(provider.reasoning_note):
            self.emit(ErrorEvent(note))

    def _record_reply(self, reply: ModelReply) -> ModelReply:
        """Append the assistant message; in text mode, parse tool calls out of the text."""
        if reply.reasoning or reply.thinking_blocks:
            self.emit(Thinking(reply.reasoning, list(reply.thinking_blocks)))
        if self.native_tools:
            message: Message = {"role": "assistant", "content": reply.text or None}
            if reply.thinking_blocks:
                # Anthropic's signed blocks go back ahead of this response's tool calls.
                message["thinking_blocks"] = list(reply.thinking_blocks)
            if reply.tool_calls:
                message["tool_calls"] = [c.to_message() for c in reply.tool_calls]
            shown = reply
        else:
            message = {"role": "assistant", "content": reply.text}
            visible, calls = text_protocol.parse_tool_calls(
                reply.text, self.offer.specs, id_prefix=f"t{self._calls_made}"
            )
            shown = ModelReply(visible, calls, reply.usage, reply.finish_reason)
        self.messages.append(message)
        self._response_calls.expect(list(shown.tool_calls))
        self.emit(
            AssistantMessage(
                shown.text,
                [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in shown.tool_calls],
            )
        )
        return shown

    # -- tools -------------------------------------------------------------------------

    async def _run_tools(self, calls: list[ToolCallRequest]) -> None:
        """Run one response's tool calls and add their results to the conversation."""
        self._calls_made += len(calls)
        results = await self.calls.run(calls)
        tools = self.registry.schemas() if self.native_tools else None
        contents = await fit_results(self.context, self.messages, tools,
                                     self.settings.max_output_tokens,
                                     list(zip(calls, results, strict=True)))
        self.messages.extend(result_messages(self.native_tools, calls, results, contents))
