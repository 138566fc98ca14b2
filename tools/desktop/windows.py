"""list_windows: the desktop's windows with their ids, titles, geometry and programs.

Works with a window manager (its ``_NET_CLIENT_LIST``) and without one (a bare Xvfb: the
root window's mapped children that carry a title). The owning program comes from the
X-Resource extension (the client's pid), else ``_NET_WM_PID``, else the window's class.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..base import Invocation, OutputCallback, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from ..names import ToolName
from .display import DisplayError, check_display, open_display, quietly_close

if TYPE_CHECKING:
    from Xlib.display import Display
    from Xlib.xobject.drawable import Window as XWindow


@dataclass(frozen=True, slots=True)
class Window:
    """A top-level window.

    Attributes:
        id: The X window id.
        title: Its title ("" when it has none).
        x, y, width, height: Where it is on the screen, in pixels.
        program: The program that owns it (its process name, or its window class).
        pid: That program's process id, when the display says.
    """

    id: int
    title: str
    x: int
    y: int
    width: int
    height: int
    program: str
    pid: int | None = None

    def line(self) -> str:
        """E.g. ``0x20001d (2097181) "Editor" at (100, 120) 360x200, program python3 (pid 4)``."""
        pid = f" (pid {self.pid})" if self.pid else ""
        return (f"{self.id:#x} ({self.id}) {self.title!r} at ({self.x}, {self.y}) "
                f"{self.width}x{self.height}, program {self.program or '?'}{pid}")


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value) if value else ""


def _title(connection: Display, window: XWindow) -> str:
    from Xlib import X

    net_name = window.get_full_property(connection.intern_atom("_NET_WM_NAME"),
                                        X.AnyPropertyType)
    if net_name is not None and net_name.value:
        return _text(net_name.value)
    return _text(window.get_wm_name())


def _pid(connection: Display, window: XWindow) -> int | None:
    from Xlib import X

    if connection.has_extension("X-Resource"):
        from Xlib.ext import res

        try:
            reply = connection.res_query_client_ids(
                [{"client": window.id, "mask": res.LocalClientPIDMask}])
            for found in reply.ids:
                if found.value:
                    return int(found.value[0])
        except Exception:  # noqa: BLE001 - a server without the request: try the property
            pass
    prop = window.get_full_property(connection.intern_atom("_NET_WM_PID"), X.AnyPropertyType)
    return int(prop.value[0]) if prop is not None and len(prop.value) else None


def _program(pid: int | None, window: XWindow) -> str:
    if pid:
        try:
            return Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            pass
    wm_class = window.get_wm_class()
    return wm_class[1] if wm_class else ""


def _clients(connection: Display, root: XWindow) -> list[XWindow]:
    """The windows people would call windows: the WM's client list, else titled children."""
    from Xlib import X

    listed = root.get_full_property(connection.intern_atom("_NET_CLIENT_LIST"),
                                    X.AnyPropertyType)
    if listed is not None and len(listed.value):
        return [connection.create_resource_object("window", wid) for wid in listed.value]
    found = []
    for child in root.query_tree().children:
        if child.get_attributes().map_state != X.IsViewable:
            continue
        if _title(connection, child):
            found.append(child)
            continue
        # a reparenting WM without a client list: the titled window is inside its frame
        found.extend(grandchild for grandchild in child.query_tree().children
                     if _title(connection, grandchild))
    return found


def list_windows() -> list[Window]:
    """The titled, visible top-level windows, top-most last.

    Raises:
        DisplayError: no display.
    """
    check_display()
    connection = open_display()
    try:
        root = connection.screen().root
        windows = []
        for window in _clients(connection, root):
            try:
                geometry = window.get_geometry()
                origin = root.translate_coords(window, 0, 0)
                title = _title(connection, window)
                pid = _pid(connection, window)
                windows.append(Window(window.id, title, origin.x, origin.y, geometry.width,
                                      geometry.height, _program(pid, window), pid))
            except Exception:  # noqa: BLE001, S112 - a window closed while being listed
                continue
        return [w for w in windows if w.width > 1 and w.height > 1]
    finally:
        quietly_close(connection)


def find_window(window_id: str) -> Window:
    """The window ``window_id`` names: an id (decimal or 0x hex) or a piece of a title or of
    a program's name (case-insensitive; the only or the first match).

    Raises:
        DisplayError: no display, or no such window (the message lists the windows).
    """
    windows = list_windows()
    wanted = window_id.strip()
    number: int | None
    try:
        number = int(wanted, 0)
    except ValueError:
        number = None
    for window in windows:
        if number is not None and window.id == number:
            return window
    lowered = wanted.lower()
    for window in windows:
        if lowered and (lowered in window.title.lower() or lowered == window.program.lower()):
            return window
    shown = "\n".join(f"- {w.line()}" for w in windows[:30]) or "(no windows are open)"
    raise DisplayError(f"no window matches {window_id!r}; the windows are:\n{shown}")


class ListWindowsParams(ToolParams):
    """list_windows takes no arguments."""


class ListWindowsTool(Tool):
    """Lists the desktop's windows."""

    repeatable = True  # polling: the same call may see something new
    name = ToolName.LIST_WINDOWS
    kind = ToolKind.READ
    description = (
        "List the desktop's open windows: id, title, position and size on the screen, and "
        "the program that owns each. Use an id or a title with take_screenshot and "
        "find_element (window_id), then mouse_click and type_text at screen coordinates.")
    Params = ListWindowsParams

    def create_invocation(self, params: ListWindowsParams,
                          ctx: ToolContext) -> ListWindowsInvocation:
        """Make the invocation."""
        return ListWindowsInvocation(self, params, ctx)


class ListWindowsInvocation(Invocation[ListWindowsParams]):
    """One list_windows call."""

    def describe(self) -> str:
        """``list_windows``."""
        return "list_windows"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """List them in a worker thread."""
        try:
            windows = await asyncio.to_thread(list_windows)
        except DisplayError as exc:
            return ToolResult.failure(str(exc))
        if not windows:
            return ToolResult(llm_content="No windows are open on the display.")
        lines = [f"{len(windows)} window(s):", *(f"- {w.line()}" for w in windows)]
        return ToolResult(llm_content="\n".join(lines))
