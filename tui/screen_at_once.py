"""The workbench's screen: a change is drawn as soon as the screen is idle.

Textual draws a changed screen at the next tick of the screen's update timer, up to a
frame's interval (``TEXTUAL_FPS``) after the change. Measured on a pty at 200 words/s,
a typed key waited ~4 ms (p50) between its widget's repaint request and that tick, and
every flush of a streamed answer waited the same. :class:`AtOnceScreen` draws when the
screen is next idle instead, unless the last frame ended less than a frame's interval
ago (then the timer draws it, as Textual would): no more frames a second than before.
"""

from __future__ import annotations

import time

from textual import constants, events
from textual.screen import Screen

FRAME_INTERVAL = 1 / constants.MAX_FPS
"""The least time from the end of one frame to the start of the next drawn at once."""


class AtOnceScreen(Screen[None]):
    """Textual's default screen, drawn as soon as it is idle after a change."""

    def __init__(self) -> None:
        super().__init__(id="_default")
        self._drawn_at = 0.0

    async def _on_idle(self, event: events.Idle) -> None:
        if (not self.app._batch_count and self.is_current
                and time.monotonic() - self._drawn_at >= FRAME_INTERVAL
                and (self._layout_required or self._scroll_required
                     or self._repaint_required or self._dirty_widgets)):
            event.prevent_default()
            self._on_timer_update()
            return
        await super()._on_idle(event)

    def _on_timer_update(self) -> None:
        super()._on_timer_update()
        self._drawn_at = time.monotonic()
