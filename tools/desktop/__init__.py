"""The screen and desktop tools (seed 000's take_screenshot and Computer Control, egirl's
screenshot): capture with mss, windows through Xlib, input through pyautogui, text found
with Tesseract. They work on the X display DISPLAY names (an Xvfb is fine).

``take_screenshot`` is always offered; the tools that act on the desktop are offered when
``computer_control = true`` (``--computer-control``). Each asks first in default mode.
"""

from __future__ import annotations

from ..base import Tool
from .display import DisplayError, check_display
from .input import MouseClickTool, TypeTextTool
from .ocr import FindElementTool
from .screen import TakeScreenshotTool
from .windows import ListWindowsTool

__all__ = ["DisplayError", "FindElementTool", "ListWindowsTool", "MouseClickTool",
           "TakeScreenshotTool", "TypeTextTool", "check_display", "computer_control_tools",
           "screen_tools"]


def screen_tools() -> list[Tool]:
    """The tools always offered: take_screenshot."""
    return [TakeScreenshotTool()]


def computer_control_tools() -> list[Tool]:
    """The tools ``computer_control`` offers, in the order a task uses them."""
    return [ListWindowsTool(), FindElementTool(), MouseClickTool(), TypeTextTool()]
