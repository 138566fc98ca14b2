"""Reaching the X display the desktop tools work on, and the errors that say how to get one.

pyautogui and Xlib fail at import or connection time without a display, with messages that
do not say what to do; every desktop tool checks the display here first.
"""

from __future__ import annotations

import os
import shutil
from contextlib import closing, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from Xlib.display import Display

XVFB_HINT = ("start one with `Xvfb :99 -screen 0 1920x1080x24 &` (Debian package xvfb) and set "
             "DISPLAY=:99, or run agent-tui in a desktop session")
"""How to get a display, for the errors that find none."""


def silence_xlib() -> None:
    """Keep python-xlib's warnings off stdout.

    Its ``xauth`` module prints ("no xauthority details available") to stdout, which is the
    JSON stream of a headless run and the screen of the workbench; a module-level ``print``
    shadows the builtin there and nowhere else.
    """
    from Xlib import xauth

    xauth.print = lambda *args, **kwargs: None  # type: ignore[attr-defined]


class DisplayError(Exception):
    """No usable display; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Screen:
    """The size of the X screen, in pixels."""

    width: int
    height: int

    def contains(self, x: int, y: int) -> bool:
        """True when (x, y) is on the screen."""
        return 0 <= x < self.width and 0 <= y < self.height


def check_environment() -> str:
    """The display DISPLAY names, when the environment could reach one (no connection is
    made: a cheap check before tools that connect by themselves).

    Raises:
        DisplayError: DISPLAY unset, or XAUTHORITY naming a missing file.
    """
    name = os.environ.get("DISPLAY")
    if not name:
        hint = (" (WAYLAND_DISPLAY is set, but these tools need X11: run an X session or "
                "XWayland)" if os.environ.get("WAYLAND_DISPLAY") else "")
        raise DisplayError(f"there is no display: DISPLAY is not set{hint}; {XVFB_HINT}")
    xauthority = os.environ.get("XAUTHORITY")
    if xauthority and not os.path.exists(xauthority):
        raise DisplayError(
            f"XAUTHORITY names {xauthority}, which does not exist, so the display {name} "
            "cannot be authenticated: point XAUTHORITY at the display's cookie file (an empty "
            "file will do for an Xvfb started without -auth), or unset it")
    return name


def check_display() -> Screen:
    """Connect to the display named by DISPLAY and return its size.

    Raises:
        DisplayError: DISPLAY unset, XAUTHORITY naming a missing file, or no X server there.
    """
    name = check_environment()
    try:
        from Xlib import display as xdisplay
        from Xlib.error import DisplayError as XlibDisplayError
    except ImportError as exc:  # pragma: no cover - a dependency of agent-tui
        raise DisplayError(f"python-xlib is not installed ({exc}); reinstall agent-tui") from None
    silence_xlib()
    try:
        with closing(xdisplay.Display(name)) as connection:
            screen = connection.screen()
            return Screen(screen.width_in_pixels, screen.height_in_pixels)
    except (XlibDisplayError, OSError, ConnectionError) as exc:
        raise DisplayError(
            f"cannot connect to the display {name} ({exc}); is an X server running there? "
            f"{XVFB_HINT}; with a cookie-protected server, set XAUTHORITY too") from None


def open_display() -> Display:
    """An Xlib connection to DISPLAY (call :func:`check_display` first)."""
    from Xlib import display as xdisplay

    return xdisplay.Display(os.environ["DISPLAY"])


def need_program(program: str, package: str, why: str) -> str:
    """The path of ``program``.

    Raises:
        DisplayError: it is not installed; the message names the Debian package.
    """
    path = shutil.which(program)
    if path is None:
        raise DisplayError(f"{program} is not installed, and {why}; install it (Debian/Ubuntu: "
                           f"`apt-get install {package}`)")
    return path


def quietly_close(connection: object) -> None:
    """Close an Xlib connection, ignoring a display that went away."""
    with suppress(Exception):
        connection.close()  # type: ignore[attr-defined]
