"""Whether a tool call may run: approval modes, the workspace boundary, hard-denied commands.

``decide`` answers allow, ask or deny. What "ask" becomes is up to the front end's
approver: the TUI asks the person, a headless run refuses unless the mode allows.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from agent_tui.tools.base import Invocation, ToolKind


class Verdict(StrEnum):
    """The three answers of a permission check."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


@dataclass(frozen=True, slots=True)
class Decision:
    """A verdict and the reason a person (or the model) is shown."""

    verdict: Verdict
    reason: str = ""


# Commands refused in every mode, yolo included. The full shell analysis (tree-sitter-bash,
# wrappers, substitutions) builds on this list.
HARD_DENIED: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), why)
    for pattern, why in (
        (
            r"\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z]+\s+)*"
            r"(--no-preserve-root\s+)?(/|~|\$HOME)/?(\s|$|\*)",
            "deletes the root or home folder",
        ),
        (r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:", "is a fork bomb"),
        (r"\bmkfs(\.\w+)?\b", "formats a file system"),
        (r"\bdd\b[^|;&]*\bof=/dev/(sd|hd|nvme|vd|xvd|mmcblk|disk)", "overwrites a disk device"),
        (r">\s*/dev/(sd|hd|nvme|vd|xvd|mmcblk)", "overwrites a disk device"),
        (
            r"\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|da)?sh\b",
            "runs a script straight from the network",
        ),
        (r"\bchmod\s+(-[a-zA-Z]*R[a-zA-Z]*\s+)777\s+/(\s|$)", "opens the whole system to all"),
    )
)


_SHELL_CONTROL = re.compile(r"[;&|`$<>()\n]")


def hard_denied(command: str) -> str | None:
    """The reason ``command`` is refused in every mode, or None."""
    for pattern, why in HARD_DENIED:
        if pattern.search(command):
            return f"the command {why}; agent-tui never runs it"
    return None


def is_inside(path: Path, root: Path) -> bool:
    """True when ``path`` (symlinks followed) lies inside ``root`` (symlinks followed)."""
    real = Path(os.path.realpath(path))
    real_root = Path(os.path.realpath(root))
    return real == real_root or real_root in real.parents


def rule_subject(invocation: Invocation[Any], workdir: Path) -> str | None:
    """What an allow rule is matched against: the command, or the path in the project."""
    params = invocation.params
    command = getattr(params, "command", None)
    if isinstance(command, str):
        return command.strip()
    path = getattr(params, "file_path", None)
    if isinstance(path, str):
        resolved = invocation.ctx.resolve(path)
        return str(resolved.relative_to(workdir)) if is_inside(resolved, workdir) else str(
            resolved)
    return None


def rule_matches(rule: str, invocation: Invocation[Any], workdir: Path) -> bool:
    """Whether ``rule`` (``tool(pattern)``, or a bare tool name) covers ``invocation``.

    The pattern is an fnmatch glob over the command (shell) or the project-relative path.
    """
    name, _, rest = rule.partition("(")
    if name.strip() != invocation.tool.name:
        return False
    if not rest:
        return True
    pattern = rest.removesuffix(")")
    subject = rule_subject(invocation, workdir)
    if subject is None:
        return False
    if subject == pattern:
        return True
    # A glob must never stretch over a second command: `npm run test:*` does not cover
    # `npm run test:x; rm -rf ~`.
    if invocation.tool.kind == ToolKind.EXECUTE and _SHELL_CONTROL.search(subject):
        return False
    return fnmatch.fnmatchcase(subject, pattern)


def decide(invocation: Invocation[Any], mode: str, workdir: Path,
           allow_rules: list[str] | tuple[str, ...] = ()) -> Decision:
    """Judge one validated call under approval ``mode`` for the project at ``workdir``."""
    tool = invocation.tool
    command = getattr(invocation.params, "command", None)
    if tool.kind == ToolKind.EXECUTE and isinstance(command, str):
        reason = hard_denied(command)
        if reason:
            return Decision(Verdict.DENY, reason)
    if mode != "plan" or tool.read_only:
        for rule in allow_rules:
            if rule_matches(rule, invocation, workdir):
                return Decision(Verdict.ALLOW, f"allowed by the rule {rule}")
    outside = [p for p in invocation.locations() if not is_inside(p, workdir)]
    where = f" outside the project ({outside[0]})" if outside else ""
    if mode == "yolo":
        return Decision(Verdict.ALLOW, "yolo mode")
    if tool.read_only:
        if not outside:
            return Decision(Verdict.ALLOW, "read-only")
        if mode == "plan":
            return Decision(Verdict.DENY, f"plan mode does not read{where}")
        return Decision(Verdict.ASK, f"reads{where}")
    if mode == "plan":
        return Decision(
            Verdict.DENY,
            "plan mode allows read-only tools only; propose the "
            "change as a plan instead of making it",
        )
    if tool.kind == ToolKind.EDIT:
        if mode == "auto-edit" and not outside:
            return Decision(Verdict.ALLOW, "auto-edit mode")
        return Decision(Verdict.ASK, f"changes files{where}")
    if tool.kind == ToolKind.EXECUTE:
        return Decision(Verdict.ASK, "runs a command")
    return Decision(Verdict.ASK, f"{tool.kind.value} tool{where}")
