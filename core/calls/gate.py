"""The approval gate: between a validated call and its run.

The permission check allows, denies or asks; when it asks, the gate sends the approver an
:class:`~agent_tui.core.approval.ApprovalRequest` and turns the decision that comes back
into what runs (the call, or the person's edit of it), what the model is told, and which
"always allow" rules are kept for the session or saved in the user config.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ...tools.base import (
    Confirmation,
    ErrorType,
    Invocation,
    ToolArgumentError,
    ToolParams,
    ToolResult,
)
from ...tools.names import ToolName
from ..approval import (
    SCOPE_WORDS,
    Allow,
    ApprovalRequest,
    Approver,
    Decision,
    Deny,
    RememberedRules,
    RunEdited,
    WriteEdited,
    WriteHunks,
)
from ..approval_request import approval_request, command_previewer, suggested_rules
from ..changes.hunks import apply_hunks, compute_hunks, hunk_numbers
from ..config import Settings, save_rules
from ..events import ApprovalDecided, EventSink
from ..safety import permissions
from ..safety.permission_rules import RuleSet, Scope
from ..safety.redaction import REDACTED, redact_text, settings_secrets

if TYPE_CHECKING:
    from ...tools.base import ToolContext
    from ...tools.registry import ToolRegistry

NOTE_ARGS_LIMIT = 2000
"""Characters of an edited call's arguments told to the model."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a decision means for the call.

    Attributes:
        allowed: Whether anything runs.
        reason: Why, as logged (and told to the model when refused).
        by: ``user`` or ``policy``.
        run: The tool and arguments to run instead of the call (None: the call as is).
        note: Told to the model before the result (the person's change to the call).
        scope: How long ``rules`` allow such calls (``once``: not kept).
        rules: The "always allow" rules to keep or save.
    """

    allowed: bool
    reason: str
    by: str = "user"
    run: tuple[str, dict[str, object]] | None = None
    note: str = ""
    scope: Scope = "once"
    rules: tuple[str, ...] = ()


def outcome_of(decision: Decision, request: ApprovalRequest, invocation: Invocation[ToolParams],
               confirmation: Confirmation | None, secrets: Sequence[str] = (),
               rules: Sequence[str] | None = None) -> Outcome:
    """What ``decision`` on ``request`` means; no side effects.

    ``invocation``, ``confirmation`` and ``rules`` (the rules offered, default
    ``request.rules``) are the call as the engine holds it, unredacted: the person's edits
    are made to the text they saw, and secrets they left hidden are put back.
    """
    if isinstance(decision, Deny):
        if decision.by == "policy":
            return Outcome(False, decision.reason or "refused by the policy", by="policy")
        said = f": {decision.reason}" if decision.reason else ""
        return Outcome(False, f"denied by the user{said}")
    params = invocation.params.model_dump()
    if isinstance(decision, RunEdited):
        original = confirmation.command if confirmation and confirmation.command else ""
        args = {**params, "command": unredact(decision.command, original, secrets)}
        return _edited(request.tool, args)
    if isinstance(decision, WriteEdited):
        original = confirmation.after if confirmation and confirmation.after else ""
        content = unredact(decision.content, original, secrets)
        if request.tool == ToolName.EDIT_FILE:
            return _edited(ToolName.WRITE_FILE, {"file_path": params["file_path"], "content": content})
        return _edited(request.tool, {**params, "content": content})
    offered = dict(zip(request.rules, request.rules if rules is None else rules, strict=True))
    chosen = tuple(r for r in decision.rules if r in offered)
    scope = decision.scope if chosen else "once"
    kept_for = (f"always allowed in {SCOPE_WORDS[scope]}: {', '.join(chosen)}"
                if scope != "once" else "")
    kept = tuple(offered[r] for r in chosen)
    if isinstance(decision, Allow):
        return Outcome(True, kept_for or "approved once", scope=scope, rules=kept)
    return _hunks_written(decision, params, confirmation, kept_for, scope, kept)


def _edited(tool: str, args: dict[str, object]) -> Outcome:
    told = json.dumps(args, ensure_ascii=False)[:NOTE_ARGS_LIMIT]
    return Outcome(True, "approved after the user edited it", run=(tool, args), note=(
        f"the person edited this call before it ran; it ran as {tool} with {told}"))


def _hunks_written(decision: WriteHunks, params: dict[str, object],
                   confirmation: Confirmation | None, kept_for: str, scope: Scope,
                   rules: tuple[str, ...]) -> Outcome:
    """Write only the kept hunks, telling the model which were left out."""
    before = (confirmation.before or "") if confirmation else ""
    after = confirmation.after if confirmation else None
    hunks = compute_hunks(before, after) if after is not None else []
    if len(hunks) != decision.total or not decision.kept:
        return Outcome(False, "denied by the user: every hunk of the change was left out"
                       if not decision.kept else
                       "the change could not be split into the hunks the person ticked")
    if len(decision.kept) == len(hunks):
        return Outcome(True, kept_for or "approved once", scope=scope, rules=rules)
    kept = [h for h in hunks if h.index in decision.kept]
    left = [h for h in hunks if h.index not in decision.kept]
    lines = [
        f"the person applied only some hunks of this call: {params['file_path']} was "
        f"written with hunk{'s' if len(kept) > 1 else ''} {hunk_numbers(kept)} of "
        f"{len(hunks)} and without hunk{'s' if len(left) > 1 else ''} "
        f"{hunk_numbers(left)}, which the person left out:"]
    for hunk in left:
        lines.append(f"- hunk {hunk.index + 1} (your {hunk.new_range}, {hunk.old_range} "
                     "before):")
        lines.extend(f"    {line}" for line in hunk.excerpt())
    lines.append("Read the file again before you edit it further; do not redo the "
                 "left-out hunks unless asked.")
    args = {"file_path": params["file_path"], "content": apply_hunks(before, kept)}
    return Outcome(True, kept_for or f"approved {len(kept)} of {len(hunks)} hunks",
                   run=(ToolName.WRITE_FILE, args), note="\n".join(lines), scope=scope, rules=rules)


def unredact(edited: str, original: str, secrets: Sequence[str]) -> str:
    """``edited`` (made from the redacted ``original``) with the hidden values put back.

    Each ``[REDACTED]`` the person left stands for the value it hid, in order; when the
    count differs from the original's, the text stays as the person wrote it.
    """
    if REDACTED not in edited:
        return edited
    shown = redact_text(original, secrets)
    pieces = shown.split(REDACTED)
    pattern = "(.+?)".join(re.escape(p) for p in pieces)
    match = re.fullmatch(pattern, original, re.DOTALL)
    parts = edited.split(REDACTED)
    if match is None or len(parts) != len(pieces):
        return edited
    hidden = match.groups()
    return "".join(p + (hidden[i] if i < len(hidden) else "") for i, p in enumerate(parts))


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """What ``PreToolUse`` hooks decided of a call: ``allow``, ``deny`` or ``ask``, and why."""

    decision: str
    reason: str = ""


def _with_hook(verdict: permissions.Decision, hook: HookAnswer) -> permissions.Decision:
    said = f": {hook.reason}" if hook.reason else ""
    if verdict.verdict == permissions.Verdict.DENY:
        return verdict  # a hook cannot let through what the rules or the judge deny
    if hook.decision == "deny":
        return permissions.Decision(permissions.Verdict.DENY,
                                    f"a PreToolUse hook denied it{said}", by="hook")
    if hook.decision == "ask" and verdict.verdict == permissions.Verdict.ALLOW:
        return replace(verdict, verdict=permissions.Verdict.ASK,
                       reason=f"a PreToolUse hook asks first{said}", any_mode=True)
    if hook.decision == "allow" and verdict.verdict == permissions.Verdict.ASK:
        return permissions.Decision(permissions.Verdict.ALLOW,
                                    f"allowed by a PreToolUse hook{said}", by="hook")
    return verdict


@dataclass(frozen=True, slots=True)
class Cleared:
    """A call the gate lets through: what runs, and the note the model reads first."""

    invocation: Invocation[ToolParams]
    note: str = ""


class ApprovalGate:
    """Decides whether each call runs, asking the approver when the rules say so.

    Args:
        approver: Who answers (a person in the workbench, a policy headless).
        registry: Builds the person's edit of a call.
        ctx: The tools' context the edit is built in.
        workdir: The project folder.
        emit: Where ``approval`` (and ``preview``) events go.
    """

    def __init__(self, approver: Approver, registry: ToolRegistry, ctx: ToolContext,
                 workdir: Path, emit: EventSink) -> None:
        self.approver = approver
        self.registry = registry
        self.ctx = ctx
        self.workdir = workdir
        self.emit = emit
        self.session_rules: list[str] = []
        """Allow rules the person gave for this session only (kept in memory)."""
        self.saved_rules: list[str] = []
        """Allow rules the person saved in the user config during this run."""
        self.turn_rules: list[str] = []
        """Allow rules for the current turn only (a custom command's allowed tools)."""

    def share_rules(self, other: ApprovalGate) -> None:
        """Keep the rules of ``other`` (a sub-agent's or a successor's gate): one set."""
        self.session_rules = other.session_rules
        self.saved_rules = other.saved_rules

    async def clear(self, call_id: str, invocation: Invocation[ToolParams], settings: Settings,
                    hook: HookAnswer | None = None) -> Cleared | ToolResult:
        """Let ``invocation`` through (perhaps as the person edited it), or refuse it.

        Args:
            hook: What the ``PreToolUse`` hooks said, if any said something: ``deny``
                refuses, ``ask`` asks even where the rules allow, ``allow`` lets through
                what would ask — never what is denied.
        """
        rules = RuleSet.from_settings(
            settings, [*self.saved_rules, *self.session_rules, *self.turn_rules])
        verdict = permissions.decide(invocation, settings.approval_mode, self.workdir, rules)
        if hook is not None:
            verdict = _with_hook(verdict, hook)
        if verdict.verdict == permissions.Verdict.ASK:
            outcome = await self._ask(call_id, invocation, verdict, settings)
        else:
            outcome = Outcome(verdict.verdict == permissions.Verdict.ALLOW, verdict.reason,
                              by=verdict.by)
        command = outcome.run[1].get("command") if outcome.run is not None else None
        if outcome.allowed and isinstance(command, str):
            # The person's edit is theirs to make, but never into a hard-denied command.
            denial = permissions.hard_denied(command, self.workdir)
            if denial:
                outcome = Outcome(False, denial, by=outcome.by)
        edited: Invocation[ToolParams] | None = None
        invalid: ToolArgumentError | None = None
        if outcome.allowed and outcome.run is not None:
            try:
                edited = self.registry.build(*outcome.run, self.ctx)
            except ToolArgumentError as exc:
                invalid = exc
        # Front ends show what runs: the person's edit, named as such, not the proposal.
        self.emit(ApprovalDecided(
            call_id, "allow" if outcome.allowed else "deny", outcome.reason, outcome.by,
            edited_summary=edited.describe() if edited is not None else "",
            edited_args=outcome.run[1] if edited is not None and outcome.run else None))
        if not outcome.allowed:
            return ToolResult.failure(f"the call was denied: {outcome.reason}",
                                      error_type=ErrorType.DENIED)
        self._keep(outcome, settings)
        if invalid is not None:
            return ToolResult.failure(f"the person's edit of this call is invalid: {invalid}",
                                      error_type=invalid.error_type)
        if edited is None:
            return Cleared(invocation)
        return Cleared(edited, f"Note: {outcome.note}\n")

    async def _ask(self, call_id: str, invocation: Invocation[ToolParams],
                   verdict: permissions.Decision, settings: Settings) -> Outcome:
        confirmation = invocation.confirmation()
        secrets = settings_secrets(settings)
        rules = suggested_rules(verdict, invocation)
        request = approval_request(
            call_id, invocation, verdict.reason, confirmation=confirmation,
            workdir=self.workdir, secrets=secrets, parts=verdict.parts,
            rules=rules, any_mode=verdict.any_mode,
            preview_timeout=float(settings.preview_timeout))
        preview = None
        if request.preview is not None and confirmation and confirmation.command:
            preview = command_previewer(
                call_id, confirmation.command, self.workdir, request.preview.working_dir,
                env=self.ctx.env, timeout_s=request.preview.timeout_s,
                bwrap=settings.bwrap_path, secrets=secrets, emit=self.emit)
        decision = await self.approver.ask(request, preview)
        return outcome_of(decision, request, invocation, confirmation, secrets, rules)

    def _keep(self, outcome: Outcome, settings: Settings) -> None:
        """Keep "always allow" rules for the session, or save them in the user config."""
        if outcome.scope == "session":
            self.session_rules.extend(r for r in outcome.rules if r not in self.session_rules)
        elif outcome.scope in ("project", "user"):
            fresh = [r for r in outcome.rules
                     if r not in self.saved_rules and r not in settings.allow_rules]
            self.saved_rules.extend(fresh)
            try:
                path = save_rules(outcome.rules, outcome.scope, self.workdir)
            except OSError as exc:
                saved = RememberedRules(outcome.rules, outcome.scope, error=str(exc))
            else:
                saved = RememberedRules(outcome.rules, outcome.scope, path=path)
            self.approver.remembered(saved)
