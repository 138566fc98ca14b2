"""Noticing that the terminal has gone away without a hang-up signal.

A workbench started with ``setsid`` on a pseudo-terminal whose other side is closed gets no
SIGHUP; reads of the terminal just return nothing, at once, forever, and Textual's input
thread spins on them. ``poll`` reports the hang-up without taking any input, so the app asks
twice a second and leaves the way it does on ``/quit``: the session is saved and its lock
released.
"""

from __future__ import annotations

import select
import sys

CHECK_EVERY_S = 0.5
"""How often the workbench asks whether its terminal is still there."""
_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


def watched_fd() -> int | None:
    """The terminal to watch: standard input when it is a terminal, else None."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if sys.stdin.isatty() else None


def terminal_gone(fd: int) -> bool:
    """Whether the terminal on ``fd`` has hung up (its other side closed); reads nothing."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    try:
        return any(mask & _GONE for _, mask in poller.poll(0))
    except OSError:
        return True
