"""The WebDriver tools (seed 000, ``webdriver_*``): a real Chromium driven through Selenium.

Offered when ``webdriver = true`` (``--webdriver`` or ``--chrome-headless``). One browser per
session (:mod:`.session`), started by the first call that needs it.
"""

from __future__ import annotations

from ..base import Tool
from .calls import browser_for
from .elements import (
    WebdriverClickTool,
    WebdriverFindElementsTool,
    WebdriverFindElementTool,
    WebdriverSendKeysTool,
)
from .navigation import (
    WebdriverBackTool,
    WebdriverForwardTool,
    WebdriverGetTitleTool,
    WebdriverGetUrlTool,
    WebdriverNavigateTool,
    WebdriverQuitTool,
    WebdriverRefreshTool,
    WebdriverStartTool,
)
from .page import WebdriverExecuteScriptTool, WebdriverGetPageSourceTool, WebdriverScreenshotTool
from .session import BrowserOptions, BrowserSession, BrowserUnavailable

__all__ = ["BrowserOptions", "BrowserSession", "BrowserUnavailable", "browser_for",
           "browser_tools"]


def browser_tools() -> list[Tool]:
    """Fresh instances of the webdriver_* tools, in the order the seed lists them."""
    return [
        WebdriverStartTool(), WebdriverNavigateTool(), WebdriverGetUrlTool(),
        WebdriverGetTitleTool(), WebdriverFindElementTool(), WebdriverFindElementsTool(),
        WebdriverClickTool(), WebdriverSendKeysTool(), WebdriverExecuteScriptTool(),
        WebdriverGetPageSourceTool(), WebdriverScreenshotTool(), WebdriverBackTool(),
        WebdriverForwardTool(), WebdriverRefreshTool(), WebdriverQuitTool(),
    ]
