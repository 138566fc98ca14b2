"""Turning a validated call into an approval request (data, redacted) and its previewer.

The engine builds both from what it alone holds (the invocation, its confirmation, the
settings, the subprocess environment); the front end gets only the request and, for a
command, a function that previews it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..tools.names import EDIT_TOOLS, PREVIEW_TOOLS, ToolName
from .approval import (
    ApprovalRequest,
    ArgumentDetails,
    CommandDetails,
    Details,
    EditDetails,
    Previewer,
    PreviewSpec,
    preview_event,
)
from .changes.hunks import compute_hunks
from .events import EventSink
from .safety.preview import CommandPreview, PreviewUnavailable, preview_command
from .safety.redaction import redact_text

if TYPE_CHECKING:
    from ..tools.base import Confirmation, Invocation, ToolParams
    from .safety.permissions import Decision as PermissionDecision
    from .safety.permissions import PartVerdict

TICKABLE_TOOLS: frozenset[str] = EDIT_TOOLS
"""Tools whose hunks can be ticked: the ones an edited call can be rewritten as a write."""


def suggested_rules(decision: PermissionDecision,
                    invocation: Invocation[ToolParams]) -> tuple[str, ...]:
    """The rules "allow always" would save: the permission check's proposal (one per part
    of a command that needs one, e.g. ``shell(npm test)``), else one for the call's file."""
    if decision.rules or decision.parts or decision.any_mode:
        return decision.rules
    path = getattr(invocation.params, "file_path", None)
    return (f"{invocation.tool.name}({path})",) if isinstance(path, str) else ()


def approval_request(
    call_id: str, invocation: Invocation[ToolParams], reason: str, *,
    confirmation: Confirmation | None, workdir: Path, secrets: Sequence[str] = (),
    parts: tuple[PartVerdict, ...] = (), rules: tuple[str, ...] = (), any_mode: bool = False,
    preview_timeout: float = 10.0,
) -> ApprovalRequest:
    """The request for ``invocation``, with every text redacted of ``secrets``.

    Args:
        call_id: The model's id of the call.
        invocation: The validated call.
        reason: Why it needs approval.
        confirmation: What the tool says a person must see (None: its arguments).
        workdir: The project folder (paths are shown relative to it).
        secrets: Values to hide, besides key and token shapes.
        parts: A command's parts with their verdicts.
        rules: The rules "always allow" would save.
        any_mode: No approval mode would run it without a person.
        preview_timeout: The preview's time box, in seconds.
    """
    def shown(text: str) -> str:
        return redact_text(text, secrets)

    kind = confirmation.kind if confirmation else "info"
    if kind not in ("execute", "edit"):
        kind = "info"
    tool = invocation.tool.name
    params = invocation.params.model_dump()
    details: Details
    editable = False
    preview = None
    if kind == "execute" and confirmation is not None and confirmation.command is not None:
        where = confirmation.working_dir or workdir
        place = _display_path(workdir, where)
        details = CommandDetails(shown(confirmation.command),
                                 ". (the project folder)" if place == "." else shown(place))
        editable = "command" in params
        if tool in PREVIEW_TOOLS and confirmation.command:
            preview = PreviewSpec(details.command, Path(where), workdir, preview_timeout)
    elif kind == "edit" and confirmation is not None:
        before, after = shown(confirmation.before or ""), confirmation.after
        after = shown(after) if after is not None else None
        hunks = compute_hunks(before, after) if after is not None and tool in TICKABLE_TOOLS \
            else []
        details = EditDetails(
            _display_path(workdir, confirmation.path) if confirmation.path else "(file)",
            before, after, confirmation.details, tuple(hunks) if len(hunks) > 1 else ())
        editable = after is not None and (tool == ToolName.EDIT_FILE or "content" in params)
    else:
        details = ArgumentDetails(shown(json.dumps(params, indent=2, ensure_ascii=False,
                                                   default=str)))
    return ApprovalRequest(
        call_id, tool, kind, shown(invocation.describe()), shown(reason), details,
        parts=tuple(dataclasses.replace(
            p, text=shown(p.text), reason=shown(p.reason),
            suggest=shown(p.suggest) if p.suggest is not None else None) for p in parts),
        rules=tuple(shown(r) for r in rules), any_mode=any_mode, editable=editable,
        preview=preview,
        warnings=tuple(shown(w) for w in confirmation.warnings) if confirmation else ())


def _display_path(workdir: Path, path: Path) -> str:
    """``path`` relative to the project folder when it is inside it, else absolute."""
    try:
        return str(path.relative_to(workdir))
    except ValueError:
        return str(path)


def command_previewer(
    call_id: str, command: str, project: Path, working_dir: Path | None, *,
    env: Mapping[str, str] | None, timeout_s: float, bwrap: str | None,
    secrets: Sequence[str] = (), emit: EventSink | None = None,
) -> Previewer:
    """A :data:`~agent_tui.core.approval.Previewer` of ``command`` (as it would run).

    Each run goes off the event loop, passes the ``preview`` event to ``emit`` (the
    agent's, so it is logged) and returns the preview redacted of ``secrets``.
    """
    async def run(cancel: threading.Event | None = None) -> CommandPreview:
        try:
            preview = await asyncio.to_thread(
                preview_command, command, project, working_dir or project,
                timeout_s=timeout_s, env=env, bwrap=bwrap, cancel=cancel)
        except PreviewUnavailable as exc:
            raise PreviewUnavailable(redact_text(str(exc), secrets)) from None
        if emit is not None:
            emit(preview_event(call_id, preview))
        return redacted_preview(preview, secrets)

    return run


def redacted_preview(preview: CommandPreview, secrets: Sequence[str]) -> CommandPreview:
    """``preview`` with every text of the command's redacted."""
    def shown(text: str) -> str:
        return redact_text(text, secrets)

    return dataclasses.replace(
        preview, command=shown(preview.command), output=shown(preview.output),
        left_running=tuple(shown(c) for c in preview.left_running),
        changes=tuple(dataclasses.replace(c, path=shown(c.path), diff=shown(c.diff))
                      for c in preview.changes))
