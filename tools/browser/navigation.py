"""Browser tools that open, move between and close pages: webdriver_start, _navigate,
_get_url, _get_title, _back, _forward, _refresh and _quit.

Pages on loopback (localhost, 127.0.0.0/8, ::1) and ``file://`` pages are always allowed;
every other address needs the network switch on, like web_fetch.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pydantic import Field

from ..base import Tool, ToolArgumentError, ToolContext, ToolKind, ToolParams, ToolResult
from ..names import ToolName
from ..web import NETWORK_OFF_MESSAGE
from .calls import BrowserInvocation, browser_options
from .session import DEFAULT_PAGE_LOAD_TIMEOUT, BrowserSession, page_line

_ALWAYS_ALLOWED_SCHEMES = ("about", "data")
_HOST_PORT = re.compile(r"[A-Za-z0-9.-]+:[0-9]+(?:[/?#]|$)")  # localhost:8000/x


def is_loopback(host: str | None) -> bool:
    """True for ``localhost``, ``*.localhost`` and loopback addresses."""
    if not host:
        return False
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def file_url_path(url: str) -> Path | None:
    """The local path of a ``file://`` URL, or None for other URLs."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "file":
        return None
    return Path(unquote(parts.path))


def check_url(url: str, ctx: ToolContext) -> str:
    """The URL to open, with ``http://`` added to a bare ``host:port/path``.

    Raises:
        ToolArgumentError: a scheme the browser tools do not open, or a remote address while
            the network is off.
    """
    url = url.strip()
    if not urlsplit(url).scheme or _HOST_PORT.match(url):
        url = "http://" + url
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in _ALWAYS_ALLOWED_SCHEMES or scheme == "file":
        return url
    if scheme not in ("http", "https"):
        raise ToolArgumentError(
            f"{scheme}: addresses cannot be opened; use an http://, https:// or file:// URL")
    if not is_loopback(parts.hostname) and not ctx.network_enabled:
        raise ToolArgumentError(
            f"{url} is not on this machine (loopback), and {NETWORK_OFF_MESSAGE}")
    return url


# -- webdriver_start -----------------------------------------------------------------


class StartParams(ToolParams):
    """Arguments of webdriver_start."""

    headless: bool | None = Field(
        default=None,
        description="Optional: false opens a visible window (needs a display); default: "
                    "headless unless chrome_headless = false in config.")
    url: str | None = Field(default=None, description="Optional: a page to open at once.")


class WebdriverStartTool(Tool):
    """Starts the session's browser (restarting one that runs)."""

    name = ToolName.WEBDRIVER_START
    kind = ToolKind.READ
    description = (
        "Start a Chromium browser for this session (headless by default), restarting one "
        "that runs. Other webdriver_* tools use it: navigate, find elements by CSS selector, "
        "click, type, run JavaScript, read the page source, take screenshots. Pages on "
        "localhost and file:// URLs always open; other sites need the network on.")
    Params = StartParams

    def validate(self, params: StartParams, ctx: ToolContext) -> None:
        """Check the optional URL."""
        if params.url:
            params.url = check_url(params.url, ctx)

    def create_invocation(self, params: StartParams, ctx: ToolContext) -> StartInvocation:
        """Make the invocation."""
        return StartInvocation(self, params, ctx)


class StartInvocation(BrowserInvocation[StartParams]):
    """One webdriver_start call."""

    needs = "nothing"

    def describe(self) -> str:
        """E.g. ``webdriver_start (headless)``."""
        mode = {None: "", True: " (headless)", False: " (visible)"}[self.params.headless]
        return f"webdriver_start{mode}" + (f" {self.params.url}" if self.params.url else "")

    def locations(self) -> list[Path]:
        """A file:// page it opens."""
        path = file_url_path(self.params.url or "")
        return [path] if path else []

    def run(self, session: BrowserSession) -> ToolResult:
        """Start (or restart) the browser, then open the URL."""
        restarted = session.running
        line = session.start(browser_options(self.ctx, headless=self.params.headless))
        if restarted:
            line = "The browser that ran was closed. " + line
        if self.params.url:
            session.driver().get(self.params.url)
            line += "\n" + page_line(session)
        return ToolResult(llm_content=line)


# -- webdriver_navigate ----------------------------------------------------------------


class NavigateParams(ToolParams):
    """Arguments of webdriver_navigate."""

    url: str = Field(description="The address with its protocol, e.g. "
                                 "`http://localhost:8000/login` or `file:///path/page.html`.")
    timeout: float = Field(default=DEFAULT_PAGE_LOAD_TIMEOUT, gt=0, le=300,
                           description="Seconds to wait for the page to load (default 30).")


class WebdriverNavigateTool(Tool):
    """Opens a URL in the session's browser (starting it when needed)."""

    name = ToolName.WEBDRIVER_NAVIGATE
    kind = ToolKind.READ
    description = (
        "Open a URL in the browser (started if none runs) and wait for the page to load; "
        "returns the page's title and final URL. localhost and file:// always work; other "
        "sites need the network on.")
    Params = NavigateParams

    def validate(self, params: NavigateParams, ctx: ToolContext) -> None:
        """Refuse schemes the browser tools do not open, and remote pages while offline."""
        params.url = check_url(params.url, ctx)

    def create_invocation(self, params: NavigateParams, ctx: ToolContext) -> NavigateInvocation:
        """Make the invocation."""
        return NavigateInvocation(self, params, ctx)


class NavigateInvocation(BrowserInvocation[NavigateParams]):
    """One webdriver_navigate call."""

    needs = "browser"

    def describe(self) -> str:
        """E.g. ``webdriver_navigate http://localhost:8000``."""
        return f"webdriver_navigate {self.params.url}"

    def locations(self) -> list[Path]:
        """The file a file:// URL opens (reading outside the project asks first)."""
        path = file_url_path(self.params.url)
        return [path] if path else []

    def run(self, session: BrowserSession) -> ToolResult:
        """Open the page, waiting at most ``timeout`` seconds for it to load."""
        from selenium.common.exceptions import TimeoutException

        driver = session.driver()
        driver.set_page_load_timeout(self.params.timeout)
        try:
            driver.get(self.params.url)
        except TimeoutException:
            return ToolResult.failure(
                f"{self.params.url} did not finish loading within {self.params.timeout:g} s; "
                "the server is slow or not answering: check that it runs (e.g. its "
                "background_process log), or try again with a larger timeout")
        finally:
            driver.set_page_load_timeout(DEFAULT_PAGE_LOAD_TIMEOUT)
        return ToolResult(llm_content=page_line(session))


# -- the small ones ------------------------------------------------------------------------


class NoParams(ToolParams):
    """No arguments."""


class _SimpleTool(Tool):
    """A browser tool without arguments whose invocation runs ``action``."""

    kind = ToolKind.READ
    Params = NoParams
    needs = "page"

    def action(self, session: BrowserSession) -> ToolResult:
        """What the call does."""
        raise NotImplementedError

    def create_invocation(self, params: NoParams, ctx: ToolContext) -> _SimpleInvocation:
        """Make the invocation."""
        return _SimpleInvocation(self, params, ctx)


class _SimpleInvocation(BrowserInvocation[NoParams]):
    tool: _SimpleTool

    def __init__(self, tool: _SimpleTool, params: NoParams, ctx: ToolContext) -> None:
        super().__init__(tool, params, ctx)
        self.needs = tool.needs

    def describe(self) -> str:
        return self.tool.name

    def run(self, session: BrowserSession) -> ToolResult:
        return self.tool.action(session)


class WebdriverGetUrlTool(_SimpleTool):
    """The address of the page the browser shows."""

    name = ToolName.WEBDRIVER_GET_URL
    description = "The URL of the page the browser shows (after redirects and clicks)."

    def action(self, session: BrowserSession) -> ToolResult:
        """Read the URL."""
        return ToolResult(llm_content=session.driver().current_url)


class WebdriverGetTitleTool(_SimpleTool):
    """The title of the page the browser shows."""

    name = ToolName.WEBDRIVER_GET_TITLE
    description = "The title of the page the browser shows."

    def action(self, session: BrowserSession) -> ToolResult:
        """Read the title."""
        return ToolResult(llm_content=session.driver().title or "(the page has no title)")


class WebdriverBackTool(_SimpleTool):
    """Goes back one page in the browser's history."""

    name = ToolName.WEBDRIVER_BACK
    description = "Go back one page in the browser's history, like the Back button."

    def action(self, session: BrowserSession) -> ToolResult:
        """Go back."""
        session.driver().back()
        return ToolResult(llm_content=page_line(session))


class WebdriverForwardTool(_SimpleTool):
    """Goes forward one page in the browser's history."""

    name = ToolName.WEBDRIVER_FORWARD
    description = "Go forward one page in the browser's history, like the Forward button."

    def action(self, session: BrowserSession) -> ToolResult:
        """Go forward."""
        session.driver().forward()
        return ToolResult(llm_content=page_line(session))


class WebdriverRefreshTool(_SimpleTool):
    """Reloads the page."""

    name = ToolName.WEBDRIVER_REFRESH
    description = "Reload the page the browser shows."

    def action(self, session: BrowserSession) -> ToolResult:
        """Reload."""
        session.driver().refresh()
        return ToolResult(llm_content=page_line(session))


class WebdriverQuitTool(_SimpleTool):
    """Closes the browser and ends its processes."""

    name = ToolName.WEBDRIVER_QUIT
    needs = "nothing"
    description = ("Close the browser and end its processes (pages, cookies and storage are "
                   "gone). The next webdriver_start or webdriver_navigate opens a new one.")

    def action(self, session: BrowserSession) -> ToolResult:
        """Close the browser (no error when none runs)."""
        if not session.running:
            return ToolResult(llm_content="No browser was running; nothing to close.")
        session.close()
        return ToolResult(llm_content="The browser was closed.")
