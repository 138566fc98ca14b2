"""The workbench: a full-screen Textual front end on the engine.

The agent runs in a worker on the app's loop and reports through ``EventBridge``; the
widgets only ever see ``AgentEvent`` messages. litellm is imported in a thread after the
first frame.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static

from ..core import paths
from ..core.approval import ApprovalRequest, ApprovalResponse
from ..core.config import APPROVAL_MODES, Settings, save_user_settings
from ..core.events import (
    ApprovalDecided,
    AssistantMessage,
    Compacted,
    ContextThinned,
    ContextUpdated,
    ErrorEvent,
    StreamRestart,
    TextDelta,
    TodoUpdated,
    ToolCallStarted,
    ToolOutput,
    ToolResultEvent,
    TurnUsage,
)
from ..core.safety.redaction import settings_secrets
from ..themes import STYLESHEET, THEMES
from .approver import TuiApprover
from .bridge import AgentEvent, EventBridge
from .change_actions import ChangeActions
from .commands import SLASH_COMMANDS
from .session_actions import SessionActions
from .widgets.conversation import (
    BlockRecord,
    ConversationView,
    NoticeBlock,
    ToolBlock,
    UserBlock,
)
from .widgets.panels import ContextGauge, StatusBar, TodoPane
from .widgets.prompt import PromptInput
from .widgets.tool_log import ToolLog

RESTORED_TOOL_ROWS = 100
"""Calls of a resumed session listed in the tool log (the newest); the transcript has all."""

NO_MODEL = ("No model is configured. Type /model NAME (e.g. /model openai/gpt-4.1), or quit "
            "and set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY.")

if TYPE_CHECKING:
    from ..core.agent import Agent
    from ..core.sessions.log import SessionLog
    from ..core.sessions.start import OpenedSession


HELP_TEXT = """\
**Keys** — Enter send · Ctrl+J new line · ↑/↓ history · Esc cancel the running turn ·
Shift+Tab cycle approval mode · F2 side panel · F3 tool log · F4 todos ·
F5/F6 narrow/widen the side panel · F7 review the changes (/diff) ·
Ctrl+↑ to the conversation, then j/k between blocks, Esc back to the prompt ·
Enter expands a tool block · c copies a block · Ctrl+P command palette · Ctrl+Q quit

**Approvals** — y allow once · a allow always · n deny · d deny with a reason ·
e edit before it runs · Esc deny · space ticks/unticks an edit's hunk, j/k move between hunks

**Review (F7, /diff)** — j/k hunk · n/p or Tab file · a/r accept/reject the hunk ·
A/R the whole file · q close; a rejection is reverted on disk at once, and the model hears
of it with your next prompt

**Commands** — """ + " · ".join(f"`{name}` {text.lower()}" for name, text in
                                 SLASH_COMMANDS.items())


class AgentApp(SessionActions, ChangeActions, App[None]):
    """The agent-tui workbench on one project folder."""

    CSS_PATH = str(STYLESHEET)
    TITLE = "agent-tui"
    AUTO_FOCUS = "#prompt"
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel", show=False),
        Binding("ctrl+up", "focus_conversation", "Blocks", show=False, priority=True),
        Binding("ctrl+r", "browse_sessions", "Sessions", show=False, priority=True),
        Binding("shift+tab", "cycle_mode", "Mode", show=False, priority=True),
        Binding("f2", "toggle_side", "Side panel", show=False, priority=True),
        Binding("f3", "toggle_tool_log", "Tool log", show=False, priority=True),
        Binding("f4", "toggle_todos", "Todos", show=False, priority=True),
        Binding("f6", "resize_side(4)", "Wider side", show=False, priority=True),
        Binding("f5", "resize_side(-4)", "Narrower side", show=False, priority=True),
        Binding("f7", "review_changes", "Review changes", show=False, priority=True),
    ]

    def __init__(self, settings: Settings, workdir: Path, *, load_litellm: bool = True,
                 session_id: str | None = None, session: OpenedSession | None = None,
                 replay: tuple[SessionLog, float] | None = None,
                 browse_sessions: bool = False) -> None:
        super().__init__()
        self._browse_on_start = browse_sessions
        self.opened = session
        self._replay = replay
        self.settings = settings
        self.workdir = workdir
        self.agent: Agent | None = None
        self.session_id = (session.store.session_id if session
                           else session_id or paths.new_session_id())
        self.approver = TuiApprover(self)
        self.queue: deque[tuple[str, UserBlock]] = deque()
        self.busy = False
        self._load_litellm = load_litellm
        self._assistant: Any = None  # the AssistantBlock being streamed into
        self._tool_blocks: dict[str, ToolBlock] = {}
        self._window_focused = True
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = settings.theme if settings.theme in self.available_themes else THEMES[0].name

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield ConversationView(id="conversation")
                yield PromptInput(id="prompt", commands=SLASH_COMMANDS, workdir=self.workdir)
            with Vertical(id="side"):
                yield Static("context", classes="side-title")
                yield ContextGauge(id="gauge")
                with Vertical(id="todo-section"):
                    yield Static("todos", classes="side-title")
                    yield TodoPane("", id="todos")
                yield Static("tool log", classes="side-title")
                yield ToolLog(id="tool-log")
        yield StatusBar(id="status")

    def on_mount(self) -> None:
        status = self.query_one(StatusBar)
        status.model = self.settings.model or ""
        status.mode = self.settings.approval_mode
        status.network = self.settings.network
        status.sandbox = self.settings.sandbox
        status.project = _short_path(self.workdir)
        status.session_id = self.session_id
        self.query_one(TodoPane).show("")
        if self.opened is not None and self.opened.log is not None:
            self.call_after_refresh(self.show_restored, self.opened.log)
            for warning in self.opened.warnings:
                self.notice(warning, error=True)
        if self._browse_on_start:
            self.call_after_refresh(self.action_browse_sessions)
        if self._replay is not None:
            self.play_back(*self._replay)
        elif not self.settings.model:
            self.offer_setup()
        if self._load_litellm:
            # After the first frame: an import in a thread still competes for the GIL.
            self.call_after_refresh(self.preload_litellm)

    @work(exclusive=True, group="setup", exit_on_error=False)
    async def offer_setup(self) -> None:
        """No model is configured: ask for one and save the answer to the user config."""
        # The engine and the setup screen load on demand: the first frame must not wait.
        from ..core.model_setup import save_setup
        from .screens.setup import SetupScreen

        choice = await self.push_screen_wait(SetupScreen())
        if choice is None:
            self.notice(NO_MODEL, error=True)
            return
        try:
            saved = f"saved to {await asyncio.to_thread(save_setup, choice)}"
        except (OSError, ValueError) as exc:
            saved = f"not saved ({exc}); it lasts for this session only"
        self._update_settings(model=choice.model, api_base=choice.api_base,
                              api_key_env=choice.key_env)
        self.query_one(StatusBar).model = choice.model
        self.agent = None  # the next turn builds one with the new settings
        self.notice(f"Model: {choice.model}, {saved}.")

    @work(thread=True, exit_on_error=False, group="preload")
    def preload_litellm(self) -> None:
        """Import litellm off the UI thread, after the first frame; then show the window."""
        from ..core.providers.litellm import LitellmProvider, load_litellm

        load_litellm()
        if self.settings.model:
            window = LitellmProvider(self.settings).context_window()
            self.call_from_thread(setattr, self.query_one(ContextGauge), "window", window)

    # -- prompts, queue, turns ---------------------------------------------------------

    @on(PromptInput.Submitted)
    async def _on_prompt(self, message: PromptInput.Submitted) -> None:
        text = message.text
        if text.startswith("/"):
            await self.run_slash_command(text.strip())
            return
        block = UserBlock(text, queued=self.busy)
        await self.conversation.add(block)
        if self.busy:
            self.queue.append((text, block))
            self.query_one(StatusBar).queued = len(self.queue)
        else:
            self.start_turn(text)

    def start_turn(self, text: str) -> None:
        """Run one prompt in a worker."""
        if not self.settings.model:
            self.notice(NO_MODEL, error=True)
            return
        self._set_busy(True)
        self.run_turn(text)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self, text: str) -> None:
        """The worker of one turn; cancelling it cancels the stream and kills tools."""
        try:
            agent = await self._ensure_agent()
            await agent.run(text)
        except asyncio.CancelledError:
            await self._finish_assistant()
            self.notice("Cancelled: the stream was stopped and running tools were killed.")
            raise
        except Exception as exc:  # the engine reports its own failures; this is a bug
            self.notice(f"Unexpected error: {type(exc).__name__}: {exc}", error=True)
        finally:
            self._set_busy(False)
            self._ring_if_away("The agent finished.")
            self.call_later(self._next_in_queue)

    async def show_restored(self, log: SessionLog) -> None:
        """Redraw a resumed session: its transcript, tool log, todos and context gauge.

        Only the newest blocks become widgets now; the earlier ones are built when the
        person scrolls back to them, and the tool log lists the newest
        ``RESTORED_TOOL_ROWS`` calls, so a session of any length is on screen at once.
        """
        from .widgets.assistant_block import AssistantBlock

        builders: list[Callable[[], Any]] = []
        calls: list[tuple[dict[str, Any], dict[str, Any]]] = []
        # Final states first: one widget and one row per call, not one update per event.
        results = {r.get("id"): r for r in log.events if r.get("type") == "tool_result"}
        for record in log.events:
            kind = record.get("type")
            if kind == "user_message":
                builders.append(partial(UserBlock, record.get("text", "")))
            elif kind == "assistant_message" and record.get("text", "").strip():
                builders.append(partial(AssistantBlock, record["text"]))
            elif kind == "tool_call":
                result = results.get(record["id"])
                final = {} if result is None else {
                    "status": "ok" if result.get("ok") else "error",
                    "duration": result.get("duration"), "output": result.get("output", "")}
                builders.append(partial(ToolBlock, record["id"], record["name"],
                                        record.get("summary", ""), record.get("args"), **final))
                calls.append((record, final))
            elif kind == "todo":
                self.query_one(TodoPane).show(record.get("content", ""))
            elif kind == "context":
                gauge = self.query_one(ContextGauge)
                gauge.tokens, gauge.window = record.get("tokens", 0), record.get("window", 0)
            elif kind == "usage":
                self.query_one(ContextGauge).session_cost = (record.get("session") or {}).get(
                    "cost")
        tool_log = self.query_one(ToolLog)
        for record, final in calls[-RESTORED_TOOL_ROWS:]:
            tool_log.add_call(record["id"], record["name"], record.get("summary", ""),
                              record.get("args"), follow=False, **final)
        if len(calls) > RESTORED_TOOL_ROWS:
            tool_log.note_earlier(len(calls) - RESTORED_TOOL_ROWS)
        split = max(0, len(builders) - ConversationView.RESTORE_MOUNTED)
        blocks = [build() for build in builders[split:]]
        for block in blocks:
            if isinstance(block, ToolBlock):
                self._tool_blocks[block.call_id] = block
        await self.conversation.add_many(blocks, [BlockRecord(b) for b in builders[:split]])
        self.notice(f"Resumed session {self.session_id}: {len(builders)} blocks.")

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def play_back(self, log: SessionLog, speed: float) -> None:
        """``agent-tui replay``: show a recorded session as it happened, at ``speed``."""
        from ..core.events import UserMessage
        from ..core.sessions.replay import replay

        self.query_one(StatusBar).session_id = f"{log.session_id} (replay ×{speed:g})"
        self._set_busy(True)
        try:
            async for event in replay(log, speed):
                if isinstance(event, UserMessage):
                    await self.conversation.add(UserBlock(event.text))
                else:
                    await self._show_event(event)
        finally:
            self._set_busy(False)
        self.notice(f"End of the replay of session {log.session_id}.")

    def _next_in_queue(self) -> None:
        if self.busy or not self.queue:
            return
        text, block = self.queue.popleft()
        block.mark_sent()
        self.query_one(StatusBar).queued = len(self.queue)
        self.start_turn(text)

    async def _ensure_agent(self) -> Agent:
        if self.agent is None:
            from ..core.agent import Agent
            from ..core.providers.litellm import LitellmProvider, load_litellm
            from ..tools.builtin import builtin_tools
            from ..tools.registry import ToolRegistry

            await asyncio.to_thread(load_litellm)
            opened = self.opened
            self.agent = Agent(LitellmProvider(self.settings), ToolRegistry(builtin_tools()),
                               self.settings, self.workdir, self.approver,
                               EventBridge(self, settings_secrets(self.settings)),
                               session_id=self.session_id,
                               session=opened.store if opened else None)
            if opened is not None and opened.log is not None:
                self.agent.restore(opened.log)
                opened.log = None  # restored once; later agents (e.g. /model) carry history
        return self.agent

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.query_one(StatusBar).busy = busy

    @property
    def conversation(self) -> ConversationView:
        return self.query_one(ConversationView)

    def notice(self, text: str, *, error: bool = False) -> None:
        """A line from agent-tui in the conversation."""
        block = NoticeBlock(text, classes="error" if error else "", markup=False)
        self.call_later(self.conversation.add, block)

    # -- engine events -----------------------------------------------------------------

    async def on_agent_event(self, message: AgentEvent) -> None:
        try:
            await self._show_event(message.event)
        except NoMatches:
            # The app is closing and its widgets are gone; the event has nowhere to go.
            if self.is_running and self.screen_stack and self.screen.is_mounted:
                raise

    async def _show_event(self, event: Any) -> None:
        if isinstance(event, TextDelta):
            if self._assistant is None:
                from .widgets.assistant_block import AssistantBlock

                self._assistant = AssistantBlock()
                await self.conversation.add(self._assistant)
            await self._assistant.append_text(event.text)
            self.conversation.follow()
        elif isinstance(event, StreamRestart):
            if self._assistant is not None:
                await self._assistant.remove()
                self._assistant = None
            self.notice(f"↻ Retry {event.attempt} in {event.delay:.1f}s: {event.reason}")
        elif isinstance(event, AssistantMessage):
            await self._finish_assistant(event.text)
        elif isinstance(event, ToolCallStarted):
            block = ToolBlock(event.id, event.name, event.summary, event.args)
            self._tool_blocks[event.id] = block
            await self.conversation.add(block)
            self.query_one(ToolLog).add_call(event.id, event.name, event.summary, event.args)
        elif isinstance(event, ApprovalDecided):
            status = "running" if event.decision == "allow" else "denied"
            self._update_tool(event.id, status=status,
                              output=None if status == "running" else event.reason)
        elif isinstance(event, ToolOutput):
            if block := self._tool_blocks.get(event.id):
                block.add_output(event.text)
            self.query_one(ToolLog).update_call(event.id, more_output=event.text)
        elif isinstance(event, ToolResultEvent):
            block = self._tool_blocks.get(event.id)
            denied = block is not None and block.status == "denied"
            self._update_tool(event.id, status="denied" if denied else (
                "ok" if event.ok else "error"), duration=event.duration, output=event.output)
        elif isinstance(event, TodoUpdated):
            self.query_one(TodoPane).show(event.content)
        elif isinstance(event, ContextUpdated):
            gauge = self.query_one(ContextGauge)
            gauge.window = event.window
            gauge.tokens = event.tokens
            gauge.level = event.level
        elif isinstance(event, ContextThinned):
            self.query_one(ContextGauge).level = event.level
            self.notice(f"Context at {event.level} %: {len(event.fragments)} old tool result(s) "
                        f"set aside ({event.tokens_before:,} -> {event.tokens_after:,} tokens); "
                        "the agent can bring them back with rehydrate.")
        elif isinstance(event, Compacted):
            gauge = self.query_one(ContextGauge)
            gauge.compactions += 1
            self.notice(f"Compacted the conversation: {event.tokens_before:,} -> "
                        f"{event.tokens_after:,} tokens.")
        elif isinstance(event, TurnUsage):
            gauge = self.query_one(ContextGauge)
            gauge.turn_cost = event.usage.cost
            gauge.session_cost = event.session.cost
        elif isinstance(event, ErrorEvent):
            await self._finish_assistant()
            self.notice(event.message, error=True)

    async def _finish_assistant(self, text: str | None = None) -> None:
        block, self._assistant = self._assistant, None
        if block is None:
            if text:
                from .widgets.assistant_block import AssistantBlock

                await self.conversation.add(AssistantBlock(text))
            return
        if text is not None and not text.strip():
            await block.remove()
            return
        await block.finish(text)

    def _update_tool(self, call_id: str, *, status: str, duration: float | None = None,
                     output: str | None = None) -> None:
        if block := self._tool_blocks.get(call_id):
            block.set_status(status, duration=duration, output=output)
        self.query_one(ToolLog).update_call(call_id, status=status, duration=duration,
                                            output=output)

    # -- approvals ---------------------------------------------------------------------

    def on_approval_needed(self, request: ApprovalRequest) -> None:
        """Called by the approver before the modal opens."""
        self._update_tool(request.call_id, status="approval")
        self._ring_if_away("The agent waits for your approval.")

    def remember_rule(self, response: ApprovalResponse) -> None:
        """Apply "always allow" rules now and save them in the user config: for this
        project (its ``[projects."/path"]`` table) or every project. The agent keeps
        session rules itself."""
        if not response.remember or response.scope not in ("project", "user"):
            return
        from ..core.config import save_rules

        fresh = [r for r in response.remember if r not in self.settings.allow_rules]
        self._update_settings(allow_rules=[*self.settings.allow_rules, *fresh])
        rules = ", ".join(response.remember)
        try:
            path = save_rules(response.remember, response.scope, self.workdir)
        except OSError as exc:
            self.notify(f"Could not save {rules} ({exc}); it applies until agent-tui exits. "
                        "Check that the config folder is writable.", severity="error")
            return
        where = "this project" if response.scope == "project" else "every project"
        self.notify(f"Always allowed in {where}: {rules} (saved in {path})", timeout=4)

    def _ring_if_away(self, message: str) -> None:
        if not self._window_focused and self.settings.notify_bell:
            self.bell()
            self.notify(message, timeout=5)

    def on_app_blur(self) -> None:
        self._window_focused = False

    def on_app_focus(self) -> None:
        self._window_focused = True

    # -- actions -----------------------------------------------------------------------

    def action_cancel_turn(self) -> None:
        """Esc: cancel the running turn (stream and tools); when idle, back to the prompt."""
        if self.busy:
            self.workers.cancel_group(self, "turn")
        else:
            self.query_one(PromptInput).focus()

    async def action_focus_conversation(self) -> None:
        """Ctrl+Up: from the prompt to the newest block; j/k then move between blocks."""
        await self.conversation.action_focus_previous_block()

    def action_cycle_mode(self) -> None:
        """Shift+Tab: default -> auto-edit -> plan -> yolo -> default."""
        current = APPROVAL_MODES.index(self.settings.approval_mode)
        self.set_mode(APPROVAL_MODES[(current + 1) % len(APPROVAL_MODES)])

    def set_mode(self, mode: str) -> None:
        """Switch the approval mode for the rest of the session."""
        self._update_settings(approval_mode=mode)
        self.query_one(StatusBar).mode = mode
        self.notify(f"Approval mode: {mode}", timeout=2)

    async def inspect_context(self) -> None:
        """``/context``: every item in the context with its tokens; pin, dehydrate, drop."""
        if self.busy:
            self.notice("Wait for the turn to finish (or press Esc) to inspect the context.",
                        error=True)
            return
        if not self.settings.model:
            self.notice(NO_MODEL, error=True)
            return
        from .screens.context_inspector import ContextInspector

        await self.push_screen(ContextInspector(await self._ensure_agent()))

    async def show_background_processes(self, arg: str = "") -> None:
        """``/ps``: the processes background_process started; ``/ps stop NAME`` stops one."""
        from ..tools.background import background_processes

        action, _, target = arg.partition(" ")
        if action == "stop":
            stopped = await asyncio.to_thread(background_processes.stop, target.strip())
            self.notice(f"Stopped {target}." if stopped else f"No background process {target!r}.",
                        error=not stopped)
            return
        procs = background_processes.processes()
        if not procs:
            self.notice("No background processes.")
            return
        lines = [f"{'running' if p.alive else 'ended  '}  {p.name}  pid {p.pid}  {p.command}"
                 f"  log: {p.log}" for p in procs]
        self.notice("Background processes:\n" + "\n".join(lines))

    def set_network(self, enabled: bool) -> None:
        """Let tools reach the network (web_fetch, web_search, research), or stop them."""
        self._update_settings(network=enabled)
        self.query_one(StatusBar).network = enabled
        self.notice("Network tools are on: web_fetch, web_search and research may reach the "
                    "internet (fetches still ask in default mode)." if enabled else
                    "Network tools are off.")

    def action_toggle_side(self) -> None:
        self.query_one("#side").toggle_class("hidden")

    def action_toggle_tool_log(self) -> None:
        self.query_one("#tool-log").toggle_class("hidden")

    def action_toggle_todos(self) -> None:
        self.query_one("#todo-section").toggle_class("hidden")

    def action_resize_side(self, delta: int) -> None:
        side = self.query_one("#side")
        width = side.styles.width.value if side.styles.width else 44
        side.styles.width = max(24, min(120, int(width) + delta))

    def _update_settings(self, **changes: Any) -> None:
        self.settings = self.settings.model_copy(update=changes)
        if self.agent is not None:
            self.agent.settings = self.settings

    # -- slash commands and the palette -------------------------------------------------

    async def run_slash_command(self, line: str) -> None:
        """Run ``/name args``; unknown names say what exists."""
        name, _, arg = line.partition(" ")
        arg = arg.strip()
        if name == "/help":
            from .widgets.assistant_block import AssistantBlock

            await self.conversation.add(AssistantBlock(HELP_TEXT))
        elif name == "/quit":
            self.exit()
        elif name == "/mode":
            if arg not in APPROVAL_MODES:
                self.notice(f"Usage: /mode {'|'.join(APPROVAL_MODES)}", error=True)
            else:
                self.set_mode(arg)
        elif name == "/model":
            if not arg:
                self.notice(f"Model: {self.settings.model or 'none'}. Usage: /model NAME")
            else:
                self._switch_model(arg)
        elif name in ("/clear", "/new"):
            await self.new_session()
        elif name == "/net":
            if arg not in ("on", "off"):
                state = "on" if self.settings.network else "off"
                self.notice(f"The network is {state} for tools. Usage: /net on|off")
            else:
                self.set_network(arg == "on")
        elif name == "/sessions":
            self.action_browse_sessions()
        elif name == "/context":
            await self.inspect_context()
        elif name == "/fork":
            await self.fork_session(arg)
        elif name == "/undo":
            await self.undo_turn()
        elif name == "/rewind":
            await self.rewind()
        elif name == "/diff":
            await self.review_changes(arg)
        elif name == "/export":
            await self.export_session(arg)
        elif name == "/ps":
            await self.show_background_processes(arg)
        elif name == "/theme":
            if arg not in self.available_themes:
                names = ", ".join(sorted(self.available_themes))
                self.notice(f"Usage: /theme NAME, one of: {names}", error=True)
            else:
                self.set_theme(arg)
        else:
            self.notice(f"Unknown command {name}. Commands: {', '.join(SLASH_COMMANDS)}",
                        error=True)

    def _switch_model(self, model: str) -> None:
        self._update_settings(model=model)
        self.query_one(StatusBar).model = model
        previous, self.agent = self.agent, None
        if previous is not None:
            self.call_later(self._carry_over, previous)
        self.notify(f"Model: {model}", timeout=2)

    async def _carry_over(self, previous: Agent) -> None:
        """The agent for the new model goes on from ``previous``'s conversation."""
        (await self._ensure_agent()).adopt(previous)

    async def new_session(self) -> None:
        """Forget the conversation and start a new session."""
        self.workers.cancel_group(self, "turn")
        self.agent = None
        if self.opened is not None:
            from ..core.sessions.start import close_session, open_session

            close_session(self.opened)
            self.opened = open_session(self.workdir, self.settings.model or "")
            session_id = self.opened.store.session_id
        else:
            session_id = paths.new_session_id()
        await self._reset_view(session_id)
        self.notice(f"New session {self.session_id}.")

    async def _reset_view(self, session_id: str) -> None:
        """Empty the panes and forget the agent; the next turn starts ``session_id``'s."""
        self.workers.cancel_group(self, "turn")
        self.agent = None
        self.session_id = session_id
        self.queue.clear()
        self._assistant = None
        self._tool_blocks.clear()
        await self.conversation.remove_children()
        self.query_one(ToolLog).clear()
        self.query_one(StatusBar).session_id = self.session_id
        self.query_one(TodoPane).show("")

    def set_theme(self, name: str) -> None:
        """Switch the theme and keep the choice for next time."""
        self.theme = name
        self._update_settings(theme=name)
        save_user_settings({"theme": name})

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for name, help_text in SLASH_COMMANDS.items():
            if name in ("/model", "/theme", "/mode"):
                continue
            yield SystemCommand(name, help_text, lambda n=name: self.call_later(
                self.run_slash_command, n))
        for mode in APPROVAL_MODES:
            yield SystemCommand(f"/mode {mode}", f"Approval mode {mode}",
                                lambda m=mode: self.set_mode(m))
        yield SystemCommand("/net on", "Let tools reach the network",
                            lambda: self.set_network(True))
        yield SystemCommand("/net off", "Keep tools off the network",
                            lambda: self.set_network(False))
        for theme in THEMES:
            yield SystemCommand(f"/theme {theme.name}", f"Switch to the {theme.name} theme",
                                lambda t=theme.name: self.set_theme(t))
        yield SystemCommand("Toggle side panel", "Show or hide the side panel (F2)",
                            self.action_toggle_side)
        yield SystemCommand("Toggle tool log", "Show or hide the tool log (F3)",
                            self.action_toggle_tool_log)
        yield SystemCommand("Toggle todos", "Show or hide the todo list (F4)",
                            self.action_toggle_todos)


def _short_path(path: Path) -> str:
    home = Path.home()
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)


def make_app(settings: Settings, workdir: Path, **kwargs: Any) -> AgentApp:
    """Build the workbench app; nothing happens until it runs."""
    return AgentApp(settings, workdir, **kwargs)
