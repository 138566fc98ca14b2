"""The driver of a workbench served to a browser (``agent-tui serve``): textual's
WebDriver, which talks to the server over standard input and output, made to leave once
the server has gone.

textual's own WebDriver lives on when its pipes are gone: at the end of its input (the
server closed it, or died) its input thread just stops, and an idle workbench then waits
forever for keys that cannot come; a write to an output nobody reads any more fails with
EPIPE in whatever was drawing. This one leaves, the way ``/quit`` does (the session saved,
its lock released), at the first of either.
"""

from __future__ import annotations

import os

from textual import messages
from textual.drivers.web_driver import WebDriver


class ServedDriver(WebDriver):
    """A WebDriver that ends the app when the server's end of its pipes is gone."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.output_gone = False
        """Whether a write found the output closed (nothing is written after that)."""
        self._write = self._write_unless_gone

    def _write_unless_gone(self, data: bytes) -> int:
        if self.output_gone:
            return len(data)
        try:
            return os.write(self.fileno, data)
        except OSError:  # EPIPE: the server is gone; EBADF: the output was closed
            self.output_gone = True
            self._leave()
            return len(data)

    def run_input_thread(self) -> None:
        """Read the server's input; its end (not ours) means the server has gone."""
        super().run_input_thread()
        if not self.exit_event.is_set():  # set when the app stops the driver itself
            self._leave()

    def _leave(self) -> None:
        # Thread-safe, and what textual's driver does on the server's "quit".
        self._app.post_message(messages.ExitApp())
