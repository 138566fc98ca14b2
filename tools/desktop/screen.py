"""take_screenshot (seed 000; egirl's ``screenshot``): a PNG of the screen, a window or a
region, captured with mss, shown to the model and to the person."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

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
from ..images import in_temp_folder, saved_screenshot, screenshot_path
from ..names import ToolName
from .display import DisplayError, Screen, check_display, check_environment
from .windows import find_window

if TYPE_CHECKING:
    from mss.base import MSS


class Region(BaseModel):
    """A rectangle in pixels."""

    x: int = Field(ge=0)
    y: int = Field(ge=0)
    width: int = Field(gt=0)
    height: int = Field(gt=0)


@dataclass(frozen=True, slots=True)
class Capture:
    """A captured image: PNG bytes, its size, where on the screen it came from."""

    png: bytes
    width: int
    height: int
    left: int
    top: int
    what: str


def grab(left: int, top: int, width: int, height: int, what: str) -> Capture:
    """Capture a rectangle of the screen as PNG."""
    import mss

    with mss.MSS() as grabber:
        return _grab(grabber, left, top, width, height, what)


def _grab(grabber: MSS, left: int, top: int, width: int, height: int, what: str) -> Capture:
    import mss.tools

    shot = grabber.grab({"left": left, "top": top, "width": width, "height": height})
    png = mss.tools.to_png(shot.rgb, shot.size)
    # None only when to_png writes the file named by its ``output``, which is not given here.
    assert png is not None
    return Capture(png, shot.size.width, shot.size.height, left, top, what)


def monitor_bounds(monitors: list[dict[str, int]],
                   display: str | None) -> tuple[int, int, int, int, str]:
    """The rectangle of the monitor ``display`` names (1, 2… or "primary"/"all").

    Raises:
        DisplayError: no such monitor.
    """
    choice = (display or "primary").strip().lower()
    if choice == "all":
        whole = monitors[0]
        return whole["left"], whole["top"], whole["width"], whole["height"], "the whole display"
    if choice in ("primary", "", "0") and len(monitors) > 1:
        index = 1
    else:
        try:
            index = int(choice)
        except ValueError:
            raise DisplayError(f"display {display!r} is not a monitor number, 'primary' or "
                               "'all'") from None
    if not 1 <= index < len(monitors):
        raise DisplayError(f"there is no monitor {index}; this display has "
                           f"{len(monitors) - 1} (numbered from 1)")
    m = monitors[index]
    return m["left"], m["top"], m["width"], m["height"], f"monitor {index}"


def capture(window_id: str | None, region: Region | None, display: str | None) -> Capture:
    """Capture what the arguments name.

    Raises:
        DisplayError: no display, no such window, a region off the screen or the window.
    """
    import mss
    from mss.exception import ScreenShotError

    check_environment()
    try:
        with mss.MSS() as grabber:
            return _capture(grabber, window_id, region, display)
    except ScreenShotError as exc:
        check_display()  # says why there is no display, when that is why
        raise DisplayError(f"the screen could not be captured: {exc}") from None


def _capture(grabber: MSS, window_id: str | None, region: Region | None,
             display: str | None) -> Capture:
    monitors = grabber.monitors
    screen = Screen(monitors[0]["width"], monitors[0]["height"])
    if window_id:
        window = find_window(window_id)
        left, top, width, height = window.x, window.y, window.width, window.height
        what = f"the window {window.title!r} ({window.id:#x})"
    else:
        left, top, width, height, what = monitor_bounds(monitors, display)
    if region is not None:
        if region.x + region.width > width or region.y + region.height > height:
            raise DisplayError(
                f"the region {region.width}x{region.height} at ({region.x}, {region.y}) does "
                f"not fit in {what}, which is {width}x{height}; regions are relative to it")
        left, top = left + region.x, top + region.y
        width, height = region.width, region.height
        what = f"a {width}x{height} region of {what}"
    # A window partly off the screen is captured where it is visible.
    right, bottom = min(left + width, screen.width), min(top + height, screen.height)
    left, top = max(left, 0), max(top, 0)
    if right <= left or bottom <= top:
        raise DisplayError(f"{what} is off the screen ({screen.width}x{screen.height})")
    return _grab(grabber, left, top, right - left, bottom - top, what)


def capture_result(ctx: ToolContext, shot: Capture, target: Path) -> ToolResult:
    """Save ``shot`` to ``target`` and describe it; attach it for a model that sees images."""
    text = (f"Captured {shot.what}: {shot.width}x{shot.height} pixels from screen position "
            f"({shot.left}, {shot.top}), saved to {target} ({len(shot.png):,} bytes).")
    return saved_screenshot(ctx, shot.png, target, text)


class TakeScreenshotParams(ToolParams):
    """Arguments of take_screenshot (and of egirl's screenshot)."""

    path: str | None = Field(
        default=None, description="Where to save the PNG; relative paths and bare names go to "
                                  "the temp folder ($TMPDIR). Default: screenshot-<time>.png.")
    window_id: str | None = Field(
        default=None, description="Optional: capture one window, by the id list_windows "
                                  "shows or by a piece of its title or program name.")
    region: Region | None = Field(
        default=None, description="Optional: {x, y, width, height} to capture, relative to "
                                  "the window when window_id is given, else to the screen.")
    display: str | None = Field(
        default=None, description="Optional: which monitor, 1, 2… (default: the primary) "
                                  "or 'all'.")


class TakeScreenshotTool(Tool):
    """Captures the screen, a window or a region as a PNG."""

    repeatable = True  # polling: the same call may see something new
    name = ToolName.TAKE_SCREENSHOT
    kind = ToolKind.COMPUTER
    ask_reason = "looks at the screen"
    description = (
        "Capture a PNG screenshot of the screen, of one window (window_id: an id from "
        "list_windows or a title) or of a region {x, y, width, height}. You see the image "
        "when the model takes images; the person sees it too. Coordinates in the image plus "
        "the capture's screen position give screen coordinates for mouse_click.")
    Params = TakeScreenshotParams

    def create_invocation(self, params: TakeScreenshotParams,
                          ctx: ToolContext) -> TakeScreenshotInvocation:
        """Make the invocation."""
        return TakeScreenshotInvocation(self, params, ctx)


class TakeScreenshotInvocation(Invocation[TakeScreenshotParams]):
    """One take_screenshot call."""

    def target(self) -> Path:
        """Where the PNG goes."""
        return screenshot_path(self.params.path)

    def describe(self) -> str:
        """E.g. ``take_screenshot Firefox → /tmp/shot.png``."""
        what = self.params.window_id or (f"monitor {self.params.display}"
                                         if self.params.display else "screen")
        return f"take_screenshot {what} → {self.target()}"

    def locations(self) -> list[Path]:
        """The PNG, unless it goes to the temp folder (scratch space)."""
        target = self.target()
        return [] if in_temp_folder(target) else [target]

    def confirmation(self) -> Confirmation:
        """What will be captured and where it goes."""
        return Confirmation(title=f"Take a screenshot of the {self.describe()[16:]}",
                            details="The image can show anything on the screen.")

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Capture and save in a worker thread."""
        params = self.params
        try:
            shot = await asyncio.to_thread(capture, params.window_id, params.region,
                                           params.display)
        except DisplayError as exc:
            return ToolResult.failure(str(exc))
        except Exception as exc:  # noqa: BLE001 - mss's errors name the X failure
            return ToolResult.failure(f"the screen could not be captured: {exc}")
        try:
            return await asyncio.to_thread(capture_result, self.ctx, shot, self.target())
        except OSError as exc:
            return ToolResult.failure(f"cannot save the screenshot to {self.target()}: "
                                      f"{exc.strerror or exc}")
