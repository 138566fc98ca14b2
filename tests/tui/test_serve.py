"""``agent-tui serve``: the real server process against the fake provider, reached over HTTP
and driven from a real headless Chromium.

textual-serve's page draws the terminal with xterm.js on a canvas (WebGL or 2D), so the
page's text is not in the DOM. Before the page loads, the tests plant a setter for the
property ``terminal`` on ``Object.prototype``: the page's own code runs
``this.terminal = new Terminal(…)``, the setter keeps that xterm.js ``Terminal`` on
``window``, and the screen is read from its buffer (``buffer.active.getLine(n)``).
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.providers import FakeProvider, Reply, ToolCall
from tests.tools.browser.conftest import needs_browser

pytestmark = pytest.mark.skipif(shutil.which("agent-tui") is None,
                                reason="needs the installed agent-tui binary")

URL_LINE = re.compile(r"open (http://127\.0\.0\.1:(\d+)/\?token=([\w-]+))")

KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, "terminal",
                          {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer && typeof value.write === "function") {
      window.__servedTerminal = value;
    }
  },
});
"""
"""Keeps the page's xterm.js Terminal on ``window`` when the page assigns it."""

SCREEN = """
const term = window.__servedTerminal;
if (!term) return "";
const buffer = term.buffer.active, lines = [];
for (let row = 0; row < term.rows; row++) {
  const line = buffer.getLine(buffer.viewportY + row);
  lines.push(line ? line.translateToString(true) : "");
}
return lines.join("\\n");
"""
"""The terminal's visible rows as text."""


@dataclass
class Served:
    """A running ``agent-tui serve``: its process, printed URL and project folder."""

    process: subprocess.Popen[str]
    url: str
    base: str
    token: str
    project: Path


@pytest.fixture
def served(fake_provider: FakeProvider, tmp_path: Path) -> Iterator[Served]:
    """``agent-tui serve`` on a fresh project, in its own process group, killed after."""
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home")}
    process = subprocess.Popen(
        ["agent-tui", "serve", str(project), "--model", "openai/fake-model",
         "--api-base", fake_provider.openai_base, "--api-key", "sk-test"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True)
    try:
        line = _read_line(process, 30)
        found = URL_LINE.search(line)
        assert found, f"no URL in {line!r}"
        url, port, token = found.groups()
        yield Served(process, url, f"http://127.0.0.1:{port}", token, project)
    finally:
        _end_group(process)


def _read_line(process: subprocess.Popen[str], timeout: float) -> str:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    if not ready:
        raise AssertionError(f"agent-tui serve printed nothing within {timeout} s")
    line = process.stdout.readline()
    if not line:
        process.wait(10)
        raise AssertionError(f"agent-tui serve ended with {process.returncode}")
    return line


def _end_group(process: subprocess.Popen[str]) -> None:
    """SIGTERM, then SIGKILL, to the server and every workbench it started."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(wait)
        except subprocess.TimeoutExpired:
            continue
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def _get(url: str, cookie: str | None = None) -> tuple[int, str, str]:
    """Status, body and Set-Cookie of a GET."""
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return (response.status, response.read().decode(),
                    response.headers.get("Set-Cookie", ""))
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), ""


def test_only_the_printed_url_and_its_cookie_get_in(served):
    for path in ("/", "/?token=not-the-token", "/ws", "/static/js/textual.js",
                 "/static/css/xterm.css?token=" + served.token[:-1]):
        status, body, _ = _get(served.base + path)
        assert status == 403, path
        assert "Open the URL agent-tui serve printed" in body
    status, body, cookie = _get(served.url)
    assert status == 200
    assert 'id="terminal"' in body
    assert served.token in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    name_value = cookie.split(";")[0]
    assert _get(served.base + "/static/js/textual.js", name_value)[0] == 200
    assert _get(served.base + "/static/js/textual.js", name_value + "x")[0] == 403


class Page:
    """The served page: its terminal's text and its keyboard."""

    def __init__(self, driver) -> None:
        self.driver = driver

    def screen(self) -> str:
        return self.driver.execute_script(SCREEN) or ""

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in (screen := self.screen()):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared in the page:\n{self.screen()}")

    def type(self, *keys: str) -> None:
        from selenium.webdriver.common.by import By

        # xterm.js listens on its hidden textarea; what it receives goes to the workbench.
        self.driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(*keys)


@pytest.fixture
def page(served) -> Iterator[Page]:
    """Headless Chromium (the browser tools' own launcher) on the printed URL."""
    from agent_tui.tools.browser.session import BrowserOptions, BrowserSession

    session = BrowserSession()
    try:
        session.start(BrowserOptions())
        driver = session.driver()
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                               {"source": KEEP_TERMINAL})
        driver.get(served.url)
        yield Page(driver)
    finally:
        session.close()


@needs_browser
def test_a_prompt_typed_in_the_page_is_answered_in_the_page(served, fake_provider, page):
    from selenium.webdriver.common.keys import Keys

    fake_provider.script(Reply(text="Hello from the fake model in a browser."))
    page.wait_for("mode: default")
    page.type("say hello", Keys.ENTER)
    page.wait_for("Hello from the fake model in a browser.")
    assert fake_provider.requests[0].last_user_text() == "say hello"

    # A SIGTERM to the server alone ends the workbench it started for the page too.
    os.kill(served.process.pid, signal.SIGTERM)
    served.process.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(served.process.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("a workbench outlived the server")


@needs_browser
def test_an_approval_is_answered_in_the_page(served, fake_provider, page):
    from selenium.webdriver.common.keys import Keys

    fake_provider.script(
        Reply(text="I will write the file.",
              tool_calls=[ToolCall("write_file", {"file_path": "greeting.txt",
                                                  "content": "hello from the browser\n"})]),
        Reply(text="Wrote greeting.txt."),
    )
    page.wait_for("mode: default")
    page.type("write a greeting", Keys.ENTER)
    page.wait_for("allow once")
    assert not (served.project / "greeting.txt").exists()
    page.type("y")
    page.wait_for("Wrote greeting.txt.")
    assert (served.project / "greeting.txt").read_text() == "hello from the browser\n"


def test_a_taken_port_and_headless_flags_are_refused_with_what_to_do(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(["agent-tui", "serve", str(tmp_path), "--port", str(port)],
                              capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1 port {port}" in done.stderr
    assert "--port N" in done.stderr
    done = subprocess.run(["agent-tui", "serve", str(tmp_path), "-p", "hi"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "-p, --preview and --image are for headless runs" in done.stderr
