"""Watching real processes from tests: whether one still runs, and waiting for it to end."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie awaiting its reaper counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def gone(pid: int, within: float) -> bool:
    """Wait up to ``within`` seconds for ``pid`` to end; True if it did."""
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True
