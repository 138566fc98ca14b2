"""One persona: a role the session takes on, read from a Markdown file (Claude Code's
``.claude/agents/*.md`` adapted to agent-tui), and what it does to a session.

A persona adds its prompt to the system prompt, may switch the model, may limit the tools
offered to the model (``tools``, as in Claude Code: a limit, never a grant) and may set the
approval mode. What widens what the agent may do (another model, a more permissive mode)
comes only from a source that may grant it: a bundled persona, the person's own, or a
trusted project's. What narrows it (the tool limit, a stricter mode) applies from any
source. A persona's mode is never more permissive than an ``--approval-mode`` given on the
command line, and a ``--model`` given there wins over the persona's at start-up.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...tools.names import ToolName
from ...tools.registry import canonical_name

if TYPE_CHECKING:
    from ..settings import Settings

SOURCES: tuple[str, ...] = ("bundled", "user", "project")
"""Where personas come from, lowest priority first."""

GRANTING_SOURCES = frozenset({"bundled", "user"})
"""Sources whose personas may switch the model and widen the approval mode; a project's
may once the person trusts the folder."""

MODE_ORDER: tuple[str, ...] = ("plan", "default", "auto-edit", "yolo")
"""Approval modes from the strictest to the most permissive."""

ALWAYS_OFFERED = frozenset({ToolName.REHYDRATE.value})
"""Tools a tool limit keeps: ``rehydrate`` reads back the session's own thinned results,
which the context manager tells the model to use."""

CLAUDE_CODE_TOOLS: dict[str, tuple[str, ...]] = {
    "Read": (ToolName.READ_FILE, ToolName.READ_MANY_FILES, ToolName.READ_IMAGE),
    "Write": (ToolName.WRITE_FILE,),
    "Edit": (ToolName.EDIT_FILE, ToolName.STR_REPLACE),
    "MultiEdit": (ToolName.EDIT_FILE, ToolName.STR_REPLACE),
    "NotebookEdit": (ToolName.EDIT_FILE,),
    "Bash": (ToolName.SHELL, ToolName.BACKGROUND_PROCESS),
    "BashOutput": (ToolName.BACKGROUND_PROCESS,),
    "KillShell": (ToolName.BACKGROUND_PROCESS,),
    "KillBash": (ToolName.BACKGROUND_PROCESS,),
    "Grep": (ToolName.GREP, ToolName.CODE_SEARCH),
    "Glob": (ToolName.GLOB_FILES,),
    "LS": (ToolName.LS,),
    "WebFetch": (ToolName.WEB_FETCH,),
    "WebSearch": (ToolName.WEB_SEARCH,),
    "Task": (ToolName.TASK,),
    "TodoWrite": (ToolName.TODO_WRITE, ToolName.TODO_READ),
    "TodoRead": (ToolName.TODO_READ,),
}
"""Claude Code's tool names in a persona's ``tools``, and agent-tui's tools they mean, so
that a ``.claude/agents`` file works when copied."""

CLAUDE_CODE_MODES: dict[str, str] = {"acceptEdits": "auto-edit", "bypassPermissions": "yolo",
                                     "default": "default", "plan": "plan"}
"""Claude Code's ``permissionMode`` values, as agent-tui's approval modes."""

CLAUDE_CODE_MODELS = frozenset({"sonnet", "opus", "haiku", "opusplan"})
"""Claude Code's model aliases, which name no litellm model."""


@dataclass(frozen=True, slots=True)
class Persona:
    """A persona read from its file.

    Attributes:
        name: What ``--agent`` and ``/agent`` call it.
        description: One line: what it is for.
        prompt: Its instructions, added to the system prompt.
        path: The file.
        source: ``bundled``, ``user`` or ``project``.
        model: The litellm model it switches the session to; None keeps the session's.
        tools: The tools it limits the model to, as written (names, Claude Code names,
            ``*`` patterns); () offers every tool.
        disallowed_tools: Tools it takes away, as written.
        approval_mode: The approval mode it sets; None keeps the session's.
        may_grant: Whether its model and a more permissive mode apply (bundled, the
            person's own, a trusted project's).
    """

    name: str
    description: str
    prompt: str
    path: Path
    source: str
    model: str | None = None
    tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    approval_mode: str | None = None
    may_grant: bool = True

    def offers(self, tool: str) -> bool:
        """Whether the model is offered ``tool`` while this persona is on."""
        if tool in ALWAYS_OFFERED:
            return True
        if self.disallowed_tools and _matches_any(tool, self.disallowed_tools):
            return False
        return not self.tools or _matches_any(tool, self.tools)

    @property
    def limits_tools(self) -> bool:
        """Whether it hides any tool from the model."""
        return bool(self.tools or self.disallowed_tools)

    def tool_filter(self) -> Callable[[str], bool] | None:
        """What :meth:`~agent_tui.tools.registry.ToolRegistry.offer_only` takes: None when
        every tool is offered."""
        return self.offers if self.limits_tools else None

    def limit_reason(self) -> str:
        """What the model is told when it calls a tool this persona hides."""
        parts = []
        if self.tools:
            parts.append(f"offers only {', '.join(self.tools)}")
        if self.disallowed_tools:
            parts.append(f"takes away {', '.join(self.disallowed_tools)}")
        return f"the {self.name} persona {' and '.join(parts)}"

    def prompt_section(self) -> str:
        """The system prompt's section of this persona."""
        return ("\nThe person chose a persona for this session; take on its role. Its "
                "instructions come before the general working rules above where they "
                "differ, but not before safety rules or the person's own words.\n"
                f'<persona name="{self.name}" source="{self.source}" path="{self.path}">\n'
                f"{self.prompt.strip()}\n</persona>\n")

    def to_dict(self) -> dict[str, Any]:
        """The persona as ``agent-tui agents list --json`` prints it."""
        return {"name": self.name, "source": self.source, "file": str(self.path),
                "description": self.description, "model": self.model,
                "tools": list(self.tools), "disallowed_tools": list(self.disallowed_tools),
                "approval_mode": self.approval_mode, "may_grant": self.may_grant}


@dataclass(slots=True)
class PersonaChanges:
    """What taking on a persona changes in the settings.

    Attributes:
        settings: The settings to update (``agent``, and ``model``/``approval_mode`` where
            they apply).
        notes: What the persona asked for that was not applied, and why, one sentence each.
    """

    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def persona_changes(persona: Persona, settings: Settings, flag_mode: str | None = None,
                    flag_model: str | None = None) -> PersonaChanges:
    """The settings ``persona`` changes, from ``settings`` as they are.

    Args:
        persona: The persona taken on.
        settings: The session's settings (``model``, ``approval_mode``).
        flag_mode: The ``--approval-mode`` given on the command line, if any: the persona's
            mode is never more permissive.
        flag_model: The ``--model`` given on the command line when the session starts, if
            any: it wins over the persona's.
    """
    changes = PersonaChanges({"agent": persona.name})
    where = f"{persona.path} ({persona.source})"
    if persona.model and persona.model != settings.model:
        if flag_model is not None:
            changes.notes.append(
                f"{where}: the model {persona.model} was not switched to: --model "
                f"{flag_model} on the command line wins.")
        elif persona.may_grant:
            changes.settings["model"] = persona.model
        else:
            changes.notes.append(
                f"{where}: the model {persona.model} was not switched to: this project's "
                "files may not choose the model until you trust the folder "
                "(trusted_projects in your config.toml).")
    wanted = persona.approval_mode
    if wanted is not None and wanted != settings.approval_mode:
        mode = wanted
        if not persona.may_grant and _rank(wanted) > _rank(settings.approval_mode):
            mode = settings.approval_mode
            changes.notes.append(
                f"{where}: approval mode {wanted} was not set: an untrusted project's "
                "persona may only make the mode stricter.")
        elif flag_mode is not None and _rank(wanted) > _rank(flag_mode):
            mode = flag_mode
            changes.notes.append(
                f"{where}: approval mode {wanted} was not set: it is more permissive than "
                f"--approval-mode {flag_mode} on the command line.")
        if mode != settings.approval_mode:
            changes.settings["approval_mode"] = mode
    return changes


def tool_entry_problems(path: Path, key: str, entries: tuple[str, ...]) -> list[str]:
    """What is doubtful in a ``tools`` list: a name no tool has (it can only match an MCP
    or discovered tool of that name), a permission pattern (``shell(git *)``), which a
    limit cannot express."""
    problems = []
    for entry in entries:
        if "(" in entry:
            problems.append(
                f"{path}: {key}: {entry!r} — a persona limits whole tools; the pattern in "
                "parentheses is ignored (allow_rules in config.toml allow calls by pattern).")
        elif not _is_pattern(entry) and not entry.startswith("mcp__") \
                and _known_tools(entry) is None:
            problems.append(
                f"{path}: {key}: no built-in tool is called {entry!r}; it matches only an "
                "MCP or discovered tool of that name.")
    return problems


def _rank(mode: str) -> int:
    return MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER)


def _is_pattern(entry: str) -> bool:
    return any(char in entry for char in "*?[")


def _known_tools(entry: str) -> tuple[str, ...] | None:
    """The built-in tools ``entry`` names (agent-tui's name, Claude Code's, or another
    agent's alias); None when it names none."""
    if entry in CLAUDE_CODE_TOOLS:
        return tuple(str(t) for t in CLAUDE_CODE_TOOLS[entry])
    name = canonical_name(entry)
    return (name,) if name in set(ToolName) else None


def _matches_any(tool: str, entries: tuple[str, ...]) -> bool:
    for entry in entries:
        entry = entry.split("(", 1)[0].strip()
        if _is_pattern(entry):
            if fnmatch.fnmatchcase(tool, entry):
                return True
        elif tool == entry or tool in (_known_tools(entry) or ()):
            return True
    return False
