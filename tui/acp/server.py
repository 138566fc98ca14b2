"""agent-tui as an ACP agent: what it answers to each request of the Agent Client Protocol."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp import PROTOCOL_VERSION, RequestError, update_agent_message_text
from acp.helpers import update_available_commands, update_current_mode
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    AvailableCommandInput,
    EmbeddedResourceContentBlock,
    HttpMcpServer,
    ImageContentBlock,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    McpServerStdio,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResourceContentBlock,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    SseMcpServer,
    TextContentBlock,
    TextResourceContents,
    UnstructuredCommandInput,
)

from ...core import __version__
from ...core.config import APPROVAL_MODES, ConfigError, Settings
from ...core.runtime.direct_commands import COMPACT_COMMAND
from ...core.runtime.outside_tools import MCP_GROUP
from ...core.runtime.prompt_resolution import PromptFailed, resolve_prompt, run_resolved
from ...core.sessions.log import SessionError
from ...core.sessions.replay import event_from_record
from ...core.sessions.start import open_session
from ...tools.base import ImagePart
from ...tools.images import prompt_image_parts
from .session import AcpSession, open_acp_session
from .updates import UpdateTranslator

MODE_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "default": ("Ask", "Asks before file edits, commands and anything else that changes things"),
    "auto-edit": ("Auto-edit", "Edits files in the project without asking; asks before "
                  "commands"),
    "plan": ("Plan", "Reads and plans; changes nothing"),
    "yolo": ("Yolo", "Runs everything without asking (commands that are always refused "
             "still are)"),
}
"""Each approval mode as a client lists it: name and description."""

SESSIONS_LISTED = 200
"""Sessions ``session/list`` returns, newest first."""

UNFINISHED_CALL = "No result was recorded: the call was cancelled, or agent-tui stopped, first."
"""How a loaded session shows a call its log has no end for."""

SettingsFor = Callable[[Path], Settings]
"""The settings of a session in a folder (the user's and, when trusted, the project's config
with the command line's flags on top). Raises ConfigError."""


def session_modes(current: str) -> SessionModeState:
    """The approval modes, as ACP session modes, with ``current`` selected."""
    return SessionModeState(current_mode_id=current, available_modes=[
        SessionMode(id=mode, name=MODE_DESCRIPTIONS[mode][0],
                    description=MODE_DESCRIPTIONS[mode][1]) for mode in APPROVAL_MODES])


def request_failed(message: str) -> RequestError:
    """An error a client shows as it is: ``message`` says what happened and what to do."""
    return RequestError(-32603, message, {"message": message})


def mcp_configs(servers: Sequence[Any] | None, workdir: Path) -> list[Any]:
    """The client's MCP servers as agent-tui configures servers."""
    from ...core.mcp import McpServerConfig

    configs = []
    for server in servers or ():
        source = Path("<ACP client>")
        if isinstance(server, McpServerStdio):
            configs.append(McpServerConfig(
                name=server.name, transport="stdio", source=source, command=server.command,
                args=tuple(server.args), env={v.name: v.value for v in server.env}, cwd=workdir))
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            configs.append(McpServerConfig(
                name=server.name, transport="http" if isinstance(server, HttpMcpServer)
                else "sse", source=source, url=server.url,
                headers={h.name: h.value for h in server.headers}))
    return configs


def prompt_parts(blocks: Sequence[Any]) -> tuple[str, list[tuple[str, ImagePart]]]:
    """The prompt's text and images from the client's content blocks: text as typed, a
    linked file by its path, an embedded file's text after the prompt, images as images."""
    text: list[str] = []
    attached: list[str] = []
    images: list[tuple[str, ImagePart]] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            text.append(block.text)
        elif isinstance(block, ImageContentBlock):
            name = Path(urlparse(block.uri).path).name if block.uri else ""
            images.append((name or f"image {len(images) + 1}",
                           ImagePart(block.mime_type, block.data)))
        elif isinstance(block, ResourceContentBlock):
            text.append(f"@{_uri_path(block.uri)}")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                attached.append(f'<file path="{_uri_path(resource.uri)}">\n'
                                f"{resource.text.rstrip()}\n</file>")
            else:
                text.append(f"@{_uri_path(resource.uri)}")
    prompt = " ".join(part.strip() for part in text if part.strip())
    if attached:
        prompt += "\n\nAttached by the person:\n" + "\n".join(attached)
    return prompt, images


def _uri_path(uri: str) -> str:
    """A ``file://`` URI's path; other URIs as they are."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


class AgentTuiAcp:
    """The ACP agent: sessions of agent-tui's engine, driven by a client (Zed, Toad…).

    Args:
        settings_for: The settings of a session in a folder.
        client_terminals: Run shell commands in the client's terminals where it offers them.
    """

    def __init__(self, settings_for: SettingsFor, *, client_terminals: bool = False) -> None:
        self.settings_for = settings_for
        self.client_terminals = client_terminals
        self.client_capabilities: Any = None
        self.client: Any = None
        self.sessions: dict[str, AcpSession] = {}
        self._cancelled: set[str] = set()

    def on_connect(self, conn: Any) -> None:
        """Keep the connection: updates and permission requests go through it."""
        self.client = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None,
                         client_info: Any = None, **kwargs: Any) -> InitializeResponse:
        """What agent-tui can do: load and list sessions, images and embedded files in
        prompts, MCP servers over stdio, HTTP and SSE."""
        self.client_capabilities = client_capabilities
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities())),
            agent_info=Implementation(name="agent-tui", title="agent-tui", version=__version__),
            auth_methods=[])

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        """Nothing to do: providers' keys come from the environment and config.toml."""

    async def new_session(self, cwd: str, mcp_servers: Sequence[Any] | None = None,
                          **kwargs: Any) -> NewSessionResponse:
        """A new session in ``cwd``, recorded in agent-tui's session store."""
        workdir, settings = self._folder(cwd)
        try:
            opened = await asyncio.to_thread(open_session, workdir, settings.model or "")
        except SessionError as exc:
            raise request_failed(str(exc)) from None
        session = await self._open(settings, workdir, opened, mcp_servers)
        asyncio.get_running_loop().call_soon(session.start_sending, self.client)
        return NewSessionResponse(session_id=session.session_id,
                                  modes=session_modes(settings.approval_mode))

    async def load_session(self, cwd: str, session_id: str,
                           mcp_servers: Sequence[Any] | None = None,
                           **kwargs: Any) -> LoadSessionResponse:
        """Go on with an earlier session (any front end's): its conversation is replayed to
        the client, then new prompts continue it."""
        workdir, settings = self._folder(cwd)
        if session_id in self.sessions:
            await self._close(session_id)
        try:
            opened = await asyncio.to_thread(open_session, workdir, settings.model or "",
                                             resume=session_id)
        except SessionError as exc:
            raise request_failed(str(exc)) from None
        assert opened.log is not None
        session = await self._open(settings, workdir, opened, mcp_servers)
        history = UpdateTranslator(workdir, live=False)
        for record in opened.log.events:
            event = event_from_record(record)
            for update in history.updates(event) if event is not None else ():
                session.queue(update)
        for update in history.end_open_calls(UNFINISHED_CALL):
            session.queue(update)
        session.start_sending(self.client)
        await session.flush()
        return LoadSessionResponse(modes=session_modes(settings.approval_mode))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **kwargs: Any) -> ListSessionsResponse:
        """agent-tui's sessions in ``cwd`` (every project's without it), newest first."""
        from ...core.sessions.index import SessionIndex

        def listed() -> list[Any]:
            with SessionIndex() as index:
                return index.list(Path(cwd).resolve() if cwd else None)[:SESSIONS_LISTED]

        found = await asyncio.to_thread(listed)
        return ListSessionsResponse(sessions=[SessionInfo(
            session_id=s.id, cwd=s.project, title=s.title or None,
            updated_at=datetime.datetime.fromtimestamp(s.updated, datetime.UTC).isoformat())
            for s in found])

    async def set_session_mode(self, mode_id: str, session_id: str,
                               **kwargs: Any) -> SetSessionModeResponse:
        """Switch the session's approval mode."""
        session = self._session(session_id)
        if mode_id not in APPROVAL_MODES:
            raise RequestError.invalid_params(
                {"message": f"unknown mode {mode_id!r}; one of {', '.join(APPROVAL_MODES)}"})
        agent = session.agent
        agent.settings = agent.settings.model_copy(update={"approval_mode": mode_id})
        session.queue(update_current_mode(mode_id))
        return SetSessionModeResponse()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        """Run the agent on the prompt to the end of its turn, streaming what it does."""
        session = self._session(session_id)
        if session.prompt_task is not None:
            raise request_failed("a prompt is already running in this session; cancel it "
                                 "first or wait for its answer.")
        text, images = prompt_parts(prompt)
        for warning in session.warnings:
            session.queue(update_agent_message_text(f"> agent-tui: {warning}\n\n"))
        session.warnings.clear()
        if session.mcp is not None:
            from ...tools.mcp import mcp_tools

            session.agent.use_external_tools(MCP_GROUP, mcp_tools(session.mcp))
        agent = session.agent
        try:
            resolved = await resolve_prompt(text, agent.workdir, agent.knowledge.commands,
                                            session.mcp, images=images,
                                            read_images=prompt_image_parts)
        except PromptFailed as exc:
            raise request_failed(str(exc)) from None
        for warning in resolved.warnings:
            session.queue(update_agent_message_text(f"> agent-tui: {warning}\n\n"))
        self._cancelled.discard(session_id)
        session.prompt_task = asyncio.create_task(run_resolved(agent, resolved))
        try:
            result = await session.prompt_task
        except asyncio.CancelledError:
            if session_id not in self._cancelled:
                raise  # the connection is going away
            await session.flush()
            return PromptResponse(stop_reason="cancelled")
        finally:
            session.prompt_task = None
        await session.flush()
        if not result.ok:
            if result.model_calls >= session.agent.settings.max_turns:
                return PromptResponse(stop_reason="max_turn_requests")
            raise request_failed(result.error or "the run failed")
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """Stop the session's running prompt: the stream, the tools, open questions."""
        session = self.sessions.get(session_id)
        if session is not None and session.prompt_task is not None:
            self._cancelled.add(session_id)
            session.prompt_task.cancel()

    async def close_all(self) -> None:
        """End every session: running prompts cancelled, servers stopped, logs released."""
        for session_id in list(self.sessions):
            await self._close(session_id)

    # -- helpers -----------------------------------------------------------------------

    def _folder(self, cwd: str) -> tuple[Path, Settings]:
        workdir = Path(cwd).expanduser()
        if not workdir.is_absolute() or not workdir.is_dir():
            raise RequestError.invalid_params(
                {"message": f"{cwd} is not a folder; the session's cwd must be an absolute "
                 "path to a project folder."})
        workdir = workdir.resolve()
        try:
            settings = self.settings_for(workdir)
        except ConfigError as exc:
            raise request_failed(f"agent-tui's configuration: {exc}") from None
        if not settings.model:
            raise request_failed(
                "no model configured. Add --model (e.g. anthropic/claude-sonnet-4-20250514) to "
                "agent-tui acp in the client's agent settings, set model in agent-tui's "
                "config.toml, or set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or "
                "OPENROUTER_API_KEY.")
        return workdir, settings

    async def _open(self, settings: Settings, workdir: Path, opened: Any,
                    mcp_servers: Sequence[Any] | None) -> AcpSession:
        offers = self.client_capabilities
        session = await open_acp_session(
            settings, workdir, opened, self.client,
            mcp_servers=mcp_configs(mcp_servers, workdir),
            editor_files=bool(offers and offers.fs and offers.fs.read_text_file),
            client_terminals=bool(self.client_terminals and offers and offers.terminal))
        self.sessions[session.session_id] = session
        session.queue(update_available_commands(available_commands(session)))
        return session

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise request_failed(f"there is no open session {session_id}; start one with "
                                 "session/new or load it with session/load.")
        return session

    async def _close(self, session_id: str) -> None:
        session = self.sessions.pop(session_id, None)
        if session is not None:
            with contextlib.suppress(Exception):
                await session.close()


def available_commands(session: AcpSession) -> list[AvailableCommand]:
    """The slash commands a client may offer: ``/compact``, custom commands and MCP servers'
    prompts."""
    commands = [AvailableCommand(
        name=COMPACT_COMMAND.lstrip("/"),
        description="Summarize the conversation so far into one message, to free the context",
        input=AvailableCommandInput(root=UnstructuredCommandInput(
            hint="what the summary should focus on (optional)")))]
    commands += [AvailableCommand(
        name=command.name.lstrip("/"), description=command.description or command.name,
        input=AvailableCommandInput(root=UnstructuredCommandInput(hint=command.argument_hint))
        if command.argument_hint else None)
        for command in session.agent.knowledge.commands]
    if session.mcp is not None:
        commands += [AvailableCommand(
            name=prompt.command.lstrip("/"), description=prompt.description or prompt.name,
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint=prompt.hint))
            if prompt.hint else None) for prompt in session.mcp.prompts()]
    return commands
