"""Allow, ask and deny rules, and where remembered rules are saved.

A rule names a tool and, in parentheses, what it covers: ``shell(git status)``,
``shell(npm run test:*)``, ``edit_file(src/**)``, ``read_file(.env)``,
``web_fetch(domain:docs.python.org)``; a bare ``web_search`` covers every call of the tool,
and a ``*`` in a tool's name covers every tool it matches (``mcp__github__*``).
Deny beats ask beats allow.

- ``shell(...)`` patterns match each simple command of a command line, with wrappers
  (``timeout``, ``env``, ``sudo``…) looked through; ``*`` matches anything, and a pattern
  ending in `` *`` also matches the command with no more arguments. They cover
  ``background_process`` commands too.
- Path patterns are globs in the language of ``core.glob_patterns`` (the one glob_files
  and read_many_files read: ``*``, ``?``, ``**``, ``[...]``, ``{a,b}``), matched against the
  project-relative path (symlinks resolved); a trailing ``/`` means everything under a
  folder, and patterns starting with ``/`` or ``~`` match absolute paths. ``read_file(...)`` rules cover every way of
  reading a file (read tools, shell commands, ``<`` redirections); ``edit_file(...)``,
  ``write_file(...)`` and ``str_replace(...)`` rules cover every way of writing one (edit
  tools, ``>`` redirections; deny rules also any path a shell command names).
- ``domain:HOST`` matches a URL's host and its subdomains.

Scopes: ``once`` (nothing saved), ``session`` (kept by the agent in memory), ``project``
(the user config's ``[projects."/real/path"]`` table: a repository can never grant itself
anything), ``user`` (the user config's ``allow_rules``); ``config.save_rules`` writes the last
two.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol
from urllib.parse import urlsplit

from ...tools.names import COMMAND_RULE_TOOL
from ..text.glob_patterns import (
    crosses_folders,
    escape,
    expand_braces,
    glob_regex,
    split_fixed,
    split_names,
)

if TYPE_CHECKING:
    from .workspace import Workspace

Kind = Literal["allow", "ask", "deny"]
Scope = Literal["once", "session", "project", "user"]
SCOPES: tuple[Scope, ...] = ("once", "session", "project", "user")


_RULE = re.compile(r"^\s*([A-Za-z_][\w.*-]*)\s*(?:\((.*)\))?\s*$", re.S)


class RuleError(ValueError):
    """A rule is not ``tool`` or ``tool(pattern)``; the message shows the fix."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule, parsed.

    Attributes:
        text: The rule as written.
        tool: The tool it names.
        pattern: What it covers (None: every call of the tool).
    """

    text: str
    tool: str
    pattern: str | None

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Parse ``tool`` or ``tool(pattern)``.

        Raises:
            RuleError: ``text`` is neither.
        """
        match = _RULE.match(text)
        if match is None or (match.group(2) is not None and not match.group(2).strip()):
            raise RuleError(
                f"{text!r} is not a rule: write a tool name, optionally with a pattern in "
                "parentheses, e.g. 'shell(git status)', 'edit_file(src/**)', "
                "'web_fetch(domain:docs.python.org)' or 'web_search'")
        pattern = match.group(2)
        return cls(text.strip(), match.group(1), pattern.strip() if pattern else None)

    def covers_tool(self, name: str) -> bool:
        """Whether this rule names the tool ``name``: exactly, or by a ``*`` in its name
        (``mcp__github__*`` names every tool of the MCP server github)."""
        return self.tool == name or ("*" in self.tool and fnmatchcase(name, self.tool))

    def matches_command(self, line: str) -> bool:
        """Whether this ``shell`` pattern covers one simple command's line."""
        return self.pattern is None or bool(_command_regex(self.pattern).fullmatch(
            " ".join(line.split())))

    def could_match_command(self, words: Sequence[str | None]) -> bool:
        """Whether this ``shell`` pattern covers the command ``words`` for some value of the
        words only known at run time (None): ``rm *`` covers ``$p -rf x``, as ``$p`` may
        be ``rm``."""
        if self.pattern is None:
            return True
        line = _line_tokens(words)
        return any(_overlap(line, rule) for rule in _pattern_tokens(self.pattern))

    def matches_path(self, path: Path, workspace: Workspace) -> bool:
        """Whether this path pattern covers the real ``path``."""
        if self.pattern is None:
            return True
        pattern = os.path.expanduser(self.pattern)
        if os.path.isabs(pattern):
            return bool(_path_regex(_real_pattern(pattern)).fullmatch(str(path)))
        relative = workspace.relative(path)
        return relative is not None and bool(_path_regex(pattern).fullmatch(relative))

    def may_cover_inside(self, folder: Path, workspace: Workspace) -> bool:
        """Whether this path pattern may cover ``folder`` or a path inside it.

        For a command that searches a whole folder (``grep -r``, ``rg``): it reads every
        file in it, so a deny rule about any of them concerns the search too.
        """
        if self.pattern is None:
            return True
        pattern = os.path.expanduser(self.pattern)
        pattern = _real_pattern(pattern) if os.path.isabs(pattern) else (
            f"{escape(str(workspace.root))}/{pattern.removeprefix('./')}")
        if pattern.endswith("/"):
            pattern += "**"
        alternatives = expand_braces(pattern)
        if alternatives is None:
            return True  # too many to check: it may
        names = [name for name in str(folder).split("/") if name]
        return any(_may_reach(names, alternative) for alternative in alternatives)

    def matches_call(self, subject: str | None) -> bool:
        """Whether this rule covers a call whose subject is ``subject`` (a URL, a query)."""
        if self.pattern is None:
            return True
        if subject is None:
            return False
        if self.pattern.startswith("domain:"):
            return url_in_domain(subject, self.pattern[7:])
        return bool(_command_regex(self.pattern).fullmatch(subject.strip()))


def url_in_domain(url: str, domain: str) -> bool:
    """Whether ``url``'s host is ``domain`` or one of its subdomains (case aside)."""
    domain = domain.strip().lower().lstrip(".")
    host = (urlsplit(url).hostname or "").lower()
    return bool(domain) and (host == domain or host.endswith("." + domain))


def parse_rules(texts: Iterable[str]) -> tuple[Rule, ...]:
    """Parse rule strings.

    Raises:
        RuleError: one is malformed.
    """
    return tuple(Rule.parse(text) for text in texts)


class RuleSources(Protocol):
    """Where a session's rules are configured: ``Settings``, or anything with its three lists."""

    @property
    def allow_rules(self) -> Sequence[str]: ...

    @property
    def ask_rules(self) -> Sequence[str]: ...

    @property
    def deny_rules(self) -> Sequence[str]: ...


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules in force, by kind."""

    allow: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()

    @classmethod
    def from_settings(cls, settings: RuleSources, session: Iterable[str] = ()) -> RuleSet:
        """The settings' rules (already merged across config files) plus session rules."""
        return cls(parse_rules([*settings.allow_rules, *session]),
                   parse_rules(settings.ask_rules), parse_rules(settings.deny_rules))

    def of(self, kind: Kind) -> tuple[Rule, ...]:
        """The rules of one kind."""
        return {"allow": self.allow, "ask": self.ask, "deny": self.deny}[kind]

    def command(self, kind: Kind, tool: str, lines: Sequence[str]) -> Rule | None:
        """The first ``kind`` rule for ``shell`` (or ``tool``) matching one of ``lines``."""
        return next((r for r in self.of(kind) if r.tool in (COMMAND_RULE_TOOL, tool)
                     and any(r.matches_command(line) for line in lines)), None)

    def command_could(self, kind: Kind, tool: str, words: Sequence[str | None]) -> Rule | None:
        """The first ``kind`` rule for ``shell`` (or ``tool``) that covers the command
        ``words`` for some value of its words only known at run time (None)."""
        return next((r for r in self.of(kind) if r.tool in (COMMAND_RULE_TOOL, tool)
                     and r.could_match_command(words)), None)

    def path(self, kind: Kind, tools: Iterable[str], path: Path,
             workspace: Workspace) -> Rule | None:
        """The first ``kind`` rule naming one of ``tools`` that covers ``path``."""
        names = set(tools)
        return next((r for r in self.of(kind) if r.tool in names
                     and r.matches_path(path, workspace)), None)

    def inside(self, kind: Kind, tools: Iterable[str], folder: Path,
               workspace: Workspace) -> Rule | None:
        """The first ``kind`` rule naming one of ``tools`` that may cover a path in ``folder``."""
        names = set(tools)
        return next((r for r in self.of(kind) if r.tool in names
                     and r.may_cover_inside(folder, workspace)), None)

    def call(self, kind: Kind, tool: str, subject: str | None) -> Rule | None:
        """The first ``kind`` rule naming ``tool`` that covers a call about ``subject``."""
        return next((r for r in self.of(kind) if r.covers_tool(tool)
                     and r.matches_call(subject)), None)


@lru_cache(maxsize=256)
def _command_regex(pattern: str) -> re.Pattern[str]:
    """``npm run test:*`` as a regex over a command line; a trailing `` *`` may be empty."""
    words = " ".join(pattern.split())
    optional_tail = words.endswith(" *")
    if optional_tail:
        words = words[:-2]
    regex = ".*".join(re.escape(piece) for piece in words.split("*"))
    return re.compile(regex + ("(?: .*)?" if optional_tail else ""), re.S)


_Tokens = tuple["str | None", ...]
"""A command line or pattern as characters, None standing for any text."""


def _line_tokens(words: Sequence[str | None]) -> _Tokens:
    tokens: list[str | None] = []
    for word in words:
        text = " ".join(word.split()) if word is not None else None
        if text == "":
            continue
        if tokens:
            tokens.append(" ")
        tokens.extend(text if text is not None else [None])
    return tuple(tokens)


@lru_cache(maxsize=256)
def _pattern_tokens(pattern: str) -> tuple[_Tokens, ...]:
    """A ``shell`` pattern's characters, ``*`` as None; a trailing `` *`` may be absent."""
    words = " ".join(pattern.split())
    tokens = tuple(None if char == "*" else char for char in words)
    if words.endswith(" *"):
        return (tokens, tokens[:-2])
    return (tokens,)


def _overlap(one: _Tokens, other: _Tokens) -> bool:
    """Whether some text matches both token sequences (None matching any text)."""
    size = len(other)
    # fits[j]: the rest of `one` from the current i and of `other` from j match some text;
    # with `one` used up, the rest of `other` must be able to match nothing.
    after = [all(token is None for token in other[j:]) for j in range(size + 1)]
    for i in range(len(one) - 1, -1, -1):
        fits = [False] * (size + 1)
        for j in range(size, -1, -1):
            if one[i] is None:
                fits[j] = after[j] or (j < size and fits[j + 1])
            elif j < size and other[j] is None:
                fits[j] = fits[j + 1] or after[j]
            else:
                fits[j] = j < size and one[i] == other[j] and after[j + 1]
        after = fits
    return after[0]


@lru_cache(maxsize=256)
def _real_pattern(pattern: str) -> str:
    """An absolute pattern with the symlinks of its fixed leading folders resolved."""
    head, rest = split_fixed(pattern)
    if not rest:
        return escape(os.path.realpath(head))
    return escape(os.path.realpath(head)).rstrip("/") + "/" + rest


def _path_regex(pattern: str) -> re.Pattern[str]:
    """A rule's path pattern as a regex over a ``/``-separated path (``./`` dropped, a
    trailing ``/`` meaning everything under the folder)."""
    if pattern.startswith("./"):
        pattern = pattern[2:]
    if pattern.endswith("/"):
        pattern += "**"
    return glob_regex(pattern)


def _may_reach(folder: list[str], pattern: str) -> bool:
    """Whether the brace-free absolute ``pattern`` may match the folder with names
    ``folder`` or a path below it."""
    wanted = [name for name in split_names(pattern) if name]
    for index, name in enumerate(folder):
        if index >= len(wanted):
            return False  # the pattern names a folder above this one, not inside it
        if crosses_folders(wanted[index]):
            return True
        if not glob_regex(wanted[index]).fullmatch(name):
            return False
    return True
