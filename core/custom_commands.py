"""Slash commands people write as Markdown files, as Claude Code users know them.

``.agent-tui/commands/review.md`` in a project (or ``review.md`` in the person's commands
folder) becomes ``/review``; a file in a subfolder, ``git/pr.md``, becomes ``/git:pr``::

    ---
    description: Review a pull request
    argument-hint: PR-NUMBER
    model: openai/gpt-4.1            # optional: the turn runs on this model
    allowed-tools: shell(gh pr view *), read_file   # optional: allowed for the turn
    ---
    Review pull request $1. Focus on: $ARGUMENTS

The body is the prompt: ``$ARGUMENTS`` is everything typed after the name, ``$1`` … ``$9``
the words of it. Without ``$ARGUMENTS`` in the body, what was typed is added at the end.
A project's commands shadow the person's; neither can shadow a built-in command. A project
file's ``allowed-tools`` grant nothing until the person trusts the folder.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from . import paths
from .text.frontmatter import FrontmatterError, read_markdown

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9])")


@dataclass(frozen=True, slots=True)
class CustomCommand:
    """One command read from a Markdown file.

    Attributes:
        name: The command with its slash, ``/review`` or ``/git:pr``.
        description: Its one-line help.
        body: The prompt template.
        path: The file.
        source: ``user`` or ``project``.
        argument_hint: What to type after the name, for the completion list.
        model: The model its turn runs on, or None for the session's.
        allowed_tools: Permission rules allowed while its turn runs.
        may_grant: Whether ``allowed_tools`` apply (a person's own file, or a trusted
            project's).
    """

    name: str
    description: str
    body: str
    path: Path
    source: str
    argument_hint: str = ""
    model: str | None = None
    allowed_tools: tuple[str, ...] = ()
    may_grant: bool = True

    def prompt(self, arguments: str) -> str:
        """The prompt this command sends when run with ``arguments``."""
        arguments = arguments.strip()
        try:
            words = shlex.split(arguments)
        except ValueError:
            words = arguments.split()

        def fill(match: re.Match[str]) -> str:
            what = match.group(1)
            if what == "ARGUMENTS":
                return arguments
            index = int(what) - 1
            return words[index] if index < len(words) else ""

        text = _PLACEHOLDER.sub(fill, self.body).strip()
        if arguments and "$ARGUMENTS" not in self.body and not re.search(r"\$[1-9]", self.body):
            text = f"{text}\n\n{arguments}"
        return text

    @property
    def granted_rules(self) -> tuple[str, ...]:
        """The rules its turn may use: ``allowed_tools`` where the source may grant them."""
        return self.allowed_tools if self.may_grant else ()


@dataclass(slots=True)
class CustomCommands:
    """The custom commands of a session, and what could not be loaded."""

    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> CustomCommand | None:
        """The command called ``name`` (with its slash), if any."""
        return self.commands.get(name)

    def __iter__(self) -> Iterator[CustomCommand]:
        """The commands, sorted by name."""
        return iter(sorted(self.commands.values(), key=lambda c: c.name))

    def __len__(self) -> int:
        return len(self.commands)


def command_folders(workdir: Path) -> list[tuple[Path, str]]:
    """The folders commands are read from, lowest priority first, with their source."""
    return [(paths.user_commands_dir(), "user"),
            (paths.project_root(workdir) / paths.PROJECT_DIR_NAME / "commands", "project")]


def load_custom_commands(workdir: Path, builtin_names: Iterable[str] = (), *,
                         trusted: bool = False) -> CustomCommands:
    """Read the person's and the project's command files.

    Args:
        workdir: The working folder (its project's commands are read).
        builtin_names: The built-in commands (``/help``…), which no file may shadow.
        trusted: Whether the project is trusted (its files' ``allowed-tools`` apply).
    """
    builtin = set(builtin_names)
    found = CustomCommands()
    for folder, source in command_folders(workdir):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.md")):
            relative = path.relative_to(folder).with_suffix("")
            if any(part.startswith(".") for part in relative.parts):
                continue
            command = _read_command(path, relative, source, trusted, found.problems)
            if command is None:
                continue
            if command.name in builtin:
                found.problems.append(f"{path}: {command.name} is a built-in command; rename "
                                      "the file to use it.")
                continue
            found.commands[command.name] = command  # a project's file shadows the person's
    return found


def _read_command(path: Path, relative: Path, source: str, trusted: bool,
                  problems: list[str]) -> CustomCommand | None:
    parts = [part.lower() for part in relative.parts]
    if not all(_NAME.match(part) for part in parts):
        problems.append(f"{path}: a command's file and folder names may hold only letters, "
                        "digits, - and _; rename it.")
        return None
    try:
        document = read_markdown(path)
        description = document.text("description")
        hint = document.text("argument-hint")
        model = document.text("model") or None
        allowed = document.names("allowed-tools")
    except FrontmatterError as exc:
        problems.append(f"{exc}; the command was skipped.")
        return None
    if allowed:
        from .safety.permission_rules import RuleError, parse_rules

        try:
            parse_rules(allowed)
        except RuleError as exc:
            problems.append(f"{path}: allowed-tools: {exc}; the command was skipped.")
            return None
    if not document.body.strip():
        problems.append(f"{path}: the command has no prompt after its front matter; "
                        "it was skipped.")
        return None
    first_line = document.body.strip().splitlines()[0].lstrip("# ").strip()
    return CustomCommand(
        name="/" + ":".join(parts), description=description or first_line[:80],
        body=document.body, path=path, source=source, argument_hint=hint, model=model,
        allowed_tools=allowed, may_grant=source == "user" or trusted)
