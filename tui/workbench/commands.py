"""The workbench's slash commands, each declared once in :data:`COMMANDS`.

The prompt's completion (:data:`SLASH_COMMANDS`), the command palette, ``/help`` and the
slash-command tables of the README and ``tools/docs/keys.md`` are all made from it. A
handler gets the app and the text after the command's name; session and change commands
hand over to the app's :class:`~agent_tui.tui.workbench.session_actions.SessionActions` and
:class:`~agent_tui.tui.workbench.change_actions.ChangeActions`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol, get_args

from ...core.config import APPROVAL_MODES
from ...core.setting_fields import ReasoningEffort
from ..outside_text import visible
from . import NO_MODEL, Workbench
from .slash_registry import SlashCommand, SlashRegistry

if TYPE_CHECKING:
    from ...core.agent import Agent
    from ..widgets.conversation import ConversationView
    from ..widgets.panels import StatusBar
    from .change_actions import ChangeActions
    from .session_actions import SessionActions


class CommandHost(Workbench, Protocol):
    """The app as the commands see it (:class:`~agent_tui.tui.app.AgentApp` is one)."""

    sessions: SessionActions
    changes: ChangeActions
    knowledge: Any
    autonomous: Any
    """Autonomous mode (:class:`~agent_tui.tui.workbench.autonomous_actions.AutonomousActions`)."""
    background: Any
    """The background sessions (:class:`~agent_tui.tui.workbench.background.BackgroundSessions`)."""
    approver: Any
    """The approver and its inbox (:class:`~agent_tui.tui.workbench.approver.TuiApprover`)."""
    outside_tools: Any
    """MCP servers and discovered tools (:class:`~agent_tui.tui.workbench.outside_tools.OutsideTools`)."""
    """The session's knowledge actions (:class:`~agent_tui.tui.workbench.knowledge_actions.KnowledgeActions`)."""
    theme: str

    @property
    def conversation(self) -> ConversationView: ...

    @property
    def status(self) -> StatusBar: ...

    @property
    def available_themes(self) -> dict[str, Any]: ...

    def update_settings(self, **changes: Any) -> None: ...

    def start_turn(self, text: str) -> None: ...

    def set_mode(self, mode: str) -> None: ...

    def exit(self) -> None: ...

    def notify(self, message: str, *, timeout: float | None = None,
               markup: bool = True) -> None: ...

    def call_later(self, callback: Any, *args: Any) -> bool: ...

    def action_switch_sessions(self) -> None: ...

KEYS_HELP = """\
**Approvals** — y allow once · a allow always · n deny · d deny with a reason ·
e edit before it runs · Esc deny · space ticks/unticks an edit's hunk, j/k move between hunks ·
i answer it later in the inbox · a modal that opens by itself ignores keys for half a second

**Inbox ({open_inbox}, /inbox)** — every call of every session waiting: j/k move · y allow once ·
n deny · a always allow in its session · d details · r allow every read-only call

**Review ({review_changes}, /diff)** — j/k hunk · n/p or Tab file · a/r accept/reject the hunk ·
A/R the whole file · q close; a rejection is reverted on disk at once, and the model hears
of it with your next prompt

**Commands** — """
"""What ``/help`` shows between the workbench's keys (``key_table.keys_paragraph``) and the
list of commands: the keys of the modals (``{action}``: the key bound to that action)."""


def help_text(moved: Any = None) -> str:
    """What ``/help`` shows: the keys (as the ``[keys]`` table, a
    :class:`~agent_tui.tui.workbench.key_map.KeyMap`, moves them), then every command with
    its help."""
    # Imported here: the bindings are Textual's, and headless runs and ACP use this module.
    from .key_table import bound, keys_paragraph, with_keys

    modals = with_keys(KEYS_HELP, bound(moved))
    return f"{keys_paragraph(moved)}\n\n{modals}{COMMANDS.help_line()}"


# -- the workbench ---------------------------------------------------------------------


async def _help(app: CommandHost, arg: str) -> None:
    from ..widgets.assistant_block import AssistantBlock

    await app.conversation.add(AssistantBlock(help_text(getattr(app, "key_map", None))))


async def _quit(app: CommandHost, arg: str) -> None:
    app.exit()


async def _context(app: CommandHost, arg: str) -> None:
    from ..screens.context_inspector import ContextInspector

    if not app.settings.model:
        app.notice(NO_MODEL, error=True)
        return

    await app.push_screen(ContextInspector(app.ensure_agent))


async def _compact(app: CommandHost, arg: str) -> None:
    from .compact_action import compact_now

    compact_now(app, arg)


async def _processes(app: CommandHost, arg: str) -> None:
    from ...tools.background import background_processes

    action, _, target = arg.partition(" ")
    if action == "stop":
        stopped = await asyncio.to_thread(background_processes.stop, target.strip())
        app.notice(f"Stopped {target}." if stopped else f"No background process {target!r}.",
                   error=not stopped)
        return
    procs = background_processes.processes()
    if not procs:
        app.notice("No background processes.")
        return
    lines = [f"{'running' if p.alive else 'ended  '}  {p.name}  pid {p.pid}  {p.command}"
             f"  log: {p.log}" for p in procs]
    app.notice("Background processes:\n" + "\n".join(lines))


# -- model and settings ----------------------------------------------------------------


EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)
MODEL_USAGE = ("Usage: /model NAME, /model NAME EFFORT or /model --effort EFFORT (EFFORT: "
               f"{'|'.join(EFFORTS)}, or default for the provider's own)")


def model_and_effort(arg: str) -> tuple[str, str | None] | None:
    """``/model``'s words: the model ("" to keep it) and the reasoning effort (None to keep
    it, "default" to unset it); None when they make no sense."""
    words = arg.split()
    effort = None
    if "--effort" in words:
        at = words.index("--effort")
        if at + 1 >= len(words):
            return None
        effort = words.pop(at + 1)
        words.pop(at)
    elif len(words) == 2:
        effort = words.pop()
    if len(words) > 1 or (effort is not None and effort not in (*EFFORTS, "default")):
        return None
    return (words[0] if words else ""), effort


async def _model(app: CommandHost, arg: str) -> None:
    effort_now = app.settings.reasoning_effort or "the provider's default"
    if not arg:
        stronger = app.settings.escalation_model
        escalation = f"; escalation model: {stronger}" if stronger else ""
        app.notice(f"Model: {app.settings.model or 'none'}{escalation}; reasoning effort: "
                   f"{effort_now}. {MODEL_USAGE}")
        return
    if (asked := model_and_effort(arg)) is None:
        app.notice(visible(f"Not understood: /model {arg}. {MODEL_USAGE}"), error=True)
        return
    model, effort = asked
    changes: dict[str, Any] = {"model": model} if model else {}
    if effort is not None:
        changes["reasoning_effort"] = None if effort == "default" else effort
    app.update_settings(**changes)
    if model:
        app.status.model = model
    previous, app.agent = app.agent, None
    if previous is not None:
        app.call_later(_carry_over, app, previous)
    said = f"Model: {app.settings.model or 'none'}"
    if effort is not None:
        said += f" · reasoning effort: {app.settings.reasoning_effort or 'default'}"
    # The name is the person's typing (or pasted): shown literally, never as markup.
    app.notify(visible(said), timeout=2, markup=False)


async def _carry_over(app: CommandHost, previous: Agent) -> None:
    """The agent for the new model goes on from ``previous``'s conversation."""
    (await app.ensure_agent()).adopt(previous)


async def _mode(app: CommandHost, arg: str) -> None:
    if arg not in APPROVAL_MODES:
        app.notice(f"Usage: /mode {'|'.join(APPROVAL_MODES)}", error=True)
        return
    app.set_mode(arg)


async def _network(app: CommandHost, arg: str) -> None:
    if arg not in ("on", "off"):
        state = "on" if app.settings.network else "off"
        app.notice(f"The network is {state} for tools. Usage: /net on|off")
        return
    enabled = arg == "on"
    app.update_settings(network=enabled)
    app.status.network = enabled
    app.notice("Network tools are on: web_fetch, web_search and research may reach the "
               "internet (fetches still ask in default mode)." if enabled else
               "Network tools are off.")


async def _theme(app: CommandHost, arg: str) -> None:
    if arg not in app.available_themes:
        names = ", ".join(sorted(app.available_themes))
        app.notice(f"Usage: /theme NAME, one of: {names}", error=True)
        return
    from ...core.config import save_user_settings

    app.theme = arg
    app.update_settings(theme=arg)
    save_user_settings({"theme": arg})


async def _agent(app: CommandHost, arg: str) -> None:
    from ...core.personas import persona_changes

    knowledge = await app.knowledge.ready()
    catalog = knowledge.personas
    if not arg:
        app.notice(_personas_text(knowledge.persona, catalog))
        return
    if arg in ("off", "none"):
        if knowledge.persona is None:
            app.notice("No persona is on. /agent NAME takes one on.")
            return
        app.update_settings(agent=None)
        await _use_knowledge(app)
        app.notice(f"Persona {knowledge.persona.name} is off: agent-tui's own prompt "
                   f"and every tool again. The model ({app.settings.model or 'none'}) "
                   f"and approval mode ({app.settings.approval_mode}) stay; /model and /mode "
                   "change them.")
        return
    persona = catalog.get(arg)
    if persona is None:
        app.notice(catalog.unknown(arg), error=True)
        return
    changes = persona_changes(persona, app.settings, _flag_mode(app))
    app.update_settings(**changes.settings)
    if (mode := changes.settings.get("approval_mode")) is not None:
        app.status.mode = mode
    if (model := changes.settings.get("model")) is not None:
        app.status.model = model
        previous, app.agent = app.agent, None
        await app.knowledge.load()
        if previous is not None:
            await _carry_over(app, previous)
    else:
        await _use_knowledge(app)
    for note in changes.notes:
        app.notice(note, error=True)
    tools = ", ".join(persona.tools) if persona.tools else "every tool"
    app.notice(f"Persona: {persona.name} ({persona.source}) — {persona.description}. "
               f"Model: {app.settings.model or 'none'}; approval mode: "
               f"{app.settings.approval_mode}; tools: {tools}.")


async def _use_knowledge(app: CommandHost) -> None:
    """Read the knowledge again (its persona is the ``agent`` setting's) and hand it to the
    agent: its system prompt and the tools it offers."""
    knowledge = await app.knowledge.load()
    if app.agent is not None:
        app.agent.use_knowledge(knowledge)


def _flag_mode(app: CommandHost) -> str | None:
    """The ``--approval-mode`` given on the command line, if any: a persona's mode is never
    more permissive."""
    first = getattr(app, "_first_frame_settings", None)
    flags = getattr(first, "flags", None) or {}
    return flags.get("approval_mode")


def _personas_text(current: Any, catalog: Any) -> str:
    """What ``/agent`` alone says: the persona on, and every one there is (a notice shows
    it literally)."""
    if current is None:
        lines = ["No persona is on. /agent NAME takes one on; /agent off leaves it."]
    else:
        tools = ", ".join(current.tools) if current.tools else "every tool"
        lines = [f"Persona: {current.name} ({current.source}, {current.path})",
                 f"  model: {current.model or 'the session’s'} · mode: "
                 f"{current.approval_mode or 'the session’s'} · tools: {tools}",
                 "/agent NAME switches; /agent off leaves it."]
    lines.append("Personas:" if len(catalog) else "No personas found.")
    for persona in catalog:
        mark = "▸" if current is not None and persona.name == current.name else " "
        lines.append(f" {mark} {persona.name:<16} {persona.source:<8} {persona.description}")
    return "\n".join(lines)


def _agent_choices(app: CommandHost) -> Iterator[tuple[str, str]]:
    from rich.markup import escape

    knowledge = app.knowledge.knowledge
    # A persona's name is letters, digits, - and _; its description is the file's words and
    # the palette reads markup: escaped.
    for persona in knowledge.personas if knowledge is not None else ():
        yield persona.name, escape(visible(f"Take on the {persona.name} persona: "
                                           f"{persona.description}"))
    yield "off", "Leave the persona: agent-tui's own prompt and every tool"


def _mode_choices(app: CommandHost) -> Iterator[tuple[str, str]]:
    for mode in APPROVAL_MODES:
        yield mode, f"Approval mode {mode}"


def _network_choices(app: CommandHost) -> Iterator[tuple[str, str]]:
    yield "on", "Let tools reach the network"
    yield "off", "Keep tools off the network"


def _theme_choices(app: CommandHost) -> Iterator[tuple[str, str]]:
    from ...themes import THEMES

    for theme in THEMES:
        yield theme.name, f"Switch to the {theme.name} theme"


# -- knowledge: instructions, memory, skills, hooks -------------------------------------


async def _auto(app: CommandHost, arg: str) -> None:
    await app.autonomous.command(arg)


async def _code(app: CommandHost, arg: str) -> None:
    from .delegate_actions import code

    if not app.settings.model:
        app.notice(NO_MODEL, error=True)
        return
    await code(app, arg)


async def _delegates(app: CommandHost, arg: str) -> None:
    from .delegate_actions import list_delegates

    await list_delegates(app)


async def _init(app: CommandHost, arg: str) -> None:
    from ...core.prompts import INIT_PROMPT
    from ..widgets.conversation import UserBlock

    if not app.settings.model:
        app.notice(NO_MODEL, error=True)
        return
    prompt = f"{INIT_PROMPT}\n\n{arg}" if arg else INIT_PROMPT
    await app.conversation.add(UserBlock("/init " + arg if arg else "/init"))
    app.start_turn(prompt)


async def _memory(app: CommandHost, arg: str) -> None:
    await app.knowledge.show_memory()


async def _skills(app: CommandHost, arg: str) -> None:
    await app.knowledge.show_skills()


async def _hooks(app: CommandHost, arg: str) -> None:
    await app.knowledge.show_hooks()


async def _mcp(app: CommandHost, arg: str) -> None:
    app.outside_tools.show_mcp()


# -- sessions and changes --------------------------------------------------------------


async def _new(app: CommandHost, arg: str) -> None:
    await app.sessions.new_session()


async def _sessions(app: CommandHost, arg: str) -> None:
    app.sessions.browse()


async def _fork(app: CommandHost, arg: str) -> None:
    await app.sessions.fork(arg)


async def _export(app: CommandHost, arg: str) -> None:
    await app.sessions.export(arg)


async def _background(app: CommandHost, arg: str) -> None:
    if not arg.strip():
        app.notice("Usage: /bg PROMPT starts a session that works on PROMPT in the "
                   "background; F9 lists the open sessions.", error=True)
        return
    if not app.settings.model:
        app.notice(NO_MODEL, error=True)
        return
    session = await app.background.spawn(arg.strip())
    if session is not None:
        app.notice(f"Background session {session.session_id} started: {session.title} "
                   "(F9 lists the open sessions; its approvals wait in the inbox, F8).")


async def _inbox(app: CommandHost, arg: str) -> None:
    app.approver.open_inbox()


async def _switch(app: CommandHost, arg: str) -> None:
    if arg.strip():
        if arg.strip() == app.session_id:
            app.notice(f"Session {arg.strip()} is in front already.")
        elif not await app.background.bring_to_front(arg.strip()):
            app.notice(f"No open background session {arg.strip()}; F9 lists them.",
                       error=True)
        return
    app.action_switch_sessions()


async def _config(app: CommandHost, arg: str) -> None:
    from .config_actions import open_config

    await open_config(app)


async def _undo(app: CommandHost, arg: str) -> None:
    await app.changes.undo()


async def _rewind(app: CommandHost, arg: str) -> None:
    await app.changes.rewind()


async def _diff(app: CommandHost, arg: str) -> None:
    await app.changes.review(arg)


COMMANDS = SlashRegistry([
    SlashCommand("/help", "Show the keys and slash commands",
                 "show the keys and slash commands", _help),
    SlashCommand("/model", "Switch the model and its reasoning effort: /model NAME [EFFORT], "
                 "/model --effort off|low|medium|high|default",
                 "switch the model; EFFORT (off, low, medium, high, default) sets how hard it "
                 "reasons", _model, args="NAME [EFFORT]"),
    SlashCommand("/agent", "Take on a persona: /agent NAME; /agent alone lists them",
                 "take on a persona (its prompt, model, tools, mode); alone: the current one "
                 "and the list; `/agent off` leaves it", _agent, args="[NAME|off]",
                 wait_note="before switching the persona", choices=_agent_choices),
    SlashCommand("/mode", "Set the approval mode: /mode default|auto-edit|plan|yolo",
                 "set the approval mode", _mode, args="|".join(APPROVAL_MODES),
                 in_palette=False, choices=_mode_choices),
    SlashCommand("/clear", "Clear the conversation and start afresh",
                 "forget the conversation, start a new session", _new),
    SlashCommand("/new", "Start a new session", "start a new session (as `/clear`)", _new),
    SlashCommand("/sessions", "Browse sessions: search, resume, fork, delete, export (Ctrl+R)",
                 "the session browser: search, resume, fork, delete, export (Ctrl+R)",
                 _sessions),
    SlashCommand("/context", "Inspect the context: every item and its tokens; pin, dehydrate, drop",
                 "inspect the context: every item and its tokens; pin, dehydrate, drop",
                 _context, wait_note="to inspect the context"),
    SlashCommand("/code", "Hand work to another coding agent: /code [@PROJECT] PROMPT",
                 "hand PROMPT to the first configured delegate (another coding agent, over ACP) "
                 "in a new folder, or go on in `@PROJECT`; its reads, writes, commands and "
                 "permission requests pass through agent-tui's approvals and review",
                 _code, args="[@PROJECT] PROMPT", wait_note="before delegating"),
    SlashCommand("/delegates", "The configured delegates and whether each answers",
                 "list the delegates configured in config.toml and whether each starts and "
                 "answers", _delegates),
    SlashCommand("/compact", "Summarize the conversation now: /compact [FOCUS] steers the summary",
                 "summarize the conversation so far into one message (you review it first); "
                 "FOCUS says what the summary should dwell on", _compact, args="[FOCUS]",
                 wait_note="before compacting"),
    SlashCommand("/fork", "Go on in a copy of this session: /fork [TURN] keeps turns up to TURN",
                 "go on in a copy of the session, whole or before turn TURN", _fork,
                 args="[TURN]", wait_note="before forking"),
    SlashCommand("/undo", "Put back the files of the last turn that changed some",
                 "put back the files of the last turn that changed some", _undo,
                 wait_note="before undoing"),
    SlashCommand("/rewind", "Go back to before a turn: the conversation, the files or both",
                 "go back to before a turn: the conversation, the files or both", _rewind,
                 wait_note="before rewinding"),
    SlashCommand("/diff", "Review the changes hunk by hunk, accept or reject: /diff [TURN] (F7)",
                 "review the session's changes (or one turn's), accept or reject hunks (F7)",
                 _diff, args="[TURN]",
                 wait_note="before reviewing: the agent may still be changing files"),
    SlashCommand("/export", "Write the session as Markdown: /export [FILE]",
                 "write the session as Markdown (default: agent-tui-ID.md in the project)",
                 _export, args="[FILE]"),
    SlashCommand("/bg", "Start a session in the background: /bg PROMPT",
                 "start another session that works on the prompt in the background, in this "
                 "project; its approvals wait in the inbox", _background, args="PROMPT"),
    SlashCommand("/switch", "The open sessions; bring one to the front: /switch [ID] (F9)",
                 "list the open sessions (front and background) with their states, or bring "
                 "one to the front; the front one goes on in the background", _switch,
                 args="[ID]"),
    SlashCommand("/inbox", "Every call of every session waiting for approval (F8)",
                 "the approval inbox: every call waiting, from every session; answer with "
                 "single keys, read-only ones in bulk", _inbox),
    SlashCommand("/auto", "Autonomous mode: /auto REQUIREMENT (adds it; coach-player on all)",
                 "add a requirement to the accumulated ones and run the coach-player loop on "
                 "them (`@FILE` reads it from a file; alone: the list; `clear` forgets them)",
                 _auto, args="[REQUIREMENT|@FILE|clear]", wait_note="before /auto"),
    SlashCommand("/init", "Have the agent explore the project and write AGENTS.md: /init [FOCUS]",
                 "have the agent explore the project and write an AGENTS.md (you approve "
                 "the write)", _init, args="[FOCUS]", wait_note="before /init"),
    SlashCommand("/memory", "What is loaded into the prompt; browse, search, edit memories",
                 "the AGENTS.md files loaded (with their tokens) and the memories: browse, "
                 "search, edit, delete", _memory),
    SlashCommand("/skills", "The skills on offer, where each comes from, what it shadows",
                 "the skills on offer: source, description, shadowing; problems in them",
                 _skills),
    SlashCommand("/hooks", "The hooks in force and where they come from",
                 "the hooks in force (PreToolUse, PostToolUse, UserPromptSubmit, Stop, "
                 "SessionStart) and their files", _hooks),
    SlashCommand("/mcp", "The MCP servers: state, tools, errors; reconnect or disable one",
                 "the MCP servers: each one's state, tools and log; reconnect or disable",
                 _mcp),
    SlashCommand("/config", "Every setting: its value, where it comes from; edit and save one",
                 "every setting with its value, where it comes from (default, user, project, "
                 "environment, flag) and its help; filter, edit, save to the user or project "
                 "config", _config),
    SlashCommand("/theme", "Switch the theme: /theme NAME",
                 "switch the theme (the choice is saved)", _theme, args="NAME",
                 in_palette=False, choices=_theme_choices),
    SlashCommand("/net", "Let tools reach the network, or not: /net on|off",
                 "let tools reach the network, or not", _network, args="on|off",
                 choices=_network_choices),
    SlashCommand("/ps", "List background processes; /ps stop NAME stops one",
                 "list the processes `background_process` started; `/ps stop NAME` stops one",
                 _processes, args="[stop NAME]"),
    SlashCommand("/quit", "Quit agent-tui", "quit", _quit),
])
"""Every slash command of the workbench, in the order completion and the docs list them."""

SLASH_COMMANDS: dict[str, str] = COMMANDS.completions()
"""Slash command names to their one-line help, as the prompt's completion offers them."""
