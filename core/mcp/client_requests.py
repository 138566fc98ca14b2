"""Answering what a server asks of agent-tui: its roots, a form for the person
(elicitation), a completion from the session's model (sampling); and taking in its log
messages. Each server's session gets these callbacks from :func:`client_callbacks`."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.client.session import ClientRequestContext, ClientSession

from .connection import describe_exception
from .host import (
    NO_PERSON_TO_ASK,
    ElicitationRequest,
    McpHost,
    SamplingRefused,
    SamplingRequest,
)

LOG_LEVEL: types.LoggingLevel = "info"
"""The least severe server log message agent-tui asks for (``logging/setLevel``)."""

LogSink = Callable[[str, str | None, Any], None]
"""Takes a server's log message: its level, logger and data."""


def client_callbacks(server: str, host: McpHost, on_log: LogSink) -> dict[str, Any]:
    """The ``ClientSession`` keyword arguments that answer ``server``'s requests through
    ``host`` and pass its log messages to ``on_log``.

    Roots and logging are always offered; elicitation and sampling too: a host that cannot
    do them refuses each request with the reason (the server may have tools that need them,
    and a refusal tells it why)."""

    async def list_roots(_context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[
            types.Root(uri=path.resolve().as_uri(), name=path.name or str(path))  # type: ignore[arg-type]
            for path in host.roots])

    async def elicitation(_context: ClientRequestContext, params: types.ElicitRequestParams
                          ) -> types.ElicitResult | types.ErrorData:
        if isinstance(params, types.ElicitRequestURLParams):
            request = ElicitationRequest(server, params.message, url=params.url)
        else:
            request = ElicitationRequest(server, params.message,
                                         schema=dict(params.requested_schema or {}))
        if host.elicit is None:
            host.tell(f"The MCP server {server} asked for information ({params.message}); it "
                      f"was refused: {NO_PERSON_TO_ASK}.")
            return types.ErrorData(code=types.INVALID_REQUEST, message=NO_PERSON_TO_ASK)
        try:
            answer = await host.elicit(request)
        except Exception as exc:  # noqa: BLE001 - the server hears why instead of a crash
            return types.ErrorData(code=types.INTERNAL_ERROR, message="agent-tui could not "
                                   f"show the form: {describe_exception(exc)}")
        if answer.action == "decline" and answer.reason:
            return types.ErrorData(code=types.INVALID_REQUEST, message=answer.reason)
        content = answer.content if answer.action == "accept" and request.url is None else None
        return types.ElicitResult(action=answer.action, content=content)

    async def sampling(_context: ClientRequestContext, params: types.CreateMessageRequestParams
                       ) -> types.CreateMessageResult | types.ErrorData:
        if host.sample is None:
            host.tell(f"The MCP server {server} asked to use the model (sampling); it was "
                      "refused: this run has no model to lend it.")
            return types.ErrorData(code=types.INVALID_REQUEST, message="agent-tui lends no "
                                   "model to MCP servers in this run")
        request = SamplingRequest(
            server, tuple((message.role, _sampled_text(message)) for message in params.messages),
            params.system_prompt, params.max_tokens, params.temperature)
        try:
            answer = await host.sample(request)
        except SamplingRefused as exc:
            return types.ErrorData(code=types.INVALID_REQUEST, message=str(exc))
        except Exception as exc:  # noqa: BLE001 - the server hears why instead of a crash
            return types.ErrorData(code=types.INTERNAL_ERROR, message="agent-tui could not "
                                   f"run the request on its model: {describe_exception(exc)}")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=answer.text),
            model=answer.model, stop_reason=answer.stop_reason)

    async def logging_message(params: types.LoggingMessageNotificationParams) -> None:
        on_log(params.level, params.logger, params.data)

    return {"list_roots_callback": list_roots, "elicitation_callback": elicitation,
            "sampling_callback": sampling, "logging_callback": logging_message}


def _sampled_text(message: types.SamplingMessage) -> str:
    parts: list[str] = []
    for part in message.content_as_list:
        if isinstance(part, types.TextContent):
            parts.append(part.text)
        else:
            parts.append(f"[{getattr(part, 'type', 'non-text')} content not shown]")
    return "\n".join(parts)


def log_line(level: str, logger: str | None, data: Any) -> str:
    """A server's log message as one line of its log."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    return f"[{level}]" + (f" {logger}:" if logger else "") + f" {text}"


async def ask_for_logs(session: ClientSession) -> None:
    """Ask a server that logs to send messages of :data:`LOG_LEVEL` and above."""
    capabilities = session.server_capabilities
    if capabilities is None or capabilities.logging is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in the 2026 protocol, current in ours
        await session.set_logging_level(LOG_LEVEL)


async def announce_roots_changed(session: ClientSession) -> None:
    """Tell a server the roots changed (it asks for them again)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await session.send_roots_list_changed()
