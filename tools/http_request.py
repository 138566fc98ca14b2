"""http_request: GLTCH's ``[ACTION:api|METHOD|url|body]`` as a tool — call an HTTP API.

A network tool: refused while the network is off, and it asks first, except a GET (or HEAD)
to a domain the person lists in ``http_allowed_domains``. The response comes back as its
status, its headers and its body cut to a budget, with a note saying how much was left out.
"""

from __future__ import annotations

import json
from typing import Literal
from urllib.parse import urlsplit

import httpx
from pydantic import Field, field_validator

from ..core.safety.permission_rules import url_in_domain
from .base import (
    Invocation,
    OutputCallback,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .names import ToolName
from .web import check_network, http_client, http_failure

Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
BODY_BUDGET = 20_000
"""Characters of a response body the model gets; the rest is counted, not shown."""
MAX_DOWNLOAD_BYTES = 5_000_000
"""Bytes of a response read at most."""
SAFE_METHODS = frozenset({"GET", "HEAD"})


class HttpRequestParams(ToolParams):
    """Arguments of http_request."""

    method: Method = Field(description="GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS.")
    url: str = Field(description="The full http(s) URL, query string included.")
    body: str | None = Field(None, description="The request body (JSON is sent as "
                             "application/json unless headers say otherwise).")
    headers: dict[str, str] | None = Field(None, description="Request headers.")
    timeout: float = Field(30, gt=0, le=300, description="Seconds to wait for the answer.")

    @field_validator("method", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value


def allowed_domain(url: str, settings: object) -> str | None:
    """The entry of ``http_allowed_domains`` that ``url``'s host is (or is under), if any."""
    return next((domain.strip().lower().lstrip(".")
                 for domain in getattr(settings, "http_allowed_domains", None) or ()
                 if url_in_domain(url, domain)), None)


class HttpRequestInvocation(Invocation[HttpRequestParams]):
    """One HTTP request."""

    def describe(self) -> str:
        return f"http_request {self.params.method} {self.params.url}"

    def harmless(self) -> str | None:
        """Why this call needs nobody's approval: a GET to a domain the person allowed."""
        if self.params.method in SAFE_METHODS and (
                domain := allowed_domain(self.params.url, self.ctx.settings)):
            return f"a {self.params.method} to {domain}, in http_allowed_domains"
        return None

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        params = self.params
        headers = dict(params.headers or {})
        content = params.body.encode() if params.body is not None else None
        if content is not None and not any(k.lower() == "content-type" for k in headers):
            headers["Content-Type"] = ("application/json" if _is_json(params.body)
                                       else "text/plain; charset=utf-8")
        try:
            async with http_client(params.timeout, follow_redirects=params.method in
                                   SAFE_METHODS) as client:
                async with client.stream(params.method, params.url, headers=headers,
                                         content=content) as response:
                    data = await _read(response)
        except httpx.HTTPError as exc:
            return http_failure(exc, params.url, params.timeout)
        return ToolResult(_report(response, data), display=(
            f"{response.status_code} {response.reason_phrase} · {len(data):,} bytes"))


async def _read(response: httpx.Response) -> bytes:
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= MAX_DOWNLOAD_BYTES:
            break
    return b"".join(chunks)[:MAX_DOWNLOAD_BYTES]


def _is_json(text: str | None) -> bool:
    try:
        json.loads(text or "")
    except ValueError:
        return False
    return True


def _report(response: httpx.Response, data: bytes) -> str:
    """Status, headers and the body cut to :data:`BODY_BUDGET` characters."""
    lines = [f"HTTP {response.status_code} {response.reason_phrase}"]
    lines += [f"{name}: {value}" for name, value in response.headers.items()]
    kind = response.headers.get("content-type", "")
    if not data:
        body = "(no body)"
    elif _binary(data, kind):
        body = f"(a binary body of {len(data):,} bytes, {kind or 'no content type'}; not shown)"
    else:
        text = data.decode(response.encoding or "utf-8", errors="replace")
        body = text[:BODY_BUDGET]
        if len(text) > BODY_BUDGET:
            body += (f"\n[cut: {len(text) - BODY_BUDGET:,} more characters of "
                     f"{len(text):,}; ask for less (a filter, a page, a range) to see them]")
    truncated = len(data) >= MAX_DOWNLOAD_BYTES
    tail = f"\n[only the first {MAX_DOWNLOAD_BYTES:,} bytes were read]" if truncated else ""
    return "\n".join(lines) + "\n\n" + body + tail


def _binary(data: bytes, kind: str) -> bool:
    if kind.startswith(("text/", "application/json", "application/xml")) or "+json" in kind:
        return False
    return b"\x00" in data[:4096]


class HttpRequestTool(Tool):
    """Calls an HTTP API (GLTCH's api action)."""

    name = ToolName.HTTP_REQUEST
    kind = ToolKind.FETCH
    description = ("Call an HTTP API: method, url, optional body and headers. Returns the "
                   "status, the response headers and the body (cut to 20,000 characters). "
                   "Network tool: off until the user turns the network on.")
    Params = HttpRequestParams

    def validate(self, params: HttpRequestParams, ctx: ToolContext) -> None:
        check_network(ctx)
        if urlsplit(params.url).scheme not in ("http", "https"):
            raise ToolArgumentError(f"{params.url!r} is not an http(s) URL; give the full "
                                    "address, e.g. https://api.example.com/v1/items")

    def create_invocation(self, params: HttpRequestParams,
                          ctx: ToolContext) -> HttpRequestInvocation:
        return HttpRequestInvocation(self, params, ctx)
