"""The bubblewrap sandbox moved to ``core.safety.sandbox``: the engine sets it up and hands it
to tools in ``ToolContext``.

This name stays until ``core.agent`` and ``tui.cli`` import the sandbox from core.
"""

from __future__ import annotations

from ..core.safety.sandbox import make_sandbox, sandbox_problem

__all__ = ["make_sandbox", "sandbox_problem"]
