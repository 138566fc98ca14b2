"""Tests of web_fetch and web_search against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from agent_tui.core.config import Settings
from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.web import NETWORK_OFF_MESSAGE, WebFetchTool
from agent_tui.tools.web_search import WebSearchTool
from tests.core.loop_helpers import run as run_headless
from tests.fakes.providers import Reply, ToolCall


@dataclass
class Page:
    """What the local site answers on one path."""

    body: bytes | str = b""
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class SeenRequest:
    """A request the local site received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


Route = Page | Callable[[SeenRequest], Page]


class LocalSite:
    """An http.server on 127.0.0.1 in a thread, answering scripted pages by path."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[SeenRequest] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                seen = SeenRequest(self.command, parts.path, parse_qs(parts.query),
                                   {k.lower(): v for k, v in self.headers.items()},
                                   self.rfile.read(length) if length else b"")
                site.requests.append(seen)
                route = site.routes.get(parts.path, Page("not here", "text/plain", 404))
                page = route(seen) if callable(route) else route
                if page.delay:
                    time.sleep(page.delay)
                body = page.body.encode() if isinstance(page.body, str) else page.body
                try:
                    self.send_response(page.status)
                    self.send_header("Content-Type", page.content_type)
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in page.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True)

    def __enter__(self) -> LocalSite:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        """The address of ``path`` on this site."""
        return self.base + path


@pytest.fixture
def site() -> Iterator[LocalSite]:
    with LocalSite() as s:
        yield s


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", network_enabled=True)


async def fetch(ctx: ToolContext, **args: Any):
    return await WebFetchTool().build(args, ctx).execute()


GUIDE = """<!doctype html>
<html><head><title>The  Widget Guide</title>
<style>body { color: red }</style><script>var tracking = "secret-script";</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/menu">Menu entry</a></nav>
<main>
<h1>Widgets</h1>
<p>Widgets are <b>small</b>. See <a href="/docs/install.html">the install guide</a>.</p>
<h2>Example</h2>
<pre><code class="language-python">import widgets
widgets.make(3)
</code></pre>
<ul><li>fast</li><li>cheap</li></ul>
</main>
<footer><script>alert("x")</script></footer>
</body></html>"""


# -- web_fetch -----------------------------------------------------------------------------


async def test_html_becomes_markdown(site: LocalSite, ctx: ToolContext) -> None:
    site.routes["/guide"] = Page(GUIDE)

    result = await fetch(ctx, url=site.url("/guide"))

    assert result.ok, result.llm_content
    text = result.llm_content
    assert f"URL: {site.url('/guide')}" in text
    assert "Title: The Widget Guide" in text
    assert "# Widgets" in text and "## Example" in text
    assert "Widgets are **small**." in text
    assert f"[the install guide]({site.url('/docs/install.html')})" in text  # absolute link
    assert "```python\nimport widgets\nwidgets.make(3)\n```" in text
    assert "- fast\n- cheap" in text
    for dropped in ("secret-script", "color: red", "Menu entry", "alert"):
        assert dropped not in text
    assert site.requests[0].headers["user-agent"].startswith("agent-tui")


async def test_plain_text_and_json_pass_through(site: LocalSite, ctx: ToolContext) -> None:
    site.routes["/notes.txt"] = Page("line one\n<b>not html</b>\n", "text/plain; charset=utf-8")
    site.routes["/api"] = Page('{"name": "widget", "sizes": [1, 2]}', "application/json")

    text = await fetch(ctx, url=site.url("/notes.txt"))
    data = await fetch(ctx, url=site.url("/api"))

    assert text.ok and text.llm_content.endswith("line one\n<b>not html</b>")
    assert data.ok and json.loads(data.llm_content.split("\n\n", 1)[1]) == {
        "name": "widget", "sizes": [1, 2]}


async def test_other_content_types_are_refused(site: LocalSite, ctx: ToolContext) -> None:
    site.routes["/paper.pdf"] = Page(b"%PDF-1.7 ...", "application/pdf")

    result = await fetch(ctx, url=site.url("/paper.pdf"))

    assert not result.ok
    assert "application/pdf" in result.error and "shell" in result.error


async def test_redirects_are_followed(site: LocalSite, ctx: ToolContext) -> None:
    site.routes["/old"] = Page(status=301, headers={"Location": "/new"})
    site.routes["/new"] = Page("<h1>Moved here</h1>")

    result = await fetch(ctx, url=site.url("/old"))

    assert result.ok
    assert f"URL: {site.url('/new')}" in result.llm_content
    assert f"(redirected from {site.url('/old')})" in result.llm_content
    assert "# Moved here" in result.llm_content


async def test_redirect_loop_gives_up(site: LocalSite, ctx: ToolContext) -> None:
    site.routes["/loop"] = Page(status=302, headers={"Location": "/loop"})

    result = await fetch(ctx, url=site.url("/loop"))

    assert not result.ok
    assert "redirected more than 5 times" in result.error
    assert len(site.requests) == 6


async def test_http_error_names_status_and_reason(site: LocalSite, ctx: ToolContext) -> None:
    site.routes["/boom"] = Page("oops", "text/plain", 503)

    result = await fetch(ctx, url=site.url("/missing"))
    failed = await fetch(ctx, url=site.url("/boom"))

    assert not result.ok
    assert "answered 404 Not Found" in result.error and "check the address" in result.error
    assert "answered 503 Service Unavailable" in failed.error and "try again" in failed.error


async def test_timeout(site: LocalSite, ctx: ToolContext) -> None:
    site.routes["/slow"] = Page("late", "text/plain", delay=2)

    started = time.monotonic()
    result = await fetch(ctx, url=site.url("/slow"), timeout=0.3)

    assert time.monotonic() - started < 1.5
    assert not result.ok
    assert "timed out after 0.3 s" in result.error and "larger timeout" in result.error


async def test_connection_refused_and_dns_failure(ctx: ToolContext) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    refused = await fetch(ctx, url=f"http://127.0.0.1:{port}/")
    unknown = await fetch(ctx, url="http://no-such-host.invalid/", timeout=10)

    assert not refused.ok and "could not connect to 127.0.0.1" in refused.error
    assert not unknown.ok
    assert "no-such-host.invalid" in unknown.error


async def test_long_pages_are_cut_with_a_note(site: LocalSite, ctx: ToolContext) -> None:
    site.routes["/big.txt"] = Page("x" * 50_000, "text/plain")

    result = await fetch(ctx, url=site.url("/big.txt"), max_chars=1000)

    assert result.ok
    body = result.llm_content.split("\n\n")[1]
    assert body == "x" * 1000
    assert "[truncated: showing the first 1,000 of 50,000 characters" in result.llm_content
    assert "larger max_chars" in result.llm_content


async def test_network_off_is_refused_before_anything_runs(tmp_path: Path) -> None:
    off = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")
    with pytest.raises(ToolArgumentError, match="/net on or --net"):
        WebFetchTool().build({"url": "http://127.0.0.1:9/"}, off)
    with pytest.raises(ToolArgumentError, match="/net on or --net"):
        WebSearchTool().build({"query": "x"}, off)


def test_only_http_addresses(ctx: ToolContext) -> None:
    for url in ("file:///etc/passwd", "ftp://example.com/x", "example.com"):
        with pytest.raises(ToolArgumentError, match="http:// or https://"):
            WebFetchTool().build({"url": url}, ctx)


def test_confirmation_shows_the_url(ctx: ToolContext) -> None:
    invocation = WebFetchTool().build({"url": "https://example.com/a"}, ctx)
    confirmation = invocation.confirmation()
    assert WebFetchTool.kind == ToolKind.FETCH
    assert confirmation.kind == "info" and confirmation.details == "https://example.com/a"
    assert invocation.describe() == "web_fetch: https://example.com/a"


async def test_headless_run_tells_the_model_how_to_turn_the_network_on(
        fake_provider, tmp_path: Path) -> None:
    fake_provider.script(
        Reply(tool_calls=[ToolCall("web_fetch", {"url": "https://example.com/"})]),
        Reply(text="The network is off; please run /net on."),
    )

    outcome = await run_headless(fake_provider, tmp_path, "read example.com")

    assert outcome.code == 0, outcome.stderr
    [result] = fake_provider.requests[1].tool_results()
    assert NETWORK_OFF_MESSAGE in result["content"]
    assert "/net on" in result["content"] and "--net" in result["content"]
    assert outcome.of_type("tool_result")[0]["ok"] is False


# -- web_search ----------------------------------------------------------------------------


def search_ctx(tmp_path: Path, **settings: Any) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", network_enabled=True,
                       settings=Settings(**settings))


async def search(ctx: ToolContext, **args: Any):
    return await WebSearchTool().build(args, ctx).execute()


async def test_searxng(site: LocalSite, tmp_path: Path) -> None:
    site.routes["/searx/search"] = Page(json.dumps({"results": [
        {"title": "httpx docs", "url": "https://www.python-httpx.org/", "content": "A client."},
        {"title": "Timeouts", "url": "https://www.python-httpx.org/advanced/timeouts/",
         "content": "Fine-grained &amp; <em>strict</em>."},
        {"title": "Third", "url": "https://example.com/3", "content": ""},
    ]}), "application/json")
    ctx = search_ctx(tmp_path, web_search_backend="searxng",
                     web_search_url=site.url("/searx/"))

    result = await search(ctx, query="httpx timeout", max_results=2)

    assert result.ok, result.llm_content
    [request] = site.requests
    assert request.method == "GET"
    assert request.query == {"q": ["httpx timeout"], "format": ["json"]}
    assert result.llm_content == (
        "Search results for 'httpx timeout' (searxng):\n\n"
        "1. httpx docs\n   https://www.python-httpx.org/\n   A client.\n"
        "2. Timeouts\n   https://www.python-httpx.org/advanced/timeouts/\n"
        "   Fine-grained & strict.")


async def test_brave(site: LocalSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_BRAVE_KEY", "brave-secret")
    site.routes["/res/v1/web/search"] = Page(json.dumps({"web": {"results": [
        {"title": "<strong>Rust</strong> errors", "url": "https://doc.rust-lang.org/book/",
         "description": "Recoverable <strong>errors</strong> with Result."}]}}),
        "application/json")
    ctx = search_ctx(tmp_path, web_search_backend="brave", web_search_url=site.base,
                     web_search_key_env="MY_BRAVE_KEY")

    result = await search(ctx, query="rust error handling", max_results=3)

    assert result.ok, result.llm_content
    [request] = site.requests
    assert request.headers["x-subscription-token"] == "brave-secret"
    assert request.query == {"q": ["rust error handling"], "count": ["3"]}
    assert "1. Rust errors\n   https://doc.rust-lang.org/book/\n   Recoverable errors with " \
           "Result." in result.llm_content


async def test_tavily(site: LocalSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-secret")  # the default variable
    site.routes["/search"] = Page(json.dumps({"results": [
        {"title": "Textual", "url": "https://textual.textualize.io/", "content": "TUI."}]}),
        "application/json")
    ctx = search_ctx(tmp_path, web_search_backend="tavily", web_search_url=site.base)

    result = await search(ctx, query="python tui")

    assert result.ok, result.llm_content
    [request] = site.requests
    assert request.method == "POST"
    assert request.json() == {"api_key": "tvly-secret", "query": "python tui", "max_results": 5}
    assert "1. Textual\n   https://textual.textualize.io/\n   TUI." in result.llm_content


async def test_no_results(site: LocalSite, tmp_path: Path) -> None:
    site.routes["/search"] = Page('{"results": []}', "application/json")
    ctx = search_ctx(tmp_path, web_search_backend="searxng", web_search_url=site.base)

    result = await search(ctx, query="zzzz")

    assert result.ok and result.llm_content.startswith("No results for 'zzzz'")


async def test_search_service_errors(site: LocalSite, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "wrong")
    site.routes["/res/v1/web/search"] = Page('{"error": "bad key"}', "application/json", 401)
    brave = search_ctx(tmp_path, web_search_backend="brave", web_search_url=site.base)
    site.routes["/search"] = Page("<html>not json</html>")
    searx = search_ctx(tmp_path, web_search_backend="searxng", web_search_url=site.base)

    unauthorized = await search(brave, query="x")
    not_json = await search(searx, query="x")

    assert "answered 401 Unauthorized" in unauthorized.error
    assert "web_search_key_env" in unauthorized.error
    assert "did not answer JSON" in not_json.error


async def test_missing_key_names_the_variable(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    ctx = search_ctx(tmp_path, web_search_backend="brave")

    result = await search(ctx, query="x")

    assert not result.ok
    assert "BRAVE_API_KEY is not set" in result.error


def test_no_backend_names_the_settings(tmp_path: Path) -> None:
    for ctx in (search_ctx(tmp_path), ToolContext(workdir=tmp_path, output_dir=tmp_path,
                                                  network_enabled=True)):
        with pytest.raises(ToolArgumentError) as info:
            WebSearchTool().build({"query": "x"}, ctx)
        message = str(info.value)
        for setting in ("web_search_backend", "web_search_url", "web_search_key_env",
                        "config.toml"):
            assert setting in message


async def test_searxng_without_url(tmp_path: Path) -> None:
    result = await search(search_ctx(tmp_path, web_search_backend="searxng"), query="x")
    assert not result.ok and "web_search_url is not set" in result.error
