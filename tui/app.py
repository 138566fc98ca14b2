"""The workbench: a full-screen Textual front end on the engine.

The agent runs in a worker on the app's loop and reports through ``EventBridge``; the
widgets only ever see ``AgentEvent`` messages.

The first frame comes first: before it, only Textual, the panes' widgets and the settings
a cheap check vouched for are loaded. Right after it the settings are validated (pydantic);
then litellm is imported in a thread. The engine, the event view and the approver load on
first use.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual import events, on, work
from textual.actions import SkipAction
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static, TextArea

from ..core import paths
from ..core.config import APPROVAL_MODES, CheckedSettings, ConfigError
from ..themes import STYLESHEET, THEMES
from .outside_text import literal_markup, outside_text, visible
from .widgets.conversation import ConversationView, NoticeBlock, UserBlock
from .widgets.key_footer import KeyFooter, bound_keys
from .widgets.panels import BREAKPOINTS, ContextGauge, SidePanel, StatusBar, TodoPane
from .widgets.prompt import PLACEHOLDER, PromptInput, prompt_text
from .widgets.tool_log import ToolLog
from .widgets.waiting import TICK_S
from .widgets.welcome import WelcomeLine, welcome_text
from .workbench import NO_MODEL
from .workbench.autonomous_actions import AutonomousActions
from .workbench.change_actions import ChangeActions
from .workbench.commands import COMMANDS, SLASH_COMMANDS
from .workbench.knowledge_actions import KnowledgeActions
from .workbench.outside_tools import OutsideTools
from .workbench.pauses import (
    collect_everything,
    freeze_between_turns,
    pause_collection,
    quick_thread_switches,
    settle_long_lived,
)
from .workbench.session import InFront, QueuedPrompt, WorkbenchSession
from .workbench.session_actions import SessionActions
from .workbench.terminal_watch import CHECK_EVERY_S, terminal_gone, watched_fd

if TYPE_CHECKING:
    from textual.driver import Driver
    from textual.timer import Timer

    from ..core.agent import Agent
    from ..core.changes.checkpoints import Checkpoints
    from ..core.config import Settings
    from ..core.providers.base import Provider
    from ..core.sessions.log import SessionLog
    from ..core.sessions.start import OpenedSession
    from ..tools.base import ImagePart
    from ..tools.browser.session import BrowserSession
    from .workbench.approver import ApprovalNeeded, InboxChanged, RulesRemembered, TuiApprover
    from .workbench.background import BackgroundSessions
    from .workbench.bridge import AgentEvent
    from .workbench.event_view import EventView


def __getattr__(name: str) -> Any:
    if name == "RESTORED_TOOL_ROWS":  # the event view loads after the first frame
        from .workbench.event_view import RESTORED_TOOL_ROWS

        return RESTORED_TOOL_ROWS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["NO_MODEL", "SLASH_COMMANDS", "AgentApp", "make_app"]

START_UP_PAUSE_S = 0.005
"""Seconds start-up's thread pauses between two imports, letting the loop in."""

AWAY_BEFORE_COLLECTING_ALL = 30.0
"""Seconds without a key, after a turn, before everything is collected (a longer pause)."""

QUIT_AGAIN_WITHIN_S = 1.0
"""Seconds within which a second Ctrl+C on an idle, empty prompt quits."""


def preload_start_up() -> None:
    """Import, one after another, what start-up's workers import or would import on the
    loop: the engine's knowledge (numpy, yaml), watchfiles and anyio's asyncio backend (the
    watch), the discovered tools. A pause between two lets the loop in."""
    from importlib import import_module

    for name in ("agent_tui.core.knowledge", "agent_tui.core.memory", "watchfiles",
                 "anyio._backends._asyncio", "agent_tui.tools.discovered"):
        import_module(name)
        time.sleep(START_UP_PAUSE_S)


def preload_highlighting() -> None:
    """Load what highlighting a code fence loads on first use, off the event loop.

    A fence streamed in pieces names a language pygments does not know (``pyt`` of
    ``python``); pygments then imports every plugin lexer installed, IPython's among them:
    300 ms on the loop in the middle of an answer. A fence that names no language (yet) is
    guessed at, which imports every lexer pygments has: 190-270 ms. Once loaded, unknown
    names and guesses cost a few milliseconds.
    """
    from textual.highlight import highlight

    highlight("", language="agent-tui-no-such-language")
    highlight("x = 1", language="python")
    highlight("x = 1", language=None)


class AgentApp(App[None]):
    """The agent-tui workbench on one project folder.

    The app composes the panes, owns the turn and the prompt queue, and hands the rest
    over: engine events to :class:`~agent_tui.tui.workbench.event_view.EventView`, slash commands to
    :data:`~agent_tui.tui.workbench.commands.COMMANDS`, session and change actions to ``sessions``
    and ``changes``.
    """

    last_key_at = 0.0
    """When the person last pressed a key (``time.monotonic()``): a streamed answer waits
    for a quiet moment to draw more."""
    # The front session's, as the panes show it (``self.front``).
    session_id = InFront[str]()
    opened = InFront["OpenedSession | None"]()
    agent = InFront["Agent | None"]()
    queue = InFront["deque[QueuedPrompt]"]()
    busy = InFront[bool]("running")

    CSS_PATH = str(STYLESHEET)
    HORIZONTAL_BREAKPOINTS = BREAKPOINTS
    TITLE = "agent-tui"
    AUTO_FOCUS = "#prompt"
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel", show=False),
        Binding("ctrl+c", "interrupt", "Cancel / clear / quit", show=False, priority=True),
        Binding("ctrl+up", "focus_conversation", "Blocks", show=False, priority=True),
        Binding("ctrl+r", "browse_sessions", "Sessions", show=False, priority=True),
        Binding("shift+tab", "cycle_mode", "Mode", show=False, priority=True),
        Binding("f2", "toggle_side", "Side panel", show=False, priority=True),
        Binding("f3", "toggle_tool_log", "Tool log", show=False, priority=True),
        Binding("f4", "toggle_todos", "Todos", show=False, priority=True),
        Binding("f6", "resize_side(4)", "Wider side", show=False, priority=True),
        Binding("f5", "resize_side(-4)", "Narrower side", show=False, priority=True),
        Binding("f7", "review_changes", "Review changes", show=False, priority=True),
        Binding("f8", "open_inbox", "Approval inbox", show=False, priority=True),
        Binding("f9", "switch_sessions", "Open sessions", show=False, priority=True),
        Binding("f1", "show_keys", "Keys", show=False, priority=True),
    ]

    def __init__(self, settings: Settings | CheckedSettings, workdir: Path, *,
                 load_litellm: bool = True, session_id: str | None = None,
                 session: OpenedSession | None = None,
                 replay: tuple[SessionLog, float] | None = None,
                 browse_sessions: bool = False,
                 persona_settings: dict[str, Any] | None = None) -> None:
        """The workbench on ``workdir``.

        Args:
            settings: The settings, or values a cheap check vouched for
                (:class:`~agent_tui.core.config.CheckedSettings`): the first frame is drawn
                from them and pydantic builds the settings right after it.
            persona_settings: What the ``--agent`` persona changed in ``settings``; kept,
                as /mode's changes are, when config.toml is read again.
        """
        super().__init__()
        self._browse_on_start = browse_sessions
        self.front = WorkbenchSession(
            session.store.session_id if session else session_id or paths.new_session_id(),
            session)
        """The session in front: the one the panes show."""
        self._replay = replay
        self._first_frame_settings = settings
        self._settings: Settings | None = (
            None if isinstance(settings, CheckedSettings) else settings)
        self.config_error: str | None = None
        """Why the settings proved invalid after the first frame; the app has exited."""
        self.workdir = workdir
        self.browser: BrowserSession | None = None
        """The session's browser (the browser tools start it); agents share it."""
        self._approver: TuiApprover | None = None
        self._view: EventView | None = None
        self._wait_timer: Timer | None = None
        """Redraws what the running prompt waits for (paused while none runs)."""
        self.sessions = SessionActions(self)
        self.changes = ChangeActions(self, self.sessions)
        self.knowledge = KnowledgeActions(self, SLASH_COMMANDS)
        self.outside_tools = OutsideTools(self)
        self.autonomous = AutonomousActions(self)
        self._background: BackgroundSessions | None = None
        self.session_source = "startup"
        """What the next agent's ``SessionStart`` hooks are told: ``startup`` or ``clear``."""
        self._session_changes: dict[str, Any] = dict(persona_settings or {})
        self._load_litellm = load_litellm
        self._window_focused = True
        self._quit_pressed_at = -QUIT_AGAIN_WITHIN_S
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = settings.theme if settings.theme in self.available_themes else THEMES[0].name

    def get_driver_class(self) -> type[Driver]:
        """Textual's choice, except that served to a browser (textual's WebDriver) the
        workbench leaves once the server's pipes are gone (:mod:`.workbench.web_driver`)."""
        driver_class = super().get_driver_class()
        if driver_class.__module__ == "textual.drivers.web_driver":
            from .workbench.web_driver import ServedDriver

            return ServedDriver
        return driver_class

    @property
    def settings(self) -> Settings:
        """The session's settings; from checked values, built by pydantic on first use
        (right after the first frame, see :meth:`_after_first_frame`)."""
        if self._settings is None:
            self._settings = cast("CheckedSettings", self._first_frame_settings).build()
        return self._settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self._settings = settings

    @property
    def view(self) -> EventView:
        """Shows engine events in the panes (loaded on first use, after the first frame)."""
        if self._view is None:
            from .workbench.event_view import EventView

            self._view = EventView(self)
        return self._view

    @property
    def background(self) -> BackgroundSessions:
        """The open sessions besides the front one (loaded on first use)."""
        if self._background is None:
            from .workbench.background import BackgroundSessions

            self._background = BackgroundSessions(self)
        return self._background

    @property
    def has_approver(self) -> bool:
        """Whether the approver was loaded (no call has waited before it is)."""
        return self._approver is not None

    @property
    def approver(self) -> TuiApprover:
        """Asks the person about tool calls (loaded on first use, after the first frame)."""
        if self._approver is None:
            from .workbench.approver import TuiApprover

            self._approver = TuiApprover(self)
        return self._approver

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield ConversationView(*self._welcome(self._first_frame_settings),
                                       id="conversation")
                yield PromptInput(id="prompt", commands=SLASH_COMMANDS, workdir=self.workdir,
                                  placeholder=PLACEHOLDER)
                yield KeyFooter([*self.BINDINGS, *PromptInput.BINDINGS], id="key-footer")
            with SidePanel(id="side"):
                yield Static("context", classes="side-title")
                yield ContextGauge(id="gauge")
                with Vertical(id="todo-section"):
                    yield Static("todos", classes="side-title")
                    yield TodoPane("", id="todos")
                yield Static("tool log", classes="side-title")
                yield ToolLog(id="tool-log")
        yield StatusBar(id="status")

    def _welcome(self, settings: Settings | CheckedSettings) -> list[WelcomeLine]:
        """The welcome line of a new session on ``settings``; none for a resumed or
        replayed one. (Before the first frame, the checked settings: no pydantic yet.)"""
        if self._replay is not None or (self.opened is not None and self.opened.log is not None):
            return []
        return [WelcomeLine(welcome_text(settings.model or "", _short_path(self.workdir),
                                         settings.approval_mode,
                                         bound_keys(self.BINDINGS)["show_keys"]))]

    async def welcome(self) -> None:
        """Open the emptied conversation of a new session (``/new``) with its welcome."""
        for line in self._welcome(self.settings):
            await self.conversation.add(line)

    def on_mount(self) -> None:
        first = self._first_frame_settings  # not self.settings: no pydantic before the frame
        status = self.status
        status.model = first.model or ""
        status.mode = first.approval_mode
        status.network = first.network
        status.sandbox = first.sandbox
        status.project = _short_path(self.workdir)
        status.session_id = self.session_id
        self.query_one(TodoPane).show("")
        # First after the first frame, before anything below.
        self.call_after_refresh(self._after_first_frame)
        if self.opened is not None and self.opened.log is not None:
            self.call_after_refresh(self.show_restored, self.opened.log)
            for warning in self.opened.warnings:
                self.notice(warning, error=True)
        if self._browse_on_start:
            self.call_after_refresh(self.action_browse_sessions)
        if self._replay is not None:
            self.play_back(*self._replay)
        elif not first.model:
            self.offer_setup()
        if not self.is_headless and (fd := watched_fd()) is not None:
            self.set_interval(CHECK_EVERY_S, lambda: self._leave_if_terminal_gone(fd))

    def _after_first_frame(self) -> None:
        """Right after the first frame: let collections run again (the command line turns
        them off for start-up), then start the rest of start-up in its thread."""
        if not gc.isenabled():
            gc.freeze()  # start-up's objects live as long as the app: never walk them
            gc.enable()
        self.start_up()

    @work(thread=True, exit_on_error=False, group="start-up")
    def start_up(self) -> None:
        """After the first frame, in one thread and one step after another: build the
        settings the frame was drawn from (pydantic's import and validation, ~100 ms), import
        what the knowledge and outside-tools workers would otherwise import on the loop,
        start those workers, then import litellm (when this app loads it).

        On the loop, each of these imports held the keys up to 100 ms; in several threads at
        once they held the GIL in turn, and a module one thread was importing held up the
        loop that needed it until the import was done.

        The cheap check vouched for every setting, so pydantic agrees; should it not,
        agent-tui exits with pydantic's message, as it would have before drawing.
        """
        quick_thread_switches()
        if self._settings is None:
            try:
                settings = cast("CheckedSettings", self._first_frame_settings).build()
            except ConfigError as exc:
                self.call_from_thread(self._settings_refused, str(exc))
                return
            self.call_from_thread(self._settings_built, settings)
        preload_start_up()
        self.call_from_thread(self._load_knowledge)
        if self._load_litellm:
            self.preload_litellm()

    def _settings_built(self, settings: Settings) -> None:
        if self._settings is None:  # else the loop needed them first and built them
            self._settings = settings

    def _settings_refused(self, error: str) -> None:
        self.config_error = error
        self.exit(return_code=2)

    def _load_knowledge(self) -> None:
        """Read AGENTS.md, skills, commands and hooks, then watch them (after the frame)."""
        if self.config_error is None:
            self.run_worker(self.knowledge.load(), group="knowledge", exit_on_error=False)
            self.run_worker(self.knowledge.watch(), group="knowledge-watch",
                            exit_on_error=False)
            self.run_worker(self.outside_tools.start(), group="outside-tools",
                            exit_on_error=False)

    async def on_unmount(self) -> None:
        """agent-tui is closing: end the MCP servers it started, release the background
        sessions' logs."""
        if self._background is not None:
            await self._background.close_all()
        await self.outside_tools.close()

    def _leave_if_terminal_gone(self, fd: int) -> None:
        """Quit, saving the session, once the terminal has hung up without a SIGHUP."""
        if terminal_gone(fd):
            self.exit(return_code=129)

    @property
    def conversation(self) -> ConversationView:
        """The conversation pane."""
        return self.query_one(ConversationView)

    @property
    def status(self) -> StatusBar:
        """The status bar."""
        return self.query_one(StatusBar)

    def notice(self, text: str, *, error: bool = False) -> None:
        """A line from agent-tui in the conversation.

        Notices quote outside text (a provider's error, a reason, a file name): the line is
        shown literally, escape sequences made visible, never parsed as markup.
        """
        block = NoticeBlock(outside_text(text), classes="error" if error else "")
        self.call_later(self.conversation.add, block)

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
        self.update_settings(model=choice.model, api_base=choice.api_base,
                             api_key_env=choice.key_env)
        self.status.model = choice.model
        self.agent = None  # the next turn builds one with the new settings
        if self.opened is not None:  # opened before setup, its header names no model
            await asyncio.to_thread(self.opened.store.record_model, choice.model)
        self.notice(f"Model: {choice.model}, {saved}.")

    def preload_litellm(self) -> None:
        """Import litellm (in :meth:`start_up`'s thread); then show the window, and load the
        model's tokenizer, which the first count of a turn's tokens would load otherwise
        (~450 ms of the GIL, in the middle of the first answer)."""
        from ..core.providers.litellm import LitellmProvider, preload

        model = self.settings.model
        if self.settings.stream_process and model:
            # Its own import of litellm, on the other core, meanwhile.
            from ..core.providers.stream_process import shared_stream_process, streams_in_worker

            if streams_in_worker(model):
                shared_stream_process().start()
        pause_collection()
        try:
            preload()
            # What the first turn needs, so that it does not import on the loop (~200 ms).
            from ..core import agent  # noqa: F401
            from ..tools import builtin, registry  # noqa: F401
            from .widgets import assistant_block  # noqa: F401  (Markdown, for the first answer)
            preload_highlighting()
        finally:
            settle_long_lived()

        if self.settings.model:
            provider = LitellmProvider(self.settings)
            window = provider.context_window()
            self.call_from_thread(setattr, self.query_one(ContextGauge), "window", window)
            provider.count_tokens([{"role": "user", "content": "agent-tui"}])

    # -- prompts, queue, turns ---------------------------------------------------------

    @on(PromptInput.Submitted)
    async def _on_prompt(self, message: PromptInput.Submitted) -> None:
        text = message.text
        if text.startswith("/"):
            name, _, typed = text.strip().partition(" ")
            prompt = self.outside_tools.prompt_named(name)
            if prompt is not None:
                await self._run_mcp_prompt(prompt, text, typed)
                return
            if self.knowledge.custom_command(name) is None:
                await self.run_slash_command(text.strip())
                return
        from ..tools.images import prompt_image_parts

        # Read now, not when the turn starts, so that the prompt shows what it attaches.
        images, problems = await asyncio.to_thread(prompt_image_parts, text, self.workdir)
        for problem in problems:
            self.notice(f"Not attached: {problem}", error=True)
        await self.queue_prompt(text, tuple(images))

    @on(TextArea.Changed, "#prompt")
    def _on_prompt_changed(self, message: TextArea.Changed) -> None:
        self.query_one(KeyFooter).typing = bool(message.text_area.text)

    @on(PromptInput.KeysWanted)
    async def _on_keys_wanted(self) -> None:
        await self.action_show_keys()

    def offer_commands(self, commands: dict[str, str]) -> None:
        """What the prompt's ``/`` completion offers: names to one-line help."""
        self.query_one(PromptInput).commands = commands

    async def _run_mcp_prompt(self, prompt: Any, line: str, typed: str) -> None:
        """Send an MCP server's prompt (``/mcp__server__prompt ARGS``) as the next prompt."""
        from ..core.mcp import McpError

        try:
            text = await self.outside_tools.manager.get_prompt(
                prompt.server, prompt.name, prompt.bind(typed))
        except (McpError, ValueError) as exc:
            self.notice(str(exc), error=True)
            return
        await self.queue_prompt(text, shown=line)

    def edit_prompt(self, text: str) -> None:
        """Put ``text`` in the prompt box, to edit and send, and focus it."""
        box = self.query_one(PromptInput)
        box.text = prompt_text(text)
        box.focus()

    async def run_slash_command(self, line: str) -> None:
        """Run ``/name args`` (see :data:`~agent_tui.tui.workbench.commands.COMMANDS`)."""
        await COMMANDS.run(self, line)

    def start_turn(self, text: str, images: tuple[tuple[str, ImagePart], ...] = ()) -> None:
        """Run one prompt, already shown in the conversation, in a worker; a custom
        command's line (``/review 42``) runs as the prompt its file makes of it; ``images``
        are the images it attaches (name, part)."""
        if not self.settings.model:
            self.notice(NO_MODEL, error=True)
            return
        self.set_busy(True)
        self.view.prompt_shown = True
        self.front.title = self.front.title or " ".join(text.split())[:48]
        self.run_turn(text, images)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self, text: str, images: tuple[tuple[str, ImagePart], ...] = ()) -> None:
        """The worker of one turn; cancelling it cancels the stream and kills tools."""
        async def one_prompt(agent: Agent) -> None:
            await self.run_prompt(agent, text, images)

        await self._turn_of(one_prompt)

    def start_work(self, work: Callable[[Agent], Awaitable[None]]) -> None:
        """Run ``work`` with the session's agent as a turn (busy, Esc cancels, the queue
        waits): what autonomous mode runs."""
        if not self.settings.model:
            self.notice(NO_MODEL, error=True)
            return
        self.set_busy(True)
        self.view.prompt_shown = True
        self.run_work(work)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_work(self, work: Callable[[Agent], Awaitable[None]]) -> None:
        """The worker of :meth:`start_work`."""
        await self._turn_of(work)

    async def _turn_of(self, work: Callable[[Agent], Awaitable[None]]) -> None:
        agent: Agent | None = None
        cancelled = False
        try:
            agent = await self.ensure_agent()
            self.outside_tools.offer_tools(agent)
            await work(agent)
        except asyncio.CancelledError:
            cancelled = True
            if agent is None or agent is self.agent:  # else it went to the background
                await self.view.finish_assistant()
                self.notice("Cancelled: the stream was stopped and running tools were killed.")
            raise
        except Exception as exc:  # the engine reports its own failures; this is a bug
            self.notice(f"Unexpected error: {type(exc).__name__}: {exc}", error=True)
        finally:
            self.work_ended(agent, cancelled=cancelled)

    def work_ended(self, agent: Agent | None, *, cancelled: bool = False) -> None:
        """A prompt of ``agent`` ended: the front session takes its next queued prompt; a
        session in the background (sent there meanwhile, or started there) its own."""
        if agent is not None and agent is not self.agent:
            self.background.ended(agent, cancelled=cancelled)
            return
        self.set_busy(False)
        self.ring_if_away("The agent finished.")
        self.call_later(self._next_in_queue)
        self.call_later(self.knowledge.reload_pending)
        self.set_timer(1.0, self._freeze_if_idle)

    async def run_prompt(self, agent: Agent, text: str,
                         images: tuple[tuple[str, ImagePart], ...] = ()) -> None:
        """Run a typed prompt with ``agent`` as every front end does
        (:func:`~agent_tui.core.runtime.prompt_resolution.resolve_prompt`): a custom command's
        prompt with its allowed tools and on its model, the MCP resources it names attached;
        ``images`` are those read when it was typed."""
        from ..core.runtime.prompt_resolution import PromptFailed, resolve_prompt, run_resolved

        knowledge = await self.knowledge.ready()
        try:
            prompt = await resolve_prompt(text, self.workdir, knowledge.commands,
                                          self.outside_tools.manager, images=images)
        except PromptFailed as exc:
            self.notice(str(exc), error=True)
            return
        for warning in prompt.warnings:
            self.notice(warning, error=True)
        if prompt.model and prompt.model != agent.provider.model:
            self.notice(f"{prompt.command} runs on {prompt.model}.")
        await run_resolved(agent, prompt, self.make_provider)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self.last_key_at = time.monotonic()
        await super().on_event(event)

    def _freeze_if_idle(self) -> None:
        if self.busy:
            return
        freeze_between_turns()
        self.set_timer(AWAY_BEFORE_COLLECTING_ALL, self._collect_all_if_away)

    def _collect_all_if_away(self) -> None:
        away = time.monotonic() - self.last_key_at
        if not self.busy and away >= AWAY_BEFORE_COLLECTING_ALL:
            collect_everything()

    def _next_in_queue(self) -> None:
        if self.busy or not self.queue:
            return
        prompt = self.queue.popleft()
        prompt.block.mark_sent()
        self.status.queued = len(self.queue)
        self.start_turn(prompt.text, prompt.images)

    def set_busy(self, busy: bool) -> None:
        """Whether the front session runs a prompt (the status bar says so)."""
        self.busy = busy
        self.status.busy = busy
        self.query_one(KeyFooter).busy = busy
        self._show_waits(busy)

    def _show_waits(self, busy: bool) -> None:
        """Show what the running prompt waits for, live (one timer for the app, paused
        while no prompt runs)."""
        if not busy:
            if self._wait_timer is not None:
                self._wait_timer.pause()
            if self._view is not None:
                self._view.turn_ended()
            return
        from ..core.providers.litellm import is_loaded

        # A replay shows a recorded session: it loads no model library.
        loading = self._replay is None and self.agent is None and not is_loaded()
        self.view.turn_started(loading=loading)
        if self._wait_timer is None:
            self._wait_timer = self.set_interval(TICK_S, self.view.tick)
        else:
            self._wait_timer.resume()

    async def queue_prompt(self, text: str, images: tuple[tuple[str, ImagePart], ...] = (), *,
                           shown: str | None = None) -> None:
        """Show the person's prompt (``shown``, else ``text``) and run ``text``, after the
        running turn if any."""
        block = UserBlock(text if shown is None else shown, queued=self.busy,
                          images=tuple(name for name, _ in images))
        await self.conversation.add(block)
        if self.busy:
            self.queue.append(QueuedPrompt(text, images, block))
            self.status.queued = len(self.queue)
        else:
            self.start_turn(text, images)

    def front_title(self) -> str:
        """The front session's first prompt (or its id), for the session switcher."""
        return self.front.title or f"session {self.session_id}"

    def session_label(self, session_id: str) -> str:
        """How the approval inbox names ``session_id``."""
        return self.background.label(session_id)

    _NO_SESSION: Any = object()

    async def build_agent(self, settings: Settings, *, session_id: str | None = None,
                          opened: OpenedSession | None = _NO_SESSION) -> Agent:
        """An agent with ``settings``: its log, its browser, the project's knowledge and
        memory; of the front session unless ``session_id`` and ``opened`` name another."""
        from ..core.providers.litellm import load_litellm
        from ..core.runtime.assembly import open_agent
        from ..core.safety.redaction import settings_secrets
        from .workbench.background import SessionBridge

        await asyncio.to_thread(load_litellm)
        knowledge = await self.knowledge.ready()
        if opened is self._NO_SESSION:
            opened = self.opened
        session_id = session_id or self.session_id
        # The workbench read the knowledge (and told its problems); ensure_agent restores.
        agent = await open_agent(
            settings, self.workdir, self.approver.for_session(session_id),
            SessionBridge(self, session_id, settings_secrets(settings)), session=opened,
            session_id=session_id, resume=False, knowledge=knowledge,
            memory=self.knowledge.memory, stream_worker=True)
        agent.session_source = self.session_source
        # The browser belongs to the session, not to one agent (/model makes a new one).
        if self.browser is None:
            from ..tools.browser.session import BrowserSession

            self.browser = BrowserSession()
        agent.tool_ctx.browser = self.browser
        return agent

    def make_provider(self, settings: Settings) -> Provider:
        """The provider of an agent with ``settings``: its streams in the shared worker
        process unless ``stream_process`` is off (the workbench's loop draws and answers
        keys; litellm's parsing of a fast stream would take ~40% of it)."""
        from ..core.runtime.assembly import make_provider

        return make_provider(settings, stream_worker=True)

    async def ensure_agent(self) -> Agent:
        """The agent of this session, built on first use (from the resumed log, if any)."""
        if self.agent is None:
            opened = self.opened
            self.agent = await self.build_agent(self.settings)
            if opened is not None and opened.log is not None:
                self.agent.restore(opened.log)
                opened.log = None  # restored once; later agents (e.g. /model) carry history
        return self.agent

    def checkpoints(self) -> Checkpoints | None:
        """This session's checkpoints; None when they are off (no git, or a home folder)."""
        from ..core.changes.checkpoints import Checkpoints, checkpoints_off
        from ..core.changes.snapshot_scope import SnapshotLimits

        if self.agent is not None:
            return self.agent.checkpoints
        return (Checkpoints(self.workdir, self.session_id, SnapshotLimits.of(self.settings))
                if checkpoints_off(self.workdir) is None else None)

    # -- engine events and recorded sessions -------------------------------------------

    async def on_agent_event(self, message: AgentEvent) -> None:
        if self.background.keep(message):  # counted for the switcher, not drawn
            return
        try:
            await self.view.show(message.event)
        except NoMatches:
            # The app is closing and its widgets are gone; the event has nowhere to go.
            if self.is_running and self.screen_stack and self.screen.is_mounted:
                raise

    async def show_restored(self, log: SessionLog) -> None:
        """Redraw a resumed session (its transcript, tool log, todos and gauge) from the
        typed events of its log, through the same handlers as a live turn."""
        from ..core.sessions.replay import logged_events

        blocks = await self.view.restore(logged_events(log))
        self.notice(f"Resumed session {self.session_id}: {blocks} blocks.")

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def play_back(self, log: SessionLog, speed: float) -> None:
        """``agent-tui replay``: show a recorded session as it happened, at ``speed``."""
        from ..core.sessions.replay import replay

        self.status.session_id = f"{log.session_id} (replay ×{speed:g})"
        self.set_busy(True)
        try:
            async for event in replay(log, speed):
                await self.view.show(event)
        finally:
            self.set_busy(False)
        self.notice(f"End of the replay of session {log.session_id}.")

    def close_browser(self) -> None:
        """End the session's browser, if one runs (a new session starts without one)."""
        browser, self.browser = self.browser, None
        if browser is not None:
            self.run_worker(asyncio.to_thread(browser.close), group="browser",
                            exit_on_error=False)

    async def reset_view(self, session_id: str) -> None:
        """Empty the panes and forget the agent; the next turn starts ``session_id``'s."""
        self.workers.cancel_group(self, "turn")
        self.agent = None
        self.close_browser()
        await self.clear_panes(session_id)

    async def clear_panes(self, session_id: str) -> None:
        """Empty the panes for ``session_id``, which the front shows from now on."""
        if self.front.session_id != session_id:  # a new, resumed or forked session
            self.front.start_over(session_id)
        self.front.title = ""
        self.queue.clear()
        self.status.queued = 0
        self.view.reset()
        await self.conversation.remove_children()
        self.query_one(ToolLog).clear()
        self.status.session_id = self.session_id
        self.query_one(TodoPane).show("")

    # -- approvals ---------------------------------------------------------------------

    def on_approval_needed(self, message: ApprovalNeeded) -> None:
        if message.session_id and message.session_id != self.session_id:
            self.notify(f"Background session {message.session_id} waits for approval: "
                        f"{message.request.summary} (F8: the inbox)", markup=False, timeout=6)
            self.ring_if_away("A background session waits for your approval.")
            self.background.changed()
            return
        self.view.awaiting_approval(message.call_id)
        self.ring_if_away("The agent waits for your approval.")

    def on_inbox_changed(self, message: InboxChanged) -> None:
        self.status.inbox = message.waiting
        self.query_one(KeyFooter).waiting = message.waiting
        self.background.changed()

    def on_rules_remembered(self, message: RulesRemembered) -> None:
        # Saved or not, the rules apply until agent-tui exits; a new agent (/model) keeps them.
        fresh = [rule for rule in message.saved.rules if rule not in self.settings.allow_rules]
        self.update_settings(allow_rules=[*self.settings.allow_rules, *fresh])

    def ring_if_away(self, message: str) -> None:
        """Ring the bell and show ``message`` when the window is not focused."""
        if not self._window_focused and self.settings.notify_bell:
            self.bell()
            self.notify(message, timeout=5)

    def on_app_blur(self) -> None:
        self._window_focused = False

    def on_app_focus(self) -> None:
        self._window_focused = True

    # -- settings and actions ----------------------------------------------------------

    def update_settings(self, **changes: Any) -> None:
        """Change settings for the rest of the session (the agent's too)."""
        self._session_changes.update(changes)
        self.settings = self.settings.model_copy(update=changes)
        if self.agent is not None:
            self.agent.settings = self.settings

    def reload_settings(self) -> None:
        """Read the config files again (one changed), keeping the flags and what the person
        changed in this session (/mode, /net, /model…); an invalid file keeps the old
        settings and says why."""
        from ..core.config import read_settings

        first = self._first_frame_settings
        flags = first.flags if isinstance(first, CheckedSettings) else {}
        try:
            settings = read_settings(self.workdir, flags).validate()
        except ConfigError as exc:
            self.notice(f"config.toml not reloaded: {exc}", error=True)
            return
        # The session keeps its model: a new one in the file applies to the next session.
        kept = {**self._session_changes, "model": self.settings.model}
        self.settings = settings.model_copy(update=kept)
        if self.agent is not None:
            self.agent.settings = self.settings

    def set_mode(self, mode: str) -> None:
        """Switch the approval mode for the rest of the session."""
        self.update_settings(approval_mode=mode)
        self.status.mode = mode
        self.notify(f"Approval mode: {visible(mode)}", markup=False, timeout=2)

    def action_cancel_turn(self) -> None:
        """Esc: cancel the running turn (stream and tools); when idle, back to the prompt."""
        if self.busy:
            self.workers.cancel_group(self, "turn")
        else:
            self.query_one(PromptInput).focus()

    def action_interrupt(self) -> None:
        """Ctrl+C, as in other terminal agents: cancel the running turn; idle, clear the
        prompt; idle with an empty prompt, a second press within a second quits.

        Over another screen (a modal, the session browser) the key is that screen's.
        """
        if len(self.screen_stack) > 1:
            raise SkipAction()
        if self.busy:
            self.workers.cancel_group(self, "turn")
            self.notify("Cancelled the turn.", timeout=2)
            return
        prompt = self.query_one(PromptInput)
        if prompt.text:
            prompt.clear()
            prompt.focus()
            self.notify("Cleared the prompt.", timeout=2)
            return
        now = time.monotonic()
        if now - self._quit_pressed_at <= QUIT_AGAIN_WITHIN_S:
            self.exit()
            return
        self._quit_pressed_at = now
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_AGAIN_WITHIN_S)

    async def action_show_keys(self) -> None:
        """F1 (or ``?`` in the empty prompt): the keys and slash commands (as ``/help``)."""
        await self.run_slash_command("/help")

    async def action_focus_conversation(self) -> None:
        """Ctrl+Up: from the prompt to the newest block; j/k then move between blocks."""
        await self.conversation.action_focus_previous_block()

    def action_cycle_mode(self) -> None:
        """Shift+Tab: default -> auto-edit -> plan -> yolo -> default."""
        current = APPROVAL_MODES.index(self.settings.approval_mode)
        self.set_mode(APPROVAL_MODES[(current + 1) % len(APPROVAL_MODES)])

    def action_open_inbox(self) -> None:
        """F8: every call of every session waiting for approval (as ``/inbox``)."""
        self.approver.open_inbox()

    def action_switch_sessions(self) -> None:
        """F9: the open sessions, front and background; bring one to the front."""
        from .screens.session_switcher import SessionSwitcher

        self.push_screen(SessionSwitcher(self.background), self._switch_chosen)

    async def _switch_chosen(self, session_id: str | None) -> None:
        if session_id is not None and session_id != self.session_id:
            if await self.background.bring_to_front(session_id):
                self.notify(f"Now in front: session {session_id}.", markup=False, timeout=3)

    def action_browse_sessions(self) -> None:
        """Ctrl+R: the session browser (as ``/sessions``)."""
        self.sessions.browse()

    async def action_review_changes(self) -> None:
        """F7: review the files this session changed (as ``/diff``)."""
        await self.changes.review()

    def action_toggle_side(self) -> None:
        self.query_one(SidePanel).toggle()

    def action_toggle_tool_log(self) -> None:
        self.query_one("#tool-log").toggle_class("hidden")

    def action_toggle_todos(self) -> None:
        self.query_one("#todo-section").toggle_class("hidden")

    def action_resize_side(self, delta: int) -> None:
        self.query_one(SidePanel).resize(delta)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for entry in COMMANDS.palette(self):
            # The palette reads markup: "[FILE]" in a help line is syntax to show, not a tag.
            yield SystemCommand(literal_markup(entry.line), literal_markup(entry.help),
                                lambda line=entry.line: self.call_later(
                                    self.run_slash_command, line))
        for command in self.knowledge.knowledge.commands if self.knowledge.knowledge else ():
            # The palette reads markup: the file's description is escaped.
            yield SystemCommand(literal_markup(command.name), literal_markup(command.description),
                                lambda name=command.name: self.edit_prompt(name + " "))
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
