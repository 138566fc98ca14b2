"""The workbench: a full-screen Textual front end on the engine.

The agent runs in a worker on the app's loop and reports through ``EventBridge``; the
widgets only ever see ``AgentEvent`` messages.

The first frame comes first: before it, only Textual, the panes' widgets and the settings
a cheap check vouched for are loaded. Right after it the settings are validated (pydantic);
then litellm is imported in a thread. The engine, the event view and the approver load on
first use.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Awaitable, Callable, Iterable
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static, TextArea

from ..core import paths
from ..core.config import CheckedSettings
from ..themes import STYLESHEET, THEMES
from .frame_writer import FrameWriter
from .outside_text import outside_text
from .widgets.conversation import ConversationView, NoticeBlock
from .widgets.key_footer import KeyFooter
from .widgets.panels import BREAKPOINTS, ContextGauge, SidePanel, StatusBar, TodoPane
from .widgets.prompt import PLACEHOLDER, PromptInput, prompt_text
from .widgets.tool_log import ToolLog
from .workbench import NO_MODEL
from .workbench.agents import WorkbenchAgents
from .workbench.autonomous_actions import AutonomousActions
from .workbench.bindings import APP_BINDINGS
from .workbench.change_actions import ChangeActions
from .workbench.clipboard_images import paste_clipboard_image
from .workbench.commands import COMMANDS, SLASH_COMMANDS
from .workbench.front_panes import FrontPanes, short_path
from .workbench.key_actions import KeyActions
from .workbench.key_map import workbench_keys
from .workbench.knowledge_actions import KnowledgeActions
from .workbench.notifications import AwayNotifier
from .workbench.outside_tools import OutsideTools
from .workbench.palette import palette_commands
from .workbench.session import InFront, WorkbenchSession
from .workbench.session_actions import SessionActions
from .workbench.settings_actions import SettingsActions
from .workbench.start_up import start_up
from .workbench.terminal_watch import CHECK_EVERY_S, terminal_gone, watched_fd
from .workbench.turns import FrontTurns, Images

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.driver import Driver

    from ..core.agent import Agent
    from ..core.changes.checkpoints import Checkpoints
    from ..core.config import Settings
    from ..core.sessions.log import SessionLog
    from ..core.sessions.start import OpenedSession
    from ..tools.browser.session import BrowserSession
    from .workbench.approver import ApprovalNeeded, InboxChanged, RulesRemembered, TuiApprover
    from .workbench.background import BackgroundSessions
    from .workbench.bridge import AgentEvent
    from .workbench.event_view import EventView


__all__ = ["NO_MODEL", "SLASH_COMMANDS", "AgentApp", "make_app"]


class AgentApp(KeyActions, App[None]):
    """The agent-tui workbench on one project folder.

    The app holds the open sessions (``front``, the one the panes show, and ``background``),
    composes the panes, starts up, and routes: engine events to
    :class:`~agent_tui.tui.workbench.event_view.EventView`, prompts to ``turns``, slash
    commands to :data:`~agent_tui.tui.workbench.commands.COMMANDS`, keys to
    :class:`~agent_tui.tui.workbench.key_actions.KeyActions`, session, change and settings
    actions to ``sessions``, ``changes`` and ``settings_actions``.
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
    BINDINGS = APP_BINDINGS

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
        self.sessions = SessionActions(self)
        self.changes = ChangeActions(self, self.sessions)
        self.knowledge = KnowledgeActions(self, SLASH_COMMANDS)
        self.outside_tools = OutsideTools(self)
        self.autonomous = AutonomousActions(self)
        self.turns = FrontTurns(self, replaying=replay is not None)
        self.panes = FrontPanes(self)
        self.agents = WorkbenchAgents(self)
        self.settings_actions = SettingsActions(self, persona_settings)
        self.key_map = workbench_keys(workdir)
        """The ``[keys]`` table of config.toml, checked: what moves where, what was wrong."""
        self.session_source = "startup"
        """What the next agent's ``SessionStart`` hooks are told: ``startup`` or ``clear``."""
        self._load_litellm = load_litellm
        self.away = AwayNotifier(self)
        """Tells the person looking elsewhere that the agent finished or waits."""
        self.frame_writer = FrameWriter()
        """Writes each frame to the terminal as the difference from what it shows."""
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = settings.theme if settings.theme in self.available_themes else THEMES[0].name

    def _display(self, screen: Screen, renderable: RenderableType | None) -> None:
        super()._display(screen, self.frame_writer.wrap(self, renderable))

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
    def has_view(self) -> bool:
        """Whether the event view was loaded (nothing was shown before it is)."""
        return "view" in self.__dict__

    @cached_property
    def view(self) -> EventView:
        """Shows engine events in the panes (loaded on first use, after the first frame)."""
        from .workbench.event_view import EventView

        return EventView(self)

    @cached_property
    def background(self) -> BackgroundSessions:
        """The open sessions besides the front one (loaded on first use)."""
        from .workbench.background import BackgroundSessions

        return BackgroundSessions(self)

    @property
    def has_approver(self) -> bool:
        """Whether the approver was loaded (no call has waited before it is)."""
        return "approver" in self.__dict__

    @cached_property
    def approver(self) -> TuiApprover:
        """Asks the person about tool calls (loaded on first use, after the first frame)."""
        from .workbench.approver import TuiApprover

        return TuiApprover(self)

    # -- layout ------------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        """The workbench's screen, drawn as soon as it is idle after a change."""
        from .screen_at_once import AtOnceScreen

        return AtOnceScreen()

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield ConversationView(*self.panes.welcome_lines(self._first_frame_settings),
                                       id="conversation")
                yield PromptInput(id="prompt", commands=SLASH_COMMANDS, workdir=self.workdir,
                                  placeholder=PLACEHOLDER)
                yield KeyFooter(self.key_map.bindings([*self.BINDINGS, *PromptInput.BINDINGS]),
                                id="key-footer")
            with SidePanel(id="side"):
                yield Static("context", classes="side-title")
                yield ContextGauge(id="gauge")
                with Vertical(id="todo-section"):
                    yield Static("todos", classes="side-title")
                    yield TodoPane("", id="todos")
                yield Static("tool log", classes="side-title")
                yield ToolLog(id="tool-log")
        yield StatusBar(id="status")

    async def welcome(self) -> None:
        """Open the emptied conversation of a new session (``/new``) with its welcome."""
        await self.panes.welcome()

    def on_mount(self) -> None:
        first = self._first_frame_settings  # not self.settings: no pydantic before the frame
        status = self.status
        status.model = first.model or ""
        status.mode = first.approval_mode
        status.network = first.network
        status.sandbox = first.sandbox
        status.project = short_path(self.workdir)
        status.session_id = self.session_id
        self.query_one(TodoPane).show("")
        self.set_keymap(self.key_map.keymap)
        self.query_one(PromptInput).vi_mode = first.vi_mode
        for problem in self.key_map.problems:
            self.notice(problem, error=True)
        # First after the first frame, before anything below.
        self.call_after_refresh(self._after_first_frame)
        if self.opened is not None and self.opened.log is not None:
            self.call_after_refresh(self.show_restored, self.opened.log)
            for warning in self.opened.warnings:
                self.notice(warning, error=True)
        if self._browse_on_start:
            self.call_after_refresh(self.action_browse_sessions)
        if self._replay is not None:
            self.panes.play_back(*self._replay)
        elif not first.model:
            self.settings_actions.offer_setup()
        if not self.is_headless and (fd := watched_fd()) is not None:
            self.set_interval(CHECK_EVERY_S, lambda: self._leave_if_terminal_gone(fd))

    def _after_first_frame(self) -> None:
        """Right after the first frame: let collections run again (the command line turns
        them off for start-up), then start the rest of start-up in its thread."""
        if not gc.isenabled():
            gc.freeze()  # start-up's objects live as long as the app: never walk them
            gc.enable()
        # The rest in one thread: the settings, the imports the workers need, those
        # workers, litellm (:func:`~.workbench.start_up.start_up`).
        self.run_worker(partial(start_up, self, load_litellm=self._load_litellm),
                        thread=True, exit_on_error=False, group="start-up")

    async def on_unmount(self) -> None:
        """agent-tui is closing: end the MCP servers it started, release the background
        sessions' logs."""
        if "background" in self.__dict__:
            await self.background.close_all()
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

    # -- prompts, queue, turns ---------------------------------------------------------

    @on(PromptInput.Submitted)
    async def _on_prompt(self, message: PromptInput.Submitted) -> None:
        await self.turns.submit(message.text)

    @on(TextArea.Changed, "#prompt")
    def _on_prompt_changed(self, message: TextArea.Changed) -> None:
        self.query_one(KeyFooter).typing = bool(message.text_area.text)

    @on(PromptInput.KeysWanted)
    async def _on_keys_wanted(self) -> None:
        await self.action_show_keys()

    @on(PromptInput.ImageWanted)
    def _on_image_wanted(self) -> None:
        self.run_worker(paste_clipboard_image(self, self.query_one(PromptInput)),
                        group="clipboard", exclusive=True, exit_on_error=False)

    def offer_commands(self, commands: dict[str, str]) -> None:
        """What the prompt's ``/`` completion offers: names to one-line help."""
        self.query_one(PromptInput).commands = commands

    def edit_prompt(self, text: str) -> None:
        """Put ``text`` in the prompt box, to edit and send, and focus it."""
        box = self.query_one(PromptInput)
        box.text = prompt_text(text)
        box.focus()

    async def run_slash_command(self, line: str) -> None:
        """Run ``/name args`` (see :data:`~agent_tui.tui.workbench.commands.COMMANDS`)."""
        await COMMANDS.run(self, line)

    def start_turn(self, text: str, images: Images = ()) -> None:
        """Run one prompt, already shown in the conversation (:class:`.FrontTurns`)."""
        self.turns.start_turn(text, images)

    def start_work(self, work: Callable[[Agent], Awaitable[None]]) -> None:
        """Run ``work`` with the session's agent as a turn: what autonomous mode runs."""
        self.turns.start_work(work)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self.last_key_at = time.monotonic()
        await super().on_event(event)

    def front_title(self) -> str:
        """The front session's first prompt (or its id), for the session switcher."""
        return self.front.title or f"session {self.session_id}"

    def session_label(self, session_id: str) -> str:
        """How the approval inbox names ``session_id``."""
        return self.background.label(session_id)

    async def ensure_agent(self) -> Agent:
        """The agent of the front session, built on first use."""
        return await self.agents.ensure_front()

    def checkpoints(self) -> Checkpoints | None:
        """The front session's checkpoints; None when they are off."""
        return self.agents.checkpoints()

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
        """Redraw a resumed session from its log (:meth:`.FrontPanes.show_restored`)."""
        await self.panes.show_restored(log)

    def close_browser(self) -> None:
        """End the session's browser, if one runs (a new session starts without one)."""
        self.agents.close_browser()

    async def reset_view(self, session_id: str) -> None:
        """Empty the panes and forget the agent; the next turn starts ``session_id``'s."""
        await self.panes.reset(session_id)

    # -- approvals ---------------------------------------------------------------------

    def on_approval_needed(self, message: ApprovalNeeded) -> None:
        if message.session_id and message.session_id != self.session_id:
            self.notify(f"Background session {message.session_id} waits for approval: "
                        f"{message.request.summary} (F8: the inbox)", markup=False, timeout=6)
            self.away.approval_needed(message.request, message.session_id)
            self.background.changed()
            return
        self.view.awaiting_approval(message.call_id)
        self.away.approval_needed(message.request)

    def on_inbox_changed(self, message: InboxChanged) -> None:
        self.status.inbox = message.waiting
        self.query_one(KeyFooter).waiting = message.waiting
        self.background.changed()

    def on_rules_remembered(self, message: RulesRemembered) -> None:
        self.settings_actions.remember_rules(message.saved)

    # -- settings and actions ----------------------------------------------------------

    def update_settings(self, **changes: Any) -> None:
        """Change settings for the rest of the session (the agent's too)."""
        self.settings_actions.update(**changes)

    def reload_settings(self) -> None:
        """Read the config files again, keeping what this session changed."""
        self.settings_actions.reload()

    def set_mode(self, mode: str) -> None:
        """Switch the approval mode for the rest of the session."""
        self.settings_actions.set_mode(mode)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from palette_commands(self)


def make_app(settings: Settings, workdir: Path, **kwargs: Any) -> AgentApp:
    """Build the workbench app; nothing happens until it runs."""
    return AgentApp(settings, workdir, **kwargs)
