"""Finding the personas of a session in their three sources and choosing, by priority,
the one each name means: bundled, then the person's ``agents/`` folder, then the project's
``.agent-tui/agents/`` (a later one shadows an earlier one of the same name)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .. import paths
from ..text.frontmatter import FrontmatterError, MarkdownDocument, read_markdown
from .persona import (
    CLAUDE_CODE_MODELS,
    CLAUDE_CODE_MODES,
    GRANTING_SOURCES,
    MODE_ORDER,
    Persona,
    tool_entry_problems,
)

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(slots=True)
class PersonaCatalog:
    """The personas on offer, and what could not be loaded.

    Attributes:
        personas: Each name's persona (the highest-priority file of that name).
        shadowed: (hidden, shadowing) pairs: a persona another source's file replaces.
        problems: What is wrong in which file (and line), one sentence each.
    """

    personas: dict[str, Persona] = field(default_factory=dict)
    shadowed: list[tuple[Persona, Persona]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> Persona | None:
        """The persona called ``name``, if any."""
        return self.personas.get(name)

    @property
    def names(self) -> list[str]:
        """The personas' names, sorted."""
        return sorted(self.personas)

    def __iter__(self) -> Iterator[Persona]:
        """The personas, sorted by name."""
        return iter(self.personas[name] for name in self.names)

    def __len__(self) -> int:
        return len(self.personas)

    def unknown(self, name: str) -> str:
        """What to say of a name no persona has: the names there are, and where files go."""
        names = ", ".join(self.names) or "none"
        return (f"there is no persona called {name!r}. Available: {names}. A persona is a "
                f"Markdown file in {paths.user_agents_dir()} or the project's "
                f"{paths.PROJECT_DIR_NAME}/agents/; `agent-tui agents list` shows them all.")


def bundled_personas_folder() -> Path:
    """The personas that come with agent-tui."""
    return Path(__file__).parent / "bundled"


def persona_sources(workdir: Path) -> list[tuple[Path, str]]:
    """Each folder personas are read from with its source, lowest priority first (the
    folders need not exist)."""
    return [(bundled_personas_folder(), "bundled"), (paths.user_agents_dir(), "user"),
            (paths.project_agents_dir(workdir), "project")]


def load_personas(workdir: Path, *, trusted: bool | None = None) -> PersonaCatalog:
    """Every persona for a session at ``workdir``; broken files are noted in ``problems``
    and skipped.

    Args:
        workdir: The working folder (its project's personas are read).
        trusted: Whether the project is trusted; None: look it up when a project persona
            is found.
    """
    catalog = PersonaCatalog()
    for folder, source in persona_sources(workdir):
        try:
            files = sorted(p for p in folder.glob("*.md")
                           if not p.name.startswith(".") and p.is_file())
        except OSError:
            continue
        for path in files:
            may_grant = source in GRANTING_SOURCES
            if not may_grant:
                if trusted is None:
                    from ..config import is_trusted

                    trusted = is_trusted(paths.project_root(workdir))
                may_grant = trusted
            persona = read_persona(path, source, may_grant, catalog.problems)
            if persona is None:
                continue
            if (hidden := catalog.personas.get(persona.name)) is not None:
                catalog.shadowed.append((hidden, persona))
            catalog.personas[persona.name] = persona
    return catalog


def read_persona(path: Path, source: str, may_grant: bool,
                 problems: list[str]) -> Persona | None:
    """The persona in ``path``; None (and a problem said) when the file is broken.

    Front matter keys: ``name`` (default: the file's name), ``description``, ``model``
    (``inherit`` keeps the session's), ``tools`` (or ``allowed-tools``),
    ``disallowed-tools``, ``approval-mode`` (or Claude Code's ``permissionMode``); other
    keys (Claude Code's ``color``) are ignored.
    """
    try:
        document = read_markdown(path)
        name = document.text("name") or path.stem
        description = document.text("description")
        model = document.text("model") or None
        tools_key = "tools" if "tools" in document.meta else "allowed-tools"
        tools = document.names(tools_key)
        disallowed_key = next((k for k in ("disallowed-tools", "disallowedTools",
                                           "disallowed_tools") if k in document.meta),
                              "disallowed-tools")
        disallowed = document.names(disallowed_key)
        mode = _approval_mode(document)
    except FrontmatterError as exc:
        problems.append(f"{exc}; the persona was skipped.")
        return None
    if not _NAME.match(name):
        problems.append(f"{path}:1: the persona's name {name!r} may hold only lowercase "
                        "letters, digits, - and _ (and start with a letter or digit); "
                        "the persona was skipped.")
        return None
    if not document.body.strip():
        problems.append(f"{path}: the persona has no prompt after its front matter; "
                        "it was skipped.")
        return None
    if model == "inherit":
        model = None
    elif model in CLAUDE_CODE_MODELS:
        problems.append(f"{path}:1: model {model!r} is a Claude Code alias, not a litellm "
                        "model; write e.g. anthropic/claude-sonnet-4-20250514. The "
                        "session's model is kept.")
        model = None
    problems += tool_entry_problems(path, tools_key, tools)
    problems += tool_entry_problems(path, disallowed_key, disallowed)
    first_line = document.body.strip().splitlines()[0].lstrip("# ").strip()
    return Persona(name=name, description=description or first_line[:80],
                   prompt=document.body.strip(), path=path, source=source, model=model,
                   tools=tools, disallowed_tools=disallowed, approval_mode=mode,
                   may_grant=may_grant)


def _approval_mode(document: MarkdownDocument) -> str | None:
    """The ``approval-mode`` (or ``approval_mode``, or Claude Code's ``permissionMode``).

    Raises:
        FrontmatterError: it is not a mode.
    """
    for key in ("approval-mode", "approval_mode", "permissionMode"):
        if key in document.meta:
            value = document.text(key)
            mode = CLAUDE_CODE_MODES.get(value, value) if key == "permissionMode" else value
            if mode not in MODE_ORDER:
                raise FrontmatterError(document.path, _line_of(document, key),
                                       f"`{key}: {value}` is not an approval mode; write one "
                                       f"of {', '.join(MODE_ORDER)}")
            return mode
    return None


def _line_of(document: MarkdownDocument, key: str) -> int:
    """The line of ``key:`` in the front matter (1 when it cannot be found)."""
    try:
        lines = document.path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    end = document.body_line - 1
    return next((i + 1 for i, line in enumerate(lines[:end])
                 if line.split(":", 1)[0].strip() == key), 1)
