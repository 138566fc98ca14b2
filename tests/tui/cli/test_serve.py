"""``agent-tui serve``: the real server process against the fake provider, reached over HTTP
and driven from a real headless Chromium.

textual-serve's page draws the terminal with xterm.js on a canvas (WebGL or 2D), so the
page's text is not in the DOM. Before the page loads, the tests plant a setter for the
property ``terminal`` on ``Object.prototype``: the page's own code runs
``this.terminal = new Terminal(…)``, the setter keeps that xterm.js ``Terminal`` on
``window``, and the screen is read from its buffer (``buffer.active.getLine(n)``).

Every process the server starts (workbenches, and what they start) inherits a variable with
a value of the test's own (:data:`MARK`), so the tests find each one, wherever it was
reparented, and check that none is left when its page or the server is gone.
"""

from __future__ import annotations

import contextlib
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
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fakes.providers import FakeProvider, Reply, ToolCall
from tests.tools.browser.conftest import needs_browser

if TYPE_CHECKING:
    from agent_tui.tools.browser.session import BrowserSession

pytestmark = pytest.mark.skipif(shutil.which("agent-tui") is None,
                                reason="needs the installed agent-tui binary")

MARK = "AGENT_TUI_SERVE_TEST_MARK"
"""The variable that marks the processes of one test's server."""
ENDED_WITHIN_S = 30.0
"""How long a workbench may take to end; the server's own limit is about 5 s (it waits
3 s for a quit, 2 s after SIGTERM), the rest is for a loaded machine."""
RSS_LIMIT_KB = 1_000_000
"""Above this, a process still running is growing without bound (a workbench uses ~330 MB)."""
BIG_WINDOW = (2400, 1500)
"""A browser window whose first frames fill a pipe (64 KB) several times over."""

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
    mark: str
    env: dict[str, str]

    def workbenches(self) -> dict[int, str]:
        """Every process the server started that runs now: pid to command line."""
        return {pid: command for pid, command in marked_processes(self.mark).items()
                if pid != self.process.pid}

    def assert_nothing_left(self, since: str) -> None:
        """Wait until no process the server started runs; each sample of each one's memory
        on the way stays under RSS_LIMIT_KB."""
        deadline = time.monotonic() + ENDED_WITHIN_S
        while left := self.workbenches():
            for pid, command in left.items():
                rss = rss_kb(pid)
                assert rss is None or rss < RSS_LIMIT_KB, (
                    f"{command} (pid {pid}) uses {rss} kB {since}")
            if time.monotonic() > deadline:
                raise AssertionError(f"still running {ENDED_WITHIN_S} s {since}: " + "; ".join(
                    f"{command} (pid {pid}, {rss_kb(pid)} kB, state {state_of(pid)})"
                    for pid, command in left.items()))
            time.sleep(0.5)

    def wait_for_a_workbench(self, timeout: float = 30.0) -> int:
        """The pid of the first workbench the server starts."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if started := self.workbenches():
                return min(started)
            time.sleep(0.01)
        raise AssertionError(f"the server started no workbench within {timeout} s")


def marked_processes(mark: str) -> dict[int, str]:
    """Every running process whose environment has MARK=mark: pid to command line."""
    wanted = f"{MARK}={mark}".encode()
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as environ:
                if wanted not in environ.read().split(b"\0"):
                    continue  # a zombie's is empty: it runs no more
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                found[int(entry.name)] = cmdline.read().replace(b"\0", b" ").decode()
        except OSError:
            continue
    return found


def rss_kb(pid: int) -> int | None:
    """The resident memory of ``pid`` in kB; None once it has ended."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def state_of(pid: int) -> str:
    """The process's state letter (R running, S sleeping, Z zombie...) or "gone"."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


@pytest.fixture
def served(fake_provider: FakeProvider, tmp_path: Path) -> Iterator[Served]:
    """``agent-tui serve`` on a fresh project, in its own process group, killed after."""
    project = tmp_path / "project"
    project.mkdir()
    mark = uuid.uuid4().hex
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / "home"), MARK: mark}
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
        yield Served(process, url, f"http://127.0.0.1:{port}", token, project, mark, env)
    finally:
        _end_group(process)
        for pid in marked_processes(mark):  # nothing a failed test left runs on
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


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
        self.handle = driver.current_window_handle
        """The page's tab."""

    def screen(self) -> str:
        return self.driver.execute_script(SCREEN) or ""

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in (screen := self.screen()):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared in the page:\n{self.screen()}")

    def wait_gone(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text not in (screen := self.screen()):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never left the page:\n{self.screen()}")

    def type(self, *keys: str) -> None:
        from selenium.webdriver.common.by import By

        # xterm.js listens on its hidden textarea; what it receives goes to the workbench.
        self.driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(*keys)


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserSession]:
    """One headless Chromium (the browser tools' own launcher) for the module's pages."""
    from agent_tui.tools.browser.session import BrowserOptions, BrowserSession

    session = BrowserSession()
    try:
        session.start(BrowserOptions())
        yield session
    finally:
        session.close()


def open_page(session: BrowserSession, url: str, size: tuple[int, int] | None = None) -> Page:
    """A new tab of ``session`` on ``url`` (its window ``size`` first, if given)."""
    driver = session.driver()
    driver.switch_to.new_window("tab")
    if size is not None:
        driver.set_window_size(*size)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": KEEP_TERMINAL})
    driver.get(url)
    return Page(driver)


def close_page(page: Page) -> None:
    """Close the page's tab and go to another one (the browser keeps one open)."""
    driver = page.driver
    if page.handle in driver.window_handles and len(driver.window_handles) > 1:
        driver.switch_to.window(page.handle)
        driver.close()
        driver.switch_to.window(driver.window_handles[0])


@pytest.fixture
def page(served, browser) -> Iterator[Page]:
    """A tab on the printed URL, closed after the test."""
    opened = open_page(browser, served.url)
    try:
        yield opened
    finally:
        close_page(opened)


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
    page.wait_gone("keys work in")  # the modal's key guard: a person reads it first
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


@needs_browser
def test_a_closed_tab_ends_its_workbench_and_its_session_resumes(served, fake_provider,
                                                                   browser):
    from selenium.webdriver.common.keys import Keys

    fake_provider.script(Reply(text="Hello before the tab closed."), Reply(text="Hello again."))
    page = open_page(browser, served.url)
    try:
        page.wait_for("mode: default")
        page.type("say hello", Keys.ENTER)
        page.wait_for("Hello before the tab closed.")
    finally:
        close_page(page)
    served.assert_nothing_left("after its tab closed")

    done = subprocess.run(
        ["agent-tui", str(served.project), "--continue", "-p", "and again",
         "--model", "openai/fake-model", "--api-base", fake_provider.openai_base,
         "--api-key", "sk-test"],
        env=served.env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Hello again." in done.stdout
    said = [message.get("content") for message in fake_provider.requests[-1].messages]
    assert "say hello" in said and "Hello before the tab closed." in said


@needs_browser
def test_a_tab_closed_while_its_workbench_starts_ends_it(served, browser):
    page = open_page(browser, served.url, BIG_WINDOW)
    try:
        served.wait_for_a_workbench()
    finally:
        close_page(page)
    served.assert_nothing_left("after its tab closed while it started")


@needs_browser
def test_a_tab_closed_while_its_workbench_is_stuck_ends_it(served, browser):
    page = open_page(browser, served.url)
    try:
        page.wait_for("mode: default")
        # Stopped, it heeds the quit and SIGTERM no more than a workbench blocked on a
        # full pipe (nobody reading its frames) does: only SIGKILL ends it.
        make_stuck(served)
    finally:
        close_page(page)
    served.assert_nothing_left("after its tab closed")


@needs_browser
def test_a_killed_browser_ends_its_workbench(served):
    from agent_tui.tools.browser.session import BrowserOptions, BrowserSession

    session = BrowserSession()
    try:
        session.start(BrowserOptions())
        page = open_page(session, served.url)
        page.wait_for("mode: default")
        session.kill()  # SIGKILL to every browser process: the connection just drops
        served.assert_nothing_left("after the browser was killed")
    finally:
        session.close()


@needs_browser
@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                         ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_the_server_ending_ends_every_workbench(served, browser, sent):
    """Three pages: one idle, one stuck (not with SIGKILL: a stopped process notices no
    pipe closing), one whose workbench is starting; the server alone gets the signal."""
    pages = []
    try:
        for _ in range(1 if sent == signal.SIGKILL else 2):
            pages.append(open_page(browser, served.url))
            pages[-1].wait_for("mode: default")
        if sent != signal.SIGKILL:
            make_stuck(served)
        before = len(workbench_pids(served))
        pages.append(open_page(browser, served.url, BIG_WINDOW))
        deadline = time.monotonic() + 30
        while len(workbench_pids(served)) == before and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(served.process.pid, sent)  # not its process group, as a terminal would
        served.process.wait(30)
        served.assert_nothing_left(f"after the server got {sent.name}")
    finally:
        for page in pages:
            close_page(page)


def workbench_pids(served: Served) -> list[int]:
    """The workbench processes the server started (not the shell that may start one, nor
    what a workbench started), oldest first."""
    return sorted(pid for pid, command in served.workbenches().items()
                  if "agent_tui.tui.cli.main" in command and not command.startswith("/bin/sh"))


def make_stuck(served: Served) -> None:
    """Stop the newest workbench (SIGSTOP): from now on only SIGKILL ends it."""
    os.kill(workbench_pids(served)[-1], signal.SIGSTOP)
