"""What every browser tool shares: reaching the session's browser from a worker thread,
turning Selenium's exceptions into errors the model can act on, and giving up a hung call."""

from __future__ import annotations

import asyncio

from ..base import Invocation, OutputCallback, P, ToolContext, ToolResult
from .session import BrowserOptions, BrowserSession, BrowserUnavailable, first_line


def browser_for(ctx: ToolContext) -> BrowserSession:
    """The browser of the session ``ctx`` belongs to, made on first use."""
    return ctx.shared_browser()


NOT_STARTED = ("no browser is running; call webdriver_start first (or webdriver_navigate, "
               "which starts one)")
"""The error of a tool that needs an open page when no browser runs."""
CANCELLED = ("the browser was ended when a call that hung was cancelled; call webdriver_start "
             "to open a new one (earlier pages and their state are gone)")
"""The error of a tool that needs an open page after a cancel ended the browser."""
CRASHED = ("the browser crashed or was closed outside agent-tui; it was cleaned up: call "
           "webdriver_start to open a new one (earlier pages and their state are gone)")
"""The error of the call that finds the browser gone."""


def browser_options(ctx: ToolContext, *, headless: bool | None = None) -> BrowserOptions:
    """How this session's browser is started, from the settings and the network switch."""
    settings = ctx.settings
    chosen = headless if headless is not None else bool(
        getattr(settings, "chrome_headless", True))
    return BrowserOptions(
        headless=chosen, network=ctx.network_enabled,
        chromium=getattr(settings, "chromium_path", None),
        chromedriver=getattr(settings, "chromedriver_path", None))


def ensure_started(session: BrowserSession, ctx: ToolContext) -> str:
    """Start the browser if none runs, or restart it when the network switch was turned
    since it started; return what happened ("" when it was already running).

    Raises:
        BrowserUnavailable: it cannot start.
    """
    options = session.options
    if options is not None and options.network == ctx.network_enabled:
        return ""
    headless = options.headless if options is not None else None
    started = session.start(browser_options(ctx, headless=headless))
    if options is not None:
        turned = "on" if ctx.network_enabled else "off"
        return (f"The network was turned {turned} since the browser started, so it was "
                f"restarted (earlier pages are gone). {started}")
    return started


def explain(exc: BaseException, selector: str | None = None) -> str:
    """A Selenium exception as a sentence saying what happened and what to try."""
    from selenium.common import exceptions as se

    what = first_line(getattr(exc, "msg", None) or str(exc) or type(exc).__name__)
    sel = f" `{selector}`" if selector else ""
    if isinstance(exc, se.NoSuchElementException):
        return (f"no element matches the selector{sel} on this page; check it with "
                "webdriver_find_elements or read webdriver_get_page_source")
    if isinstance(exc, se.InvalidSelectorException):
        return (f"the selector{sel} is not valid CSS ({what}); use CSS selectors such as "
                "`#id`, `.class`, `form input[name=q]` or `a[href*=login]`")
    if isinstance(exc, se.ElementClickInterceptedException):
        return (f"the element{sel} is covered by another element, which would get the click "
                f"({what}); close what covers it (a dialog or banner) or scroll, then try again")
    if isinstance(exc, se.ElementNotInteractableException):
        return (f"the element{sel} cannot be used now: it is hidden, disabled or has no size "
                f"({what}); find a visible element with webdriver_find_elements")
    if isinstance(exc, se.StaleElementReferenceException):
        return (f"the element{sel} was replaced while it was being used (the page changed); "
                "try again")
    if isinstance(exc, se.JavascriptException):
        return f"the script threw a JavaScript error: {what}"
    if isinstance(exc, se.TimeoutException):
        return (f"the browser timed out ({what}): the page or script took too long; try "
                "again, or check that the server answers")
    if isinstance(exc, se.UnexpectedAlertPresentException):
        return (f"a JavaScript dialog (alert, confirm or prompt) was open ({what}); the browser "
                "dismissed it: try the action again")
    if isinstance(exc, se.InvalidArgumentException):
        return f"the browser refused the argument ({what})"
    return f"the browser reported: {what}"


def crashed(exc: BaseException) -> bool:
    """True when an exception means the browser itself is gone."""
    from selenium.common import exceptions as se

    if isinstance(exc, se.InvalidSessionIdException | ConnectionError | OSError):
        return True
    if type(exc).__module__.startswith("urllib3"):  # chromedriver no longer answers
        return True
    text = str(exc).lower()
    return isinstance(exc, se.WebDriverException) and any(
        sign in text for sign in ("chrome not reachable", "session deleted",
                                  "disconnected", "no such window", "target window already closed",
                                  "session not created", "invalid session id"))


class BrowserInvocation(Invocation[P]):
    """An invocation that runs a blocking function against the session's browser.

    Subclasses implement :meth:`run`, called in a worker thread with the browser's lock held.
    ``needs`` says what must exist first: ``page`` (a running browser, else the call fails
    with ``NOT_STARTED``), ``browser`` (one is started when none runs) or ``nothing`` (the
    call starts or closes the browser itself).
    """

    needs = "page"

    @property
    def session(self) -> BrowserSession:
        """The browser of the session this call belongs to."""
        return browser_for(self.ctx)

    def run(self, session: BrowserSession) -> ToolResult:
        """Do the call; raise Selenium's exceptions freely (they are explained)."""
        raise NotImplementedError

    def selector(self) -> str | None:
        """The CSS selector this call uses, for error messages."""
        return getattr(self.params, "selector", None)

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Run in a worker thread; a cancelled (Esc) call kills the hung browser."""
        session = self.session
        try:
            return await asyncio.to_thread(self._guarded, session)
        except asyncio.CancelledError:
            session.kill()
            raise

    def _guarded(self, session: BrowserSession) -> ToolResult:
        with session.lock:
            if session.killed:
                session.close()
                if self.needs == "page":
                    session.killed = False
                    return ToolResult.failure(CANCELLED)
            if self.needs == "page" and not session.running:
                return ToolResult.failure(NOT_STARTED)
            notice = ""
            try:
                if self.needs == "browser":
                    notice = ensure_started(session, self.ctx)
                result = self.run(session)
            except BrowserUnavailable as exc:
                return ToolResult.failure(str(exc))
            except Exception as exc:  # noqa: BLE001 - every failure goes back to the model
                if not _is_selenium(exc):
                    return ToolResult.failure(
                        f"the browser call failed: {type(exc).__name__}: {exc}")
                if crashed(exc) and not session.alive():
                    session.close()
                    return ToolResult.failure(CRASHED)
                return ToolResult.failure(explain(exc, self.selector()))
        if notice:
            result.llm_content = f"{notice}\n{result.llm_content}"
        return result


def _is_selenium(exc: BaseException) -> bool:
    """True for failures of the browser or of the connection to chromedriver."""
    module = type(exc).__module__
    return (module.startswith(("selenium", "urllib3", "http.client"))
            or isinstance(exc, ConnectionError))

