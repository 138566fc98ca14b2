"""Browser tools that find and use elements by CSS selector: webdriver_find_element,
_find_elements, _click and _send_keys.

Finding is one script in the page, so a call costs one round trip to the browser whatever
the number of elements; each element is described by its tag, text, key attributes,
visibility and position.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Any, overload

from pydantic import Field

from ..base import Confirmation, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from ..names import ToolName
from .calls import BrowserInvocation
from .session import BrowserSession, page_line

if TYPE_CHECKING:
    from selenium.webdriver.remote.webelement import WebElement

MAX_TEXT = 200
"""Characters of an element's text shown at most."""
MAX_ELEMENTS = 100
"""The most elements webdriver_find_elements describes."""

_DESCRIBE = """
const [selector, limit, maxText] = arguments;
const found = Array.from(document.querySelectorAll(selector));
const keys = ['id', 'name', 'class', 'type', 'href', 'src', 'value', 'placeholder',
              'aria-label', 'role', 'alt', 'title', 'for', 'action', 'method'];
return {total: found.length, elements: found.slice(0, limit).map((el) => {
  const r = el.getBoundingClientRect();
  const style = window.getComputedStyle(el);
  const attrs = {};
  for (const k of keys) {
    const v = el.getAttribute(k);
    if (v !== null && v !== '') attrs[k] = v.length > 120 ? v.slice(0, 119) + '…' : v;
  }
  if ((el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT')
      && el.value !== undefined) attrs['value'] = String(el.value).slice(0, 120);
  if (el.disabled) attrs['disabled'] = 'true';
  if (el.checked) attrs['checked'] = 'true';
  const text = (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim();
  const visible = r.width > 0 && r.height > 0 && style.visibility !== 'hidden'
                  && style.display !== 'none' && Number(style.opacity) !== 0;
  return {tag: el.tagName.toLowerCase(),
          text: text.length > maxText ? text.slice(0, maxText - 1) + '…' : text,
          attributes: attrs, visible: visible,
          x: Math.round(r.left + window.scrollX), y: Math.round(r.top + window.scrollY),
          width: Math.round(r.width), height: Math.round(r.height)};
})};
"""


def find(session: BrowserSession, selector: str, limit: int) -> dict[str, Any]:
    """``{"total": n, "elements": [...]}`` for the elements ``selector`` matches.

    Raises:
        selenium's InvalidSelectorException for CSS the browser cannot read.
    """
    from selenium.common.exceptions import InvalidSelectorException, WebDriverException

    try:
        found: dict[str, Any] = session.driver().execute_script(_DESCRIBE, selector, limit,
                                                                MAX_TEXT)
        return found
    except WebDriverException as exc:
        if "is not a valid selector" in str(exc):
            raise InvalidSelectorException(f"{selector!r} is not a valid selector") from None
        raise


def describe_element(element: dict[str, Any]) -> str:
    """One element as a line: ``<button id=go> "Send" visible at (10, 20) 80x24``."""
    attrs = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}"
                     for k, v in element["attributes"].items())
    tag = f"<{element['tag']}{' ' + attrs if attrs else ''}>"
    text = f" {json.dumps(element['text'], ensure_ascii=False)}" if element["text"] else ""
    seen = "visible" if element["visible"] else "hidden"
    return (f"{tag}{text} {seen} at ({element['x']}, {element['y']}) "
            f"{element['width']}x{element['height']}")


class SelectorParams(ToolParams):
    """Arguments of a tool that takes one CSS selector."""

    selector: str = Field(min_length=1, description="A CSS selector, e.g. `#submit`, "
                          "`input[name=email]`, `.results li a`.")


class FindElementsParams(SelectorParams):
    """Arguments of webdriver_find_elements."""

    limit: int = Field(default=20, ge=1, le=MAX_ELEMENTS,
                       description="Elements described at most (default 20).")


class WebdriverFindElementTool(Tool):
    """Describes the first element a CSS selector matches."""

    name = ToolName.WEBDRIVER_FIND_ELEMENT
    kind = ToolKind.READ
    description = ("Find the first element matching a CSS selector on the browser's page: "
                   "its tag, text, key attributes (id, name, class, href, value…), whether "
                   "it is visible, and its position and size.")
    Params = SelectorParams

    def create_invocation(self, params: SelectorParams, ctx: ToolContext) -> FindInvocation:
        """Make the invocation."""
        return FindInvocation(self, params, ctx)


class WebdriverFindElementsTool(Tool):
    """Describes every element a CSS selector matches (up to a limit)."""

    name = ToolName.WEBDRIVER_FIND_ELEMENTS
    kind = ToolKind.READ
    description = ("Find all elements matching a CSS selector on the browser's page (20 by "
                   "default), each with its tag, text, key attributes, visibility and "
                   "position; says how many matched in all.")
    Params = FindElementsParams

    def create_invocation(self, params: FindElementsParams, ctx: ToolContext) -> FindInvocation:
        """Make the invocation."""
        return FindInvocation(self, params, ctx)


class FindInvocation(BrowserInvocation[SelectorParams]):
    """One webdriver_find_element or webdriver_find_elements call."""

    def describe(self) -> str:
        """E.g. ``webdriver_find_elements .results a``."""
        return f"{self.tool.name} {self.params.selector}"

    def run(self, session: BrowserSession) -> ToolResult:
        """Describe the matches."""
        limit = getattr(self.params, "limit", 1)
        found = find(session, self.params.selector, limit)
        total, elements = found["total"], found["elements"]
        if not total:
            from selenium.common.exceptions import NoSuchElementException

            raise NoSuchElementException(self.params.selector)
        lines = [describe_element(e) for e in elements]
        if self.tool.name == ToolName.WEBDRIVER_FIND_ELEMENT:
            more = f" (the first of {total} matches)" if total > 1 else ""
            return ToolResult(llm_content=f"{lines[0]}{more}")
        head = (f"{total} elements match `{self.params.selector}`"
                + (f"; the first {len(lines)}:" if total > len(lines) else ":"))
        return ToolResult(llm_content="\n".join([head, *(f"{i}. {line}" for i, line
                                                          in enumerate(lines, 1))]))


# -- acting on elements ------------------------------------------------------------------


def current_url(session: BrowserSession) -> str:
    """The page's address, or "" when the browser cannot say."""
    try:
        return session.driver().current_url
    except Exception:  # noqa: BLE001 - only for showing
        return ""


class WebdriverClickTool(Tool):
    """Clicks an element, as a person would."""

    name = ToolName.WEBDRIVER_CLICK
    kind = ToolKind.COMPUTER
    ask_reason = "clicks in the browser"
    description = ("Click the first element matching a CSS selector (scrolled into view "
                   "first), as a person would; returns the page's title and URL afterwards. "
                   "Fails with the reason when the element is hidden or covered.")
    Params = SelectorParams

    def create_invocation(self, params: SelectorParams, ctx: ToolContext) -> ClickInvocation:
        """Make the invocation."""
        return ClickInvocation(self, params, ctx)


class ClickInvocation(BrowserInvocation[SelectorParams]):
    """One webdriver_click call."""

    page = ""

    def describe(self) -> str:
        """E.g. ``webdriver_click #submit``."""
        return f"webdriver_click {self.params.selector}"

    async def prepare(self) -> None:
        """Learn the page's address for the approval."""
        self.page = await page_for_approval(self)

    def confirmation(self) -> Confirmation:
        """The element and the page."""
        return Confirmation(title=f"Click {self.params.selector}",
                            details=f"selector: {self.params.selector}\npage: {self.page or '?'}")

    def run(self, session: BrowserSession) -> ToolResult:
        """Scroll to the element and click it."""

        element, before = mark_page(session, self.params.selector)
        element.click()
        changed, after = wait_for_navigation(session, before)
        moved = " (the page changed)" if changed else ""
        return ToolResult(llm_content=f"Clicked `{self.params.selector}`{moved}.\n{after}")


_MARK = """
const el = arguments[0] ? document.querySelector(arguments[0]) : null;
if (arguments[0] && !el) return null;
window.__agentTuiPage = true;
window.__agentTuiNavigating = false;
if (!window.__agentTuiHooked) {
  const starting = () => { window.__agentTuiNavigating = true; };
  if (window.navigation) window.navigation.addEventListener('navigate', starting);
  // A form's navigation is queued after its submit event: the submit (unless a handler
  // cancelled it) already says one is coming.
  window.addEventListener('submit', (e) => { if (!e.defaultPrevented) starting(); });
  window.__agentTuiHooked = true;
}
if (el) el.scrollIntoView({block: 'center', inline: 'center'});
return [el, location.href];
"""
_PROBE = ("return [window.__agentTuiPage === true, window.__agentTuiNavigating === true, "
          "document.readyState, location.href, document.title]")


@overload
def mark_page(session: BrowserSession, selector: str) -> tuple[WebElement, str]: ...
@overload
def mark_page(session: BrowserSession, selector: None = None) -> tuple[None, str]: ...
def mark_page(session: BrowserSession,
              selector: str | None = None) -> tuple[WebElement | None, str]:
    """Before a click or Enter: mark the page, listen for a navigation starting (the
    Navigation API's ``navigate`` event, or a form's ``submit``), and find the element ``selector`` names, scrolled
    into view; return it (None without a selector) and the page's URL, in one round trip.

    Raises:
        selenium's NoSuchElementException or InvalidSelectorException.
    """
    from selenium.common.exceptions import (
        InvalidSelectorException,
        NoSuchElementException,
        WebDriverException,
    )

    try:
        marked = session.driver().execute_script(_MARK, selector)
    except WebDriverException as exc:
        if selector and "is not a valid selector" in str(exc):
            raise InvalidSelectorException(f"{selector!r} is not a valid selector") from None
        raise
    if marked is None:
        raise NoSuchElementException(selector)
    return marked[0], marked[1]


def wait_for_navigation(session: BrowserSession, before: str, *,
                        load_within: float = 15.0, settle: float = 1.0) -> tuple[bool, str]:
    """After a click or Enter on a marked page: if it started a navigation, wait until the
    new page has loaded; return whether the page changed, and the ``Page: title — url``
    line of the page now shown.

    A click that starts no navigation costs one round trip. A new document lacks the mark;
    a same-document navigation (a hash, ``history.pushState``) changes the URL only; a
    navigation that was started but went nowhere (cancelled, a 204) is given ``settle``
    seconds.
    """
    from selenium.common.exceptions import WebDriverException

    driver = session.driver()
    started = time.monotonic()
    while True:
        try:
            marked, navigating, state, url, title = driver.execute_script(_PROBE)
        except WebDriverException:  # the old document is going away
            marked, navigating, state, url, title = True, True, "loading", before, ""
        line = f"Page: {title or '(no title)'} — {url}"
        if marked and not navigating and url == before:
            return False, line
        if not marked and state == "complete":
            return True, line
        if marked and url != before:
            return True, line
        elapsed = time.monotonic() - started
        if marked and elapsed > settle or elapsed > load_within:
            return url != before, page_line(session)
        time.sleep(0.02)


class SendKeysParams(SelectorParams):
    """Arguments of webdriver_send_keys."""

    text: str = Field(description="The text to type. A final newline presses Enter (submits "
                                  "most forms).")
    clear_first: bool = Field(default=True,
                              description="Clear the field before typing (default true).")


class WebdriverSendKeysTool(Tool):
    """Types text into a field."""

    name = ToolName.WEBDRIVER_SEND_KEYS
    kind = ToolKind.COMPUTER
    ask_reason = "types into the browser"
    description = ("Type text into the first element matching a CSS selector (an input, a "
                   "textarea, a contenteditable), clearing it first unless clear_first is "
                   "false. End the text with a newline to press Enter.")
    Params = SendKeysParams

    def create_invocation(self, params: SendKeysParams, ctx: ToolContext) -> SendKeysInvocation:
        """Make the invocation."""
        return SendKeysInvocation(self, params, ctx)


class SendKeysInvocation(BrowserInvocation[SendKeysParams]):
    """One webdriver_send_keys call."""

    page = ""

    def describe(self) -> str:
        """E.g. ``webdriver_send_keys input[name=q]``."""
        return f"webdriver_send_keys {self.params.selector}"

    async def prepare(self) -> None:
        """Learn the page's address for the approval."""
        self.page = await page_for_approval(self)

    def confirmation(self) -> Confirmation:
        """The field, the text and the page."""
        mode = "clear, then type" if self.params.clear_first else "type after what is there"
        return Confirmation(
            title=f"Type into {self.params.selector}",
            details=(f"selector: {self.params.selector}\npage: {self.page or '?'}\n{mode}:\n"
                     f"{self.params.text}"))

    def run(self, session: BrowserSession) -> ToolResult:
        """Clear the field if asked, then type."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        driver = session.driver()
        element = driver.find_element(By.CSS_SELECTOR, self.params.selector)
        text = self.params.text
        enter = text.endswith("\n")
        if enter:
            text = text.rstrip("\n")
        if self.params.clear_first:
            element.clear()
        before = mark_page(session)[1] if enter else ""
        element.send_keys(text + (Keys.ENTER if enter else ""))
        moved = enter and wait_for_navigation(session, before)[0]
        typed = f"Typed {len(text)} characters into `{self.params.selector}`"
        if enter:
            typed += " and pressed Enter" + (" (the page changed)" if moved else "")
        value = ""
        if not enter:
            shown = driver.execute_script(
                "const e = arguments[0]; return e.value !== undefined ? e.value "
                ": e.innerText;", element)
            if isinstance(shown, str):
                value = f"\nThe field now holds {len(shown)} characters."
        return ToolResult(llm_content=f"{typed}.{value}\n{page_line(session)}")


async def page_for_approval(invocation: BrowserInvocation[ToolParams]) -> str:
    """The page's address, asked off the event loop (the approval shows it)."""
    session = invocation.session
    if not session.running:
        return ""
    return await asyncio.to_thread(current_url, session)
