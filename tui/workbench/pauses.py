"""What pauses the workbench's event loop, kept short: garbage collection and the GIL.

Once litellm is loaded, what exists is frozen and full collections are made rare
(:mod:`agent_tui.core.long_lived`, as the stream worker does); what a turn leaves is
frozen when it ends, and everything is collected once the person has been away a while.

Keys are read by Textual's input thread, frames written by its output thread; each waits
for the GIL while the event loop runs Python. At Python's default switch interval a key
waited several intervals for the loop while an answer streamed; at the shorter
``SWITCH_INTERVAL`` each of those waits is shorter.
"""

from __future__ import annotations

import gc
import sys

from ...core.long_lived import THRESHOLDS, settle_long_lived

__all__ = ["SWITCH_INTERVAL", "THRESHOLDS", "collect_everything", "freeze_between_turns",
           "pause_collection", "quick_thread_switches", "settle_long_lived"]

SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the GIL while another waits (Python's default: 0.005)."""


def quick_thread_switches() -> None:
    """Let the input and output threads in within a millisecond (``SWITCH_INTERVAL``)."""
    sys.setswitchinterval(SWITCH_INTERVAL)


def pause_collection() -> None:
    """No collections while the big imports run (each one would walk all they made so far,
    pausing every thread); :func:`settle_long_lived` resumes them."""
    gc.disable()


def freeze_between_turns() -> None:
    """Freeze what a turn left (a turn has ended): later collections do not walk it.

    No collection here: the first one after a long answer walked everything the turn made,
    and a key pressed then waited for it. The young generations have freed the
    turn's short-lived cycles already; what else died in cycles is freed by
    :func:`collect_everything` once the person is away.
    """
    gc.freeze()


def collect_everything() -> None:
    """Unfreeze everything and collect: the cycles that died among frozen objects (widgets
    of a conversation that was cleared, say) are freed. It walks every object (half a
    second or more): run it only when the person has been away a while."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
