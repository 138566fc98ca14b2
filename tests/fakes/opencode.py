"""A fake ``opencode serve`` for agent-tui's OpenCode route: the subset of its documented
HTTP API (``GET /doc`` of opencode 1.18) the route uses, on 127.0.0.1.

- ``GET /global/health``; ``POST /session`` (records its ``permission`` ruleset);
  ``GET /session/:id`` (404 for unknown ids);
- ``GET /event``: server-sent events, ``server.connected`` first, then the session's
  ``message.part.updated``, ``message.part.delta`` and ``permission.asked``;
- ``POST /session/:id/message``: the turn, answered when it ends with ``{info, parts}``;
- ``POST /permission/:id/reply`` (``once``/``always``/``reject``); ``POST
  /session/:id/abort``.

The prompt steers the turn, as a model would: by default OpenCode's ``write`` tool asks the
``edit`` permission for ``hello.txt`` and, once allowed, writes it in the ``directory`` itself
(on the disk, as OpenCode does), then answers; ``slow`` works until aborted; ``fail`` ends
with a provider error.

Example:
    >>> with FakeOpenCode() as server:
    ...     server.url  # http://127.0.0.1:PORT
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

WRITTEN = "hello from opencode\n"
ANSWER = "I wrote hello.txt."


class FakeOpenCode:
    """The server; ``requests`` lists ``(method, path, body)`` as received."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, Any]] = []
        self.sessions: dict[str, dict[str, Any]] = {}
        self.replies: dict[str, str] = {}
        self.aborted: set[str] = set()
        self._subscribers: list[queue.Queue[dict[str, Any] | None]] = []
        self._waiting: dict[str, threading.Event] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeOpenCode:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for subscriber in list(self._subscribers):
            subscriber.put(None)
        for event in self._waiting.values():
            event.set()
        self._server.shutdown()
        self._server.server_close()

    def next_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids):04d}"

    def publish(self, kind: str, properties: dict[str, Any]) -> None:
        event = {"id": self.next_id("evt"), "type": kind, "properties": properties}
        for subscriber in list(self._subscribers):
            subscriber.put(event)

    # ------------------------------------------------------------------ the turn

    def turn(self, session_id: str, prompt: str, directory: Path) -> dict[str, Any]:
        # As OpenCode does, the prompt comes back on the event stream as a user message first.
        asked_id = self.next_id("msg")
        self.publish(
            "message.updated",
            {
                "sessionID": session_id,
                "info": {
                    "id": asked_id,
                    "sessionID": session_id,
                    "role": "user",
                    "time": {"created": 1},
                },
            },
        )
        self.publish(
            "message.part.updated",
            {
                "sessionID": session_id,
                "time": 1,
                "part": {
                    "id": self.next_id("prt"),
                    "sessionID": session_id,
                    "messageID": asked_id,
                    "type": "text",
                    "text": prompt,
                },
            },
        )
        message_id = self.next_id("msg")
        info: dict[str, Any] = {
            "id": message_id,
            "sessionID": session_id,
            "role": "assistant",
            "cost": 0.0123,
            "time": {"created": 1},
        }
        if "fail" in prompt:
            info["error"] = {"name": "APIError", "data": {"message": "model not found: x/y"}}
            return {"info": info, "parts": []}
        if "slow" in prompt:
            stop = self._waiting.setdefault(f"abort:{session_id}", threading.Event())
            stop.wait(60)
            info["error"] = {"name": "MessageAbortedError", "data": {"message": "aborted"}}
            return {"info": info, "parts": []}
        tool = {
            "id": self.next_id("prt"),
            "sessionID": session_id,
            "messageID": message_id,
            "type": "tool",
            "callID": "call_1",
            "tool": "write",
        }
        args = {"filePath": str(directory / "hello.txt"), "content": WRITTEN}
        self.publish(
            "message.part.updated",
            {
                "sessionID": session_id,
                "time": 1,
                "part": {
                    **tool,
                    "state": {
                        "status": "running",
                        "input": args,
                        "title": "hello.txt",
                        "time": {"start": 1},
                    },
                },
            },
        )
        permission_id = self.next_id("per")
        answered = self._waiting.setdefault(permission_id, threading.Event())
        self.publish(
            "permission.asked",
            {
                "id": permission_id,
                "sessionID": session_id,
                "permission": "edit",
                "patterns": ["hello.txt"],
                "always": ["*"],
                "metadata": {
                    "filepath": str(directory / "hello.txt"),
                    "diff": f"+++ hello.txt\n+{WRITTEN}",
                },
                "tool": {"messageID": message_id, "callID": "call_1"},
            },
        )
        answered.wait(60)
        allowed = self.replies.get(permission_id) in ("once", "always")
        if allowed:
            (directory / "hello.txt").write_text(WRITTEN)
        state = (
            {
                "status": "completed",
                "input": args,
                "output": "Wrote file",
                "title": "hello.txt",
                "metadata": {},
                "time": {"start": 1, "end": 2},
            }
            if allowed
            else {
                "status": "error",
                "input": args,
                "error": "The user rejected permission",
                "time": {"start": 1, "end": 2},
            }
        )
        self.publish(
            "message.part.updated",
            {"sessionID": session_id, "time": 2, "part": {**tool, "state": state}},
        )
        answer = ANSWER if allowed else "You said no; nothing written."
        text = {
            "id": self.next_id("prt"),
            "sessionID": session_id,
            "messageID": message_id,
            "type": "text",
            "text": "",
            "time": {"start": 2},
        }
        self.publish("message.part.updated", {"sessionID": session_id, "time": 2, "part": text})
        for piece in (answer[:5], answer[5:]):
            self.publish(
                "message.part.delta",
                {
                    "sessionID": session_id,
                    "messageID": message_id,
                    "partID": text["id"],
                    "field": "text",
                    "delta": piece,
                },
            )
        return {"info": info, "parts": [{**text, "text": answer}]}


def _handler(server: FakeOpenCode) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(length)) if length else None

        def do_GET(self) -> None:
            url = urlparse(self.path)
            server.requests.append(("GET", url.path, None))
            if url.path == "/global/health":
                self._send(200, {"healthy": True, "version": "fake"})
            elif url.path == "/event":
                self._events()
            elif url.path.startswith("/session/"):
                session = server.sessions.get(url.path.split("/")[2])
                self._send(200, session) if session else self._send(
                    404, {"name": "NotFoundError", "data": {"message": "no such session"}}
                )
            else:
                self._send(404, {"name": "NotFoundError", "data": {"message": url.path}})

        def do_POST(self) -> None:
            url = urlparse(self.path)
            body = self._body()
            server.requests.append(("POST", url.path, body))
            parts = url.path.strip("/").split("/")
            directory = Path(parse_qs(url.query).get("directory", ["."])[0])
            if parts == ["session"]:
                session = {
                    "id": server.next_id("ses"),
                    "directory": str(directory),
                    "title": body.get("title", ""),
                    "permission": body.get("permission"),
                }
                server.sessions[session["id"]] = session
                self._send(200, session)
            elif len(parts) == 3 and parts[0] == "session" and parts[2] == "message":
                prompt = "".join(p.get("text", "") for p in body["parts"])
                self._send(200, server.turn(parts[1], prompt, directory))
            elif len(parts) == 3 and parts[0] == "session" and parts[2] == "abort":
                server.aborted.add(parts[1])
                server._waiting.setdefault(f"abort:{parts[1]}", threading.Event()).set()
                self._send(200, True)
            elif len(parts) == 3 and parts[0] == "permission" and parts[2] == "reply":
                server.replies[parts[1]] = body["reply"]
                server._waiting.setdefault(parts[1], threading.Event()).set()
                self._send(200, True)
            else:
                self._send(404, {"name": "NotFoundError", "data": {"message": url.path}})

        def _events(self) -> None:
            feed: queue.Queue[dict[str, Any] | None] = queue.Queue()
            server._subscribers.append(feed)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            feed.put({"id": server.next_id("evt"), "type": "server.connected", "properties": {}})
            try:
                while (event := feed.get()) is not None:
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
            except OSError:
                pass
            finally:
                server._subscribers.remove(feed)

    return Handler
