"""One tool call end to end: validate it, ask the ``PreToolUse`` hooks, pass the approval
gate, snapshot the project before the turn's first change, execute it, ask the
``PostToolUse`` hooks, fit its result into the context, and report each step as an event.

:class:`ToolCalls` runs a model's calls for :class:`~agent_tui.core.agent.Agent` (which
owns one, as ``agent.calls``) and agent-tui's own calls (the planning commit) alike;
:class:`ApprovalGate` decides whether each call runs; :class:`TurnCheckpoints` takes each
turn's snapshots; :func:`fit_results` cuts a result too large for the window and
:func:`result_messages` gives the results to the model;
:class:`ResponseCalls` answers the calls a cancel left without a result.
"""

from .checkpoint import TurnCheckpoints
from .fitting import fit_results, result_messages
from .gate import ApprovalGate
from .pipeline import (
    CANCELLED_CALL,
    REPEATED_CALL,
    CallOwner,
    HookStopped,
    PreparedCall,
    ToolCalls,
)
from .unanswered import ResponseCalls

__all__ = [
    "CANCELLED_CALL",
    "REPEATED_CALL",
    "ApprovalGate",
    "CallOwner",
    "HookStopped",
    "PreparedCall",
    "ResponseCalls",
    "ToolCalls",
    "TurnCheckpoints",
    "fit_results",
    "result_messages",
]
