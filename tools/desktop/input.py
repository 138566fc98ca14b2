"""mouse_click and type_text: the mouse and the keyboard, through pyautogui.

pyautogui connects to the display when it is imported (and raises without one), so it is
imported on the first call, after the display was checked. Characters it has no key for
(anything outside ASCII) are typed with ``xdotool type``.
"""

from __future__ import annotations

import asyncio
import subprocess
from types import ModuleType
from typing import Literal

from pydantic import Field

from ..base import (
    Confirmation,
    Invocation,
    OutputCallback,
    Tool,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from ..names import ToolName
from .display import DisplayError, check_display, need_program

FAIL_SAFE = ("the mouse is in a corner of the screen, pyautogui's fail-safe: someone moved it "
             "there to stop automation; ask the person before acting on the desktop again")
"""The error when a person stopped automation by moving the mouse to a corner."""
TYPING_INTERVAL = 0.01
"""Seconds between typed keys: fast, yet slow enough for toolkits that drop keys."""


def _pyautogui() -> ModuleType:
    import pyautogui

    pyautogui.PAUSE = 0.02
    return pyautogui


def click(x: int, y: int, button: str, clicks: int) -> str:
    """Click at (x, y) on the screen; return what was done.

    Raises:
        DisplayError: no display, or (x, y) off the screen or in pyautogui's fail-safe corner.
    """
    screen = check_display()
    if not screen.contains(x, y):
        raise DisplayError(f"({x}, {y}) is off the screen, which is {screen.width}x"
                           f"{screen.height} (x 0-{screen.width - 1}, y 0-{screen.height - 1})")
    corners = {(0, 0), (screen.width - 1, 0), (0, screen.height - 1),
               (screen.width - 1, screen.height - 1)}
    if (x, y) in corners:
        # The mouse left there would stop every later action (pyautogui's fail-safe).
        raise DisplayError(
            f"({x}, {y}) is a corner of the screen, pyautogui's fail-safe position (a person "
            "moves the mouse there to stop automation), so agent-tui does not click there; "
            "click a pixel away from the corner")
    gui = _pyautogui()
    try:
        gui.click(x=x, y=y, clicks=clicks, interval=0.05, button=button)
    except gui.FailSafeException:
        raise DisplayError(FAIL_SAFE) from None
    times = {1: "", 2: " twice", 3: " three times"}[clicks]
    return f"Clicked the {button} button{times} at ({x}, {y})."


def _typeable(char: str) -> bool:
    # "<" shares the 102nd key (LSGT) of pc105 layouts, Xvfb's among them: pyautogui finds
    # that keycode first, adds Shift because "<" is shifted on US keyboards and types ">".
    return char == "\n" or char == "\t" or (" " <= char <= "~" and char != "<")


def type_text(text: str) -> str:
    """Type ``text`` where the keyboard focus is; return what was done.

    Raises:
        DisplayError: no display, or xdotool missing for characters pyautogui cannot type.
    """
    check_display()
    gui = _pyautogui()
    runs: list[tuple[bool, str]] = []
    for char in text:
        plain = _typeable(char)
        if runs and runs[-1][0] == plain:
            runs[-1] = (plain, runs[-1][1] + char)
        else:
            runs.append((plain, char))
    xdotool = None
    if any(not plain for plain, _ in runs):
        xdotool = need_program("xdotool", "xdotool",
                               "characters outside ASCII (and \"<\") are typed with it")
    for plain, run in runs:
        if plain:
            try:
                gui.write(run, interval=TYPING_INTERVAL)
            except gui.FailSafeException:
                raise DisplayError(FAIL_SAFE) from None
        else:
            assert xdotool is not None  # found above: this run is not plain
            done = subprocess.run([xdotool, "type", "--delay", "12", "--", run],
                                  capture_output=True, text=True, timeout=60)
            if done.returncode:
                raise DisplayError(f"xdotool could not type {run!r}: "
                                   f"{done.stderr.strip() or done.returncode}")
    lines = text.count("\n")
    enter = f" (pressing Enter {lines} time{'s' if lines > 1 else ''})" if lines else ""
    return f"Typed {len(text)} characters{enter} where the keyboard focus is."


class MouseClickParams(ToolParams):
    """Arguments of mouse_click."""

    x: int = Field(description="Screen x coordinate, in pixels from the left.")
    y: int = Field(description="Screen y coordinate, in pixels from the top.")
    button: Literal["left", "right", "middle"] = Field(default="left",
                                                       description="Which button (default left).")
    clicks: int = Field(default=1, ge=1, le=3,
                        description="1, 2 (double click) or 3 (default 1).")


class MouseClickTool(Tool):
    """Clicks the mouse at screen coordinates."""

    name = ToolName.MOUSE_CLICK
    kind = ToolKind.COMPUTER
    ask_reason = "clicks on the screen"
    description = (
        "Click the mouse at screen coordinates (x, y). Find them first: find_element gives an "
        "element's centre by its visible text; list_windows and take_screenshot show where "
        "windows are.")
    Params = MouseClickParams

    def create_invocation(self, params: MouseClickParams, ctx: ToolContext) -> MouseClickInvocation:
        """Make the invocation."""
        return MouseClickInvocation(self, params, ctx)


class MouseClickInvocation(Invocation[MouseClickParams]):
    """One mouse_click call."""

    def describe(self) -> str:
        """E.g. ``mouse_click (215, 140) left``."""
        return f"mouse_click ({self.params.x}, {self.params.y}) {self.params.button}"

    def confirmation(self) -> Confirmation:
        """Where the click goes."""
        return Confirmation(title=f"Click the {self.params.button} mouse button at "
                                  f"({self.params.x}, {self.params.y})",
                            details="The click goes to whatever window is there.")

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Click in a worker thread."""
        p = self.params
        try:
            return ToolResult(llm_content=await asyncio.to_thread(click, p.x, p.y, p.button,
                                                                  p.clicks))
        except DisplayError as exc:
            return ToolResult.failure(str(exc))
        except Exception as exc:  # noqa: BLE001 - pyautogui's own failures
            return ToolResult.failure(f"the click failed: {type(exc).__name__}: {exc}")


class TypeTextParams(ToolParams):
    """Arguments of type_text."""

    text: str = Field(min_length=1, description="The text to type where the keyboard focus "
                                                "is; a newline presses Enter.")


class TypeTextTool(Tool):
    """Types text at the keyboard focus."""

    name = ToolName.TYPE_TEXT
    kind = ToolKind.COMPUTER
    ask_reason = "types on the keyboard"
    description = (
        "Type text at the keyboard focus, as if on the keyboard (a newline presses Enter). "
        "Click the field first with mouse_click to focus it.")
    Params = TypeTextParams

    def create_invocation(self, params: TypeTextParams, ctx: ToolContext) -> TypeTextInvocation:
        """Make the invocation."""
        return TypeTextInvocation(self, params, ctx)


class TypeTextInvocation(Invocation[TypeTextParams]):
    """One type_text call."""

    def describe(self) -> str:
        """E.g. ``type_text 12 characters``."""
        return f"type_text {len(self.params.text)} characters"

    def confirmation(self) -> Confirmation:
        """The text."""
        return Confirmation(title="Type on the keyboard where the focus is",
                            details=self.params.text)

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Type in a worker thread."""
        try:
            return ToolResult(llm_content=await asyncio.to_thread(type_text, self.params.text))
        except DisplayError as exc:
            return ToolResult.failure(str(exc))
        except Exception as exc:  # noqa: BLE001 - pyautogui's own failures
            return ToolResult.failure(f"typing failed: {type(exc).__name__}: {exc}")
