"""The web_search tool: asks the configured search service (SearXNG, Brave or Tavily) and
gives the model titles, addresses and snippets.

Off until the person turns the network on, like web_fetch (see :mod:`.web`).
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

import httpx
from pydantic import Field

from .base import (
    Confirmation,
    ErrorType,
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
from .web import (
    NETWORK_OFF_MESSAGE,
    USER_AGENT,
    check_network,
    describe_http_error,
    http_client,
    http_status_error,
)

SEARCH_BACKENDS = ("searxng", "brave", "tavily")
"""The search services web_search speaks."""
DEFAULT_KEY_ENV = {"brave": "BRAVE_API_KEY", "tavily": "TAVILY_API_KEY"}
"""Where a backend's key is read from when ``web_search_key_env`` is not set."""
DEFAULT_BASE = {"brave": "https://api.search.brave.com", "tavily": "https://api.tavily.com"}
"""Each hosted backend's address when ``web_search_url`` is not set."""
SEARCH_TIMEOUT_S = 20.0
"""Seconds a search request may take."""
NOT_CONFIGURED = (
    "web search is not configured. Ask the user to set, in config.toml: "
    'web_search_backend = "searxng", "brave" or "tavily"; web_search_url = the SearXNG '
    "instance's address (required for searxng, optional override for brave and tavily); "
    "web_search_key_env = the name of the environment variable holding the API key (brave "
    "and tavily; default BRAVE_API_KEY or TAVILY_API_KEY). Until then, use web_fetch on "
    "pages you know"
)
"""What the model is told when no search service is configured."""


class WebSearchParams(ToolParams):
    """Arguments of web_search."""

    query: str = Field(description="What to search for, e.g. `httpx AsyncClient timeout`.")
    max_results: int = Field(default=5, ge=1, le=20,
                             description="How many results to return, 1 to 20 (default 5).")


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One hit: title, address and a snippet of text."""

    title: str
    url: str
    snippet: str


class WebSearchTool(Tool):
    """Searches the web with the configured service (SearXNG, Brave or Tavily)."""

    name = ToolName.WEB_SEARCH
    kind = ToolKind.FETCH
    description = (
        "Search the web and return numbered results, each with title, URL and snippet. "
        "Read a promising result with web_fetch."
    )
    Params = WebSearchParams

    def validate(self, params: WebSearchParams, ctx: ToolContext) -> None:
        """Refuse when the network is off, no service is configured, or the query is blank."""
        check_network(ctx)
        if not params.query.strip():
            raise ToolArgumentError("query is empty; pass the words to search for")
        if getattr(ctx.settings, "web_search_backend", None) not in SEARCH_BACKENDS:
            raise ToolArgumentError(NOT_CONFIGURED, ErrorType.UNAVAILABLE)

    def create_invocation(self, params: WebSearchParams, ctx: ToolContext) -> WebSearchInvocation:
        """Make the invocation."""
        return WebSearchInvocation(self, params, ctx)


class WebSearchInvocation(Invocation[WebSearchParams]):
    """One web_search call."""

    @property
    def backend(self) -> str:
        """``searxng``, ``brave`` or ``tavily``."""
        return str(getattr(self.ctx.settings, "web_search_backend", None))

    def describe(self) -> str:
        """E.g. ``web_search: httpx timeouts``."""
        return f"web_search: {self.params.query.strip()}"

    def confirmation(self) -> Confirmation:
        """The query and the service it goes to."""
        return Confirmation(kind="info", title=f"Search the web ({self.backend})",
                            details=self.params.query.strip())

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Ask the service and number its results."""
        if not self.ctx.network_enabled:
            return ToolResult.failure(NETWORK_OFF_MESSAGE, error_type=ErrorType.UNAVAILABLE)
        query = self.params.query.strip()
        try:
            results = await self._search(query)
        except _SearchError as exc:
            return ToolResult.failure(str(exc))
        results = results[: self.params.max_results]
        if not results:
            return ToolResult(llm_content=f"No results for {query!r} ({self.backend}); try "
                                          "other or fewer words.",
                              display="no results")
        lines = [f"Search results for {query!r} ({self.backend}):", ""]
        for number, hit in enumerate(results, 1):
            lines.append(f"{number}. {hit.title or '(untitled)'}")
            lines.append(f"   {hit.url}")
            if hit.snippet:
                lines.append(f"   {hit.snippet}")
        return ToolResult(llm_content="\n".join(lines), display=f"{len(results)} results")

    async def _search(self, query: str) -> list[SearchResult]:
        settings = self.ctx.settings
        backend = self.backend
        base = (getattr(settings, "web_search_url", None) or DEFAULT_BASE.get(backend, ""))
        base = base.rstrip("/")
        if not base:
            raise _SearchError(
                "web_search_backend is searxng but web_search_url is not set; ask the user "
                "to set web_search_url in config.toml to the SearXNG instance's address")
        request = self._request(backend, base, query)
        url = str(request.url)
        try:
            async with http_client(SEARCH_TIMEOUT_S) as client:
                response = await client.send(request)
        except httpx.HTTPError as exc:
            raise _SearchError(f"the search service ({backend}) failed: "
                               f"{describe_http_error(exc, url, SEARCH_TIMEOUT_S)}") from None
        if response.status_code >= 400:
            hint = ("; check the API key in the variable named by web_search_key_env"
                    if response.status_code in (401, 403) and backend != "searxng" else
                    "; SearXNG must allow format=json (search.formats in its settings.yml)"
                    if response.status_code == 403 else "; try again later")
            raise _SearchError(http_status_error(response, f"the search service ({backend})")
                               + hint)
        try:
            data = response.json()
        except ValueError:
            raise _SearchError(f"the search service ({backend}) did not answer JSON; check "
                               "web_search_url") from None
        return parse_results(backend, data)

    def _request(self, backend: str, base: str, query: str) -> httpx.Request:
        """The HTTP request of ``backend``'s search API."""
        count = self.params.max_results
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if backend == "searxng":
            return httpx.Request("GET", f"{base}/search", headers=headers,
                                 params={"q": query, "format": "json"})
        key = self._api_key(backend)
        if backend == "brave":
            headers["X-Subscription-Token"] = key
            return httpx.Request("GET", f"{base}/res/v1/web/search", headers=headers,
                                 params={"q": query, "count": count})
        headers["Authorization"] = f"Bearer {key}"
        return httpx.Request("POST", f"{base}/search", headers=headers,
                             json={"api_key": key, "query": query, "max_results": count})

    def _api_key(self, backend: str) -> str:
        env_name = (getattr(self.ctx.settings, "web_search_key_env", None)
                    or DEFAULT_KEY_ENV[backend])
        key = os.environ.get(env_name, "").strip()
        if not key:
            raise _SearchError(
                f"the {backend} search key is missing: the environment variable {env_name} "
                "is not set. Ask the user to export it (or to name another variable with "
                "web_search_key_env in config.toml)")
        return key


class _SearchError(Exception):
    """A search failed; the message is for the model."""


def parse_results(backend: str, data: object) -> list[SearchResult]:
    """The hits in a search service's JSON answer (missing fields become "")."""
    if not isinstance(data, Mapping):
        return []
    if backend == "brave":
        web = data.get("web")
        items = web.get("results") if isinstance(web, Mapping) else None
        snippet_key = "description"
    else:
        items = data.get("results")
        snippet_key = "content"
    out = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, Mapping) or not item.get("url"):
            continue
        out.append(SearchResult(_plain(item.get("title")), str(item["url"]),
                                _plain(item.get(snippet_key))))
    return out


def _plain(value: object) -> str:
    """Text without the tags (``<strong>``) and entities services put in snippets."""
    text = re.sub(r"<[^>]+>", "", str(value or ""))
    return " ".join(html.unescape(text).split())
