"""What ``agent-tui batch`` tells while it runs, on stderr.

Each finished task gets its line (``[3/10] t3 done (2 model calls $0.0042, 1.3 s)``). On a
terminal one live line under them is rewritten in place (carriage return and clear-to-end):
how many tasks are done, failed and running, the pass rate and cost so far, and an ETA from
the mean wall time of the finished tasks and the worker count. Anywhere else (a pipe, a log
file, ``TERM=dumb``) there are only the plain lines, without a carriage return.
"""

from __future__ import annotations

import asyncio
import math
import os
import shutil
import sys
import time
from typing import Any, TextIO

from ...core.text.counts import counted
from ...core.text.visible_text import visible

CLEAR_LINE = "\r\x1b[K"
"""Back to the line's start and clear to its end: the live line is redrawn with it."""
REFRESH_SECONDS = 1.0
"""How often the live line is redrawn while nothing finishes (its clock moves on)."""


class BatchProgress:
    """The progress of one batch run, told on ``stream`` as tasks start and finish.

    Args:
        total: Tasks this run has to do.
        workers: How many run at once (for the ETA).
        stream: Where to tell it (stderr).
        live: Draw the live line; by default, when ``stream`` is a terminal.
    """

    def __init__(
        self, total: int, workers: int, stream: TextIO | None = None, live: bool | None = None
    ) -> None:
        self.total = total
        self.workers = max(1, workers)
        self.stream = stream if stream is not None else sys.stderr
        self.live = _is_terminal(self.stream) if live is None else live
        self.started_at = time.monotonic()
        self.running: set[str] = set()
        self.finished = 0
        self.failed = 0
        self.graded = 0
        self.passed = 0
        self.cost = 0.0
        self.costed = 0
        self._wall_times: list[float] = []
        self._drawn = False

    def started(self, task_id: str) -> None:
        """A task began on a worker."""
        self.running.add(task_id)
        self.redraw()

    def finished_task(self, result: dict[str, Any]) -> None:
        """A task ended with ``result``: print its line and count it."""
        self.running.discard(str(result.get("id")))
        self.finished += 1
        passed = result.get("passed")
        # As the batch counts them: any status but done, or a check that did not pass.
        self.failed += result.get("status") != "done" or passed is False
        if isinstance(passed, bool):
            self.graded += 1
            self.passed += passed
        cost = result.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            self.cost += cost
            self.costed += 1
        wall = result.get("wall_time", result.get("duration"))
        if isinstance(wall, int | float) and not isinstance(wall, bool):
            self._wall_times.append(float(wall))
        self._write(task_line(self.finished, self.total, result) + "\n")
        self.redraw()

    def status_line(self) -> str:
        """``4 done, 1 failed, 2 running · passed 3/4 (75%) · $0.0123 · ETA 1m 05s``."""
        parts = [
            f"{self.finished - self.failed} done, {self.failed} failed, "
            f"{len(self.running)} running of {self.total}"
        ]
        if self.graded:
            parts.append(f"passed {self.passed}/{self.graded} ({self.passed / self.graded:.0%})")
        if self.costed:  # no price known (a local model): no cost rather than $0
            parts.append(f"${self.cost:.4f}")
        parts.append(f"ETA {eta}" if (eta := self.eta()) else "ETA after the first task")
        return " · ".join(parts)

    def eta(self) -> str | None:
        """Time left: the mean wall time of the finished tasks, times the waves of
        ``workers`` the remaining tasks need; None before any task has finished."""
        if not self._wall_times:
            return None
        remaining = self.total - self.finished
        mean = sum(self._wall_times) / len(self._wall_times)
        return _clock(mean * math.ceil(remaining / self.workers))

    def redraw(self) -> None:
        """Draw the live line again (nothing when not live)."""
        if self.live and self.finished < self.total:
            elapsed = _clock(time.monotonic() - self.started_at)
            line = f"{self.status_line()} · {elapsed} elapsed"
            width = _width(self.stream)
            if len(line) >= width:
                line = line[: max(0, width - 2)] + "…"
            self.stream.write(CLEAR_LINE + line)
            self.stream.flush()
            self._drawn = True

    def close(self) -> None:
        """Clear the live line, so what follows starts on a clean line."""
        if self._drawn:
            self.stream.write(CLEAR_LINE)
            self.stream.flush()
            self._drawn = False

    async def keep_fresh(self) -> None:
        """Redraw the live line every second until cancelled (its clock moves on)."""
        if not self.live:
            return
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            self.redraw()

    def _write(self, text: str) -> None:
        if self._drawn:
            text = CLEAR_LINE + text  # the task's line replaces the live line, which follows it
            self._drawn = False
        self.stream.write(text)
        self.stream.flush()


def task_line(finished: int, total: int, result: dict[str, Any]) -> str:
    """``[3/10] t3 done (2 model calls $0.0042, 1.3 s)``, with the check's verdict and the
    first line of the error when there is one; outside text is made visible."""
    cost = result.get("cost")
    cost_text = f" ${cost:.4f}" if isinstance(cost, int | float) else ""
    passed = result.get("passed")
    verdict = "" if not isinstance(passed, bool) else (", passed" if passed else ", check failed")
    error = str(result.get("error") or "")
    why = (
        f": {error.splitlines()[0][:120]}"
        if error and (result.get("status") != "done" or passed is False)
        else ""
    )
    wall = result.get("wall_time", result.get("duration"))
    seconds = wall if isinstance(wall, int | float) else 0.0
    return visible(
        f"[{finished}/{total}] {result.get('id')} {result.get('status')}{verdict} "
        f"({counted(result.get('model_calls') or 0, 'model call')}{cost_text}, "
        f"{seconds:.1f} s){why}"
    )


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM", "") != "dumb"
    except (AttributeError, ValueError):
        return False


def _width(stream: TextIO) -> int:
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        columns = 0
    return columns if columns > 0 else shutil.get_terminal_size().columns  # 0: not told yet


def _clock(seconds: float) -> str:
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"
