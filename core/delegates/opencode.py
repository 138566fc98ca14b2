"""The OpenCode route: agent-tui as a client of ``opencode serve``'s HTTP API (GLTCH's route).

A run follows the server's documented API (``GET /doc``): the event stream ``GET /event`` is
opened first; the session is made with ``POST /session`` (or the earlier one is checked with
``GET /session/:id`` to go on in it), with a permission ruleset that makes OpenCode *ask*
before every edit, command and step outside the folder; the prompt is sent with ``POST
/session/:id/message``, which answers once the assistant's turn ends with the message (its
parts, cost and error). While it works, ``message.part.*`` events become the lane's
:class:`DelegateUpdate` reports, and each ``permission.asked`` event is put to the person
through the host's approval and answered with ``POST /permission/:id/reply`` (``once``,
``always`` or ``reject``). Cancelling sends ``POST /session/:id/abort``.

OpenCode writes files itself, so its edits cannot be agent-tui's own ``write_file`` calls:
they pass the person's approval as ``edit`` permission requests (the diff is what is shown),
and ``/code`` snapshots the project before and after the run, so F7's review and ``/undo``
cover whatever it wrote.

With no ``url`` and a ``command``, agent-tui starts ``COMMAND serve --port 0 --hostname
127.0.0.1`` (or ``COMMAND ARGS``) in the folder for the run, reads the address it prints, and
stops it after.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shlex
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from .base import (
    DelegateError,
    DelegateHost,
    DelegateResult,
    DelegateUpdate,
    PermissionAnswer,
    UpdateKind,
)
from .config import DelegateConfig

SERVE_ARGS = ("serve", "--port", "0", "--hostname", "127.0.0.1")
"""How ``command`` is started when the delegate's ``args`` are not given."""
ASK_RULES = [
    {"permission": name, "pattern": "*", "action": "ask"}
    for name in ("edit", "bash", "external_directory")
]
"""The session's permission ruleset: OpenCode asks before it edits, runs or leaves the folder."""
_LISTENING = re.compile(r"https?://[^\s]+")
_STATUS = {
    "pending": "pending",
    "running": "in_progress",
    "completed": "completed",
    "error": "failed",
}
REQUEST_TIMEOUT_S = 30.0
STDERR_TAIL = 2000


class OpenCodeDelegate:
    """A delegate reached through ``opencode serve``'s HTTP API (see the module)."""

    def __init__(self, config: DelegateConfig) -> None:
        self.config = config
        self.name = config.name
        self._client: httpx.AsyncClient | None = None
        self._session_id: str | None = None
        self._folder: Path | None = None

    async def probe(self) -> str | None:
        """None when the server answers ``GET /global/health`` (started for the purpose when
        agent-tui starts it)."""
        try:
            async with (
                self._server(Path.cwd()) as url,
                httpx.AsyncClient(base_url=url, timeout=self.config.start_timeout) as client,
            ):
                response = await client.get("/global/health")
                if response.status_code != 200:
                    return (
                        f"{self.name}: {url}/global/health answered "
                        f"{response.status_code}; check that it is `opencode serve`."
                    )
        except DelegateError as exc:
            return str(exc)
        except httpx.HTTPError as exc:
            return self._unreachable(exc)
        return None

    async def run(
        self, prompt: str, host: DelegateHost, resume: str | None = None
    ) -> DelegateResult:
        """Hand ``prompt`` to OpenCode in ``host.folder``; see ``Delegate.run``."""
        async with (
            self._server(host.folder) as url,
            httpx.AsyncClient(
                base_url=url,
                params={"directory": str(host.folder)},
                timeout=httpx.Timeout(REQUEST_TIMEOUT_S, read=None),
            ) as client,
        ):
            self._client, self._folder = client, host.folder
            events = _Events(self.name, host, client)
            follower = asyncio.create_task(events.follow())
            try:
                await self._connected(events, follower)
                session_id = await self._session(client, resume)
                events.session_id = self._session_id = session_id
                body: dict[str, Any] = {"parts": [{"type": "text", "text": prompt}]}
                if self.config.model:
                    provider, _, model = self.config.model.partition("/")
                    body["model"] = {"providerID": provider, "modelID": model}
                if self.config.agent:
                    body["agent"] = self.config.agent
                response = await client.post(f"/session/{session_id}/message", json=body)
                answer = self._json(response, "the prompt")
            except TimeoutError:
                raise DelegateError(
                    f"{self.name} did not open its event stream within "
                    f"{self.config.start_timeout:g} s; check that {url} is `opencode serve`, "
                    "or raise start_timeout."
                ) from None
            except httpx.HTTPError as exc:
                raise DelegateError(self._unreachable(exc)) from None
            except asyncio.CancelledError:
                # Stopped (Esc): the server's turn is aborted while the client is still open.
                await asyncio.shield(self.cancel())
                raise
            finally:
                self._client = None
                follower.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await follower
        return self._result(answer, session_id, events)

    async def _connected(self, events: _Events, follower: asyncio.Task[None]) -> None:
        connected = asyncio.ensure_future(events.connected.wait())
        try:
            await asyncio.wait(
                {connected, follower},
                timeout=self.config.start_timeout,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            connected.cancel()
        if follower.done() and not follower.cancelled() and follower.exception() is not None:
            raise follower.exception()  # type: ignore[misc]
        if not events.connected.is_set():
            raise TimeoutError

    async def cancel(self) -> None:
        """Abort the running prompt (``POST /session/:id/abort``), if any."""
        if self._client is not None and self._session_id is not None:
            with contextlib.suppress(Exception):
                await self._client.post(f"/session/{self._session_id}/abort")

    async def _session(self, client: httpx.AsyncClient, resume: str | None) -> str:
        if resume:
            found = await client.get(f"/session/{resume}")
            if found.status_code == 200:
                return resume
        created = await client.post(
            "/session", json={"title": f"agent-tui: {self.name}", "permission": ASK_RULES}
        )
        session = self._json(created, "a new session")
        session_id = session.get("id") if isinstance(session, dict) else None
        if not isinstance(session_id, str):
            raise DelegateError(
                f"{self.name} made a session without an id ({created.text[:200]}); "
                "check that the server is `opencode serve`."
            )
        return session_id

    def _json(self, response: httpx.Response, what: str) -> Any:
        if response.status_code >= 400:
            raise DelegateError(
                f"{self.name} refused {what} ({response.status_code}: {response.text[:300]}); "
                "check its configuration (provider, model) by running `opencode` there."
            )
        try:
            return response.json()
        except ValueError:
            raise DelegateError(
                f"{self.name} answered {what} with something that is not JSON "
                f"({response.text[:200]!r}); check that the server is "
                "`opencode serve`."
            ) from None

    def _result(self, answer: Any, session_id: str, events: _Events) -> DelegateResult:
        info = answer.get("info", {}) if isinstance(answer, dict) else {}
        parts = answer.get("parts", []) if isinstance(answer, dict) else []
        text = "".join(
            p.get("text", "")
            for p in parts
            if isinstance(p, dict) and p.get("type") == "text" and not p.get("synthetic")
        )
        error = info.get("error") if isinstance(info, dict) else None
        stop = "end_turn"
        if isinstance(error, dict):
            if error.get("name") == "MessageAbortedError":
                stop = "cancelled"
            elif error.get("name") == "MessageOutputLengthError":
                stop = "max_tokens"
            else:
                said = (error.get("data") or {}).get("message") or error.get("name")
                raise DelegateError(
                    f"{self.name} failed: {said}. Check its provider and model "
                    "by running `opencode` in the folder."
                )
        cost = info.get("cost") if isinstance(info, dict) else None
        if isinstance(cost, int | float) and isinstance(info, dict):
            events.costs[str(info.get("id"))] = float(cost)
        cost = sum(events.costs.values()) if events.costs else None
        return DelegateResult(
            text=text or "".join(events.answer),
            session_id=session_id,
            stop_reason=stop,
            cost=float(cost) if isinstance(cost, int | float) else None,
        )

    def _unreachable(self, exc: BaseException) -> str:
        where = self.config.url or "the server it started"
        return (
            f"{self.name}: {where} cannot be reached ({type(exc).__name__}: {exc}); start "
            "it with `opencode serve` or fix `url` in "
            f"[delegates.{self.name}] of {self.config.source}."
        )

    @contextlib.asynccontextmanager
    async def _server(self, folder: Path) -> AsyncIterator[str]:
        config = self.config
        if config.url:
            yield config.url
            return
        argv = [config.command, *(config.args or SERVE_ARGS)]
        with tempfile.TemporaryFile() as stderr:
            try:
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    cwd=folder,
                    env=config.environment(),
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=stderr,
                    start_new_session=True,
                )
            except FileNotFoundError:
                raise DelegateError(
                    f"{self.name}: the program {config.command!r} was not found; install it "
                    "(npm install -g opencode-ai) or set `url` or `command` in "
                    f"[delegates.{self.name}] of {config.source}."
                ) from None
            try:
                url = await self._listening(process, stderr, shlex.join(argv))
                yield url
            finally:
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.terminate()
                    try:
                        await asyncio.wait_for(process.wait(), 5)
                    except TimeoutError:
                        with contextlib.suppress(ProcessLookupError):
                            process.kill()
                        await process.wait()

    async def _listening(
        self, process: asyncio.subprocess.Process, stderr: Any, command: str
    ) -> str:
        assert process.stdout is not None

        async def first_url() -> str | None:
            assert process.stdout is not None
            while line := await process.stdout.readline():
                found = _LISTENING.search(line.decode(errors="replace"))
                if found:
                    return found.group(0).rstrip("/")
            return None

        try:
            url = await asyncio.wait_for(first_url(), self.config.start_timeout)
        except TimeoutError:
            raise DelegateError(
                f"{self.name}: `{command}` printed no address within "
                f"{self.config.start_timeout:g} s; run it on its own to see "
                "why, or raise start_timeout."
            ) from None
        if url is None:
            stderr.seek(0)
            tail = stderr.read().decode(errors="replace").strip()[-STDERR_TAIL:]
            said = f" It said: {tail}" if tail else ""
            raise DelegateError(
                f"{self.name}: `{command}` stopped before it listened."
                f"{said} Run it on its own to see why."
            )
        # Its output is not read after this: drained, so a chatty server never blocks.
        asyncio.get_running_loop().create_task(_drain(process.stdout))
        return url


async def _drain(stream: asyncio.StreamReader) -> None:
    with contextlib.suppress(Exception):
        while await stream.read(65536):
            pass


class _Events:
    """Follows ``GET /event`` for one session: reports its parts, answers its permissions."""

    def __init__(self, name: str, host: DelegateHost, client: httpx.AsyncClient) -> None:
        self.name = name
        self.host = host
        self.client = client
        self.session_id: str | None = None
        self.connected = asyncio.Event()
        self.answer: list[str] = []
        self.costs: dict[str, float] = {}
        """Each assistant message's cost: a turn of several steps costs their sum."""
        self._roles: dict[str, str] = {}
        self._kinds: dict[str, str] = {}
        self._shown: dict[str, int] = {}
        self._always: set[str] = set()
        self._asking: set[asyncio.Task[None]] = set()

    async def follow(self) -> None:
        try:
            async with self.client.stream("GET", "/event") as response:
                async for line in response.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    try:
                        event = json.loads(line[5:])
                    except ValueError:
                        continue
                    if isinstance(event, dict):
                        self.handle(event)
        finally:
            for task in self._asking:
                task.cancel()

    def handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        props = event.get("properties") or {}
        if kind == "server.connected":
            self.connected.set()
            return
        if (
            not isinstance(props, dict)
            or props.get("sessionID", self.session_id) != self.session_id
            or self.session_id is None
        ):
            return
        if kind == "message.updated":
            self._message(props.get("info") or {})
        elif kind == "message.part.updated":
            part = props.get("part") or {}
            if self._roles.get(str(part.get("messageID"))) != "user":  # not the prompt's echo
                self._part(part)
        elif kind == "message.part.delta" and props.get("field") == "text":
            self._text(str(props.get("partID")), str(props.get("delta") or ""), delta=True)
        elif kind == "permission.asked":
            task = asyncio.get_running_loop().create_task(self._permission(props))
            self._asking.add(task)
            task.add_done_callback(self._asking.discard)

    def _message(self, info: dict[str, Any]) -> None:
        message_id = str(info.get("id"))
        self._roles[message_id] = str(info.get("role"))
        cost = info.get("cost")
        if info.get("role") == "assistant" and isinstance(cost, int | float):
            self.costs[message_id] = float(cost)

    def _part(self, part: dict[str, Any]) -> None:
        kind, part_id = part.get("type"), str(part.get("id"))
        if kind in ("text", "reasoning"):
            self._kinds[part_id] = kind
            if not part.get("synthetic"):
                self._text(part_id, str(part.get("text") or ""), delta=False)
        elif kind == "tool":
            state = part.get("state") or {}
            if state.get("status") == "pending" and not state.get("input"):
                return  # its arguments are still streaming: shown once it runs
            status = _STATUS.get(str(state.get("status")), "")
            title = state.get("title") or _title(part.get("tool"), state.get("input"))
            update: UpdateKind = (
                "tool_call" if status in ("pending", "in_progress") else "tool_update"
            )
            self.host.report(DelegateUpdate(update, str(title), str(part.get("callID")), status))

    def _text(self, part_id: str, text: str, delta: bool) -> None:
        shown = self._shown.get(part_id, 0)
        piece = text if delta else text[shown:]
        if not piece:
            return
        self._shown[part_id] = shown + len(piece)
        is_answer = self._kinds.get(part_id, "text") == "text"
        if is_answer:
            self.answer.append(piece)
        self.host.report(DelegateUpdate("message" if is_answer else "thought", piece))

    async def _permission(self, asked: dict[str, Any]) -> None:
        permission = str(asked.get("permission") or "tool")
        patterns = [str(p) for p in asked.get("patterns") or []]
        metadata = asked.get("metadata") or {}
        key = f"{permission}:{','.join(patterns)}"
        answer: PermissionAnswer
        if key in self._always:
            answer = "always"
        else:
            details = (
                metadata.get("diff") or metadata.get("command") or json.dumps(metadata, indent=2)
                if metadata
                else ", ".join(patterns)
            )
            title = f"{self.name}: {permission} {', '.join(patterns)}".strip()
            answer = await self.host.ask_permission(
                title, str(details), always=bool(asked.get("always"))
            )
            if answer == "always":
                self._always.add(key)
        body: dict[str, Any] = {"reply": answer}
        if answer == "reject":
            body["message"] = "The person said no; do not retry this."
        with contextlib.suppress(httpx.HTTPError):
            await self.client.post(f"/permission/{asked.get('id')}/reply", json=body)


def _title(tool: Any, arguments: Any) -> str:
    if isinstance(arguments, dict):
        target = arguments.get("filePath") or arguments.get("command") or arguments.get("path")
        if target:
            return f"{tool} {target}"
    return str(tool)
