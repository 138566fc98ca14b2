"""Garbage collection for a process whose imports made most of its objects (litellm and the
OpenAI SDK: about 1.5 million): what exists once they are loaded is frozen, and full
collections are made rare.

Python's full (oldest-generation) collection walks every tracked object; a stream's
allocations set one off again and again, each a pause in which the workbench answered no
key and the stream worker sent no text. The workbench
(:mod:`agent_tui.tui.workbench.pauses`) and the stream worker
(:mod:`agent_tui.core.providers.stream_worker`) both settle this way.
"""

from __future__ import annotations

import gc

THRESHOLDS = (700, 10, 10_000)
"""Python's young and middle generations as they are (their pauses stay short), and an
automatic full collection only after 10,000 middle ones: at 1,000, a big tool output set
one off late in a long session, with the keys waiting for it. Full collections run between
turns instead, once the person has stopped typing."""


def settle_long_lived() -> None:
    """Freeze every object alive now, make automatic full collections rare, and let
    collections run again.

    Safe from any thread; call it once the big imports are done.
    """
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    gc.enable()
