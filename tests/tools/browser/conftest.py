"""A local web site for the browser tools to drive, and the context they run in.

The pages are served by a real HTTP server on 127.0.0.1; the form's submissions and the
requests it received are recorded for the tests to check.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from agent_tui.tools.base import ToolContext
from agent_tui.tools.browser import browser_tools

HAVE_BROWSER = bool(shutil.which("chromium") and shutil.which("chromedriver"))
needs_browser = pytest.mark.skipif(
    not HAVE_BROWSER, reason="Chromium and chromedriver are not installed "
    "(Debian: apt-get install chromium chromium-driver)")

FORM = """<!doctype html><title>Sign up</title>
<h1 id=heading>Sign up</h1>
<form action=/submit method=get>
  <input name=email placeholder="Email"> <input name=age type=number>
  <button id=send type=submit>Send</button>
</form>
<button id=more onclick="const li = document.createElement('li');
  li.textContent = 'item ' + (document.querySelectorAll('#list li').length + 1);
  document.getElementById('list').append(li)">Add item</button>
<ul id=list><li>item 1</li></ul>
<p id=hidden style="display:none">secret</p>
<a id=next href=/second>Second page</a>
<p>""" + "filler text " * 1500 + "</p>"

SECOND = "<!doctype html><title>Second</title><p id=where>the second page</p>"


class Site:
    """The served site: its base URL and what it received."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.submissions: list[dict[str, list[str]]] = []
        self.paths: list[str] = []


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            parts = urlsplit(self.path)
            site.paths.append(parts.path)
            if parts.path == "/slow":
                time.sleep(5)
            if parts.path == "/submit":
                site.submissions.append(parse_qs(parts.query))
                body = "<!doctype html><title>Thanks</title><p id=done>Thanks!</p>"
            elif parts.path == "/second":
                body = SECOND
            else:
                body = FORM
            data = body.encode()
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


@pytest.fixture
def site() -> Iterator[Site]:
    """The site on a free port of 127.0.0.1."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    site = Site(f"http://127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(site)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield site
    server.shutdown()
    server.server_close()


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[ToolContext]:
    """A tool context on ``tmp_path`` whose browser is closed after the test."""
    context = ToolContext(workdir=tmp_path, output_dir=tmp_path / ".out", supports_images=True)
    yield context
    context.close()


TOOLS = {tool.name: tool for tool in browser_tools()}


async def call(ctx: ToolContext, name: str, **args: object):
    """Build and run one browser tool call, as the engine does."""
    return await TOOLS[name].build(args, ctx).execute()
