"""Reading hooks from the user's and a project's ``config.toml``.

Two shapes are read, agent-tui's flat one and Claude Code's nested one::

    [[hooks.PreToolUse]]
    matcher = "shell|write_file"      # optional; absent or "*" means every tool
    command = "python3 .agent-tui/hooks/check.py"
    timeout = 30                      # optional, seconds

    [[hooks.PostToolUse]]
    matcher = "write_file"
    hooks = [{ type = "command", command = "ruff format .", timeout = 5 }]

A project's hooks run commands on the person's machine, so they load only once the person
trusts the folder. Anything malformed is skipped with a warning naming the file and the
entry; the rest loads.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .. import paths
from ..config import ConfigError, is_trusted, read_toml
from .hook_set import DEFAULT_TIMEOUT_S, HOOK_EVENTS, TOOL_EVENTS, Hook, HookSet

_FLAT_KEYS = frozenset({"matcher", "command", "timeout"})
_NESTED_KEYS = frozenset({"matcher", "hooks"})
_HANDLER_KEYS = frozenset({"type", "command", "timeout"})


class _Malformed(Exception):
    """An entry cannot load; the message says what is wrong with it and how to fix it."""


def load_hooks(workdir: Path) -> HookSet:
    """Read the hooks for a session in ``workdir``: the user file's, then the project's.

    A project's hooks load only when :func:`~agent_tui.core.config.is_trusted` says the
    person trusts ``workdir``; otherwise they are skipped with a warning saying how to trust
    it. Bad TOML and malformed entries become warnings too; nothing here raises.
    """
    hooks: list[Hook] = []
    warnings: list[str] = []
    user_file = paths.user_config_file()
    project_file = paths.project_config_file(workdir)
    sources = [user_file]
    if project_file.resolve() != user_file.resolve():
        sources.append(project_file)
    for source in sources:
        try:
            data = read_toml(source)
        except ConfigError as exc:
            warnings.append(f"{exc} Its hooks were not loaded.")
            continue
        if "hooks" not in data:
            continue
        if source is project_file and not is_trusted(workdir):
            warnings.append(
                f"{source}: its hooks were not loaded because this folder is not trusted; add "
                f'"{workdir.resolve()}" to trusted_projects in {user_file} to run them.')
            continue
        hooks.extend(_read_file_hooks(data["hooks"], source, warnings))
    return HookSet(tuple(hooks), warnings)


def _read_file_hooks(table: object, source: Path, warnings: list[str]) -> Iterator[Hook]:
    if not isinstance(table, dict):
        warnings.append(f"{source}: `hooks` must be a table of events, as in "
                        "[[hooks.PreToolUse]]; its hooks were not loaded.")
        return
    for event, entries in table.items():
        if event not in HOOK_EVENTS:
            warnings.append(f"{source}: [[hooks.{event}]] skipped: {event!r} is not a hook "
                            f"event; use one of {', '.join(HOOK_EVENTS)}.")
            continue
        if not isinstance(entries, list):
            warnings.append(f"{source}: hooks.{event} skipped: write each hook as a "
                            f"[[hooks.{event}]] table.")
            continue
        for index, entry in enumerate(entries, start=1):
            name = f"[[hooks.{event}]] #{index}"
            try:
                yield from _read_entry(entry, event, source, index, warnings)
            except _Malformed as exc:
                warnings.append(f"{source}: {name} skipped: {exc}")


def _read_entry(entry: object, event: str, source: Path, index: int,
                warnings: list[str]) -> list[Hook]:
    if not isinstance(entry, dict):
        raise _Malformed(f"write it as a table with a `command`, not {_kind(entry)}.")
    nested = "hooks" in entry
    if nested and "command" in entry:
        raise _Malformed("it has both `command` and `hooks`; keep one of them.")
    known = _NESTED_KEYS if nested else _FLAT_KEYS
    unknown = sorted(set(entry) - known)
    if unknown:
        warnings.append(f"{source}: [[hooks.{event}]] #{index}: unknown key(s) "
                        f"{', '.join(unknown)} ignored; the keys are {', '.join(sorted(known))}.")
    matcher = _read_matcher(entry.get("matcher"), event, source, index, warnings)
    if not nested:
        handlers: list[Any] = [entry]
    elif isinstance(entry["hooks"], list) and entry["hooks"]:
        handlers = entry["hooks"]
    else:
        raise _Malformed("`hooks` must be a list of {type = \"command\", command = \"…\"} "
                         "tables.")
    hooks = []
    for handler in handlers:
        command, timeout = _read_handler(handler, nested)
        hooks.append(Hook(event, command, matcher, timeout, source, index))
    return hooks


def _read_matcher(value: object, event: str, source: Path, index: int,
                  warnings: list[str]) -> str | None:
    if value is None or value in ("", "*"):
        return None
    if not isinstance(value, str):
        raise _Malformed(f"`matcher` must be a string (a regular expression), not "
                         f"{_kind(value)}.")
    if event not in TOOL_EVENTS:
        warnings.append(f"{source}: [[hooks.{event}]] #{index}: `matcher` ignored; {event} "
                        "hooks run every time.")
        return None
    try:
        re.compile(value)
    except re.error as exc:
        raise _Malformed(f"`matcher` {value!r} is not a valid regular expression ({exc}); "
                         'fix it, e.g. "shell|write_file".') from None
    return value


def _read_handler(handler: object, nested: bool) -> tuple[str, float]:
    where = "each of `hooks`" if nested else "the entry"
    if not isinstance(handler, dict):
        raise _Malformed(f"{where} must be a table with a `command`, not {_kind(handler)}.")
    if nested:
        unknown = sorted(set(handler) - _HANDLER_KEYS)
        if unknown:
            raise _Malformed(f"unknown key(s) {', '.join(unknown)} in `hooks`; the keys are "
                             "type, command and timeout.")
        kind = handler.get("type", "command")
        if kind != "command":
            raise _Malformed(f"hook type {kind!r} is not supported; use type = \"command\".")
    command = handler.get("command")
    if not isinstance(command, str) or not command.strip():
        raise _Malformed(f"{where} needs a `command`, a non-empty string to run with bash.")
    timeout = handler.get("timeout", DEFAULT_TIMEOUT_S)
    if (isinstance(timeout, bool) or not isinstance(timeout, int | float)
            or not math.isfinite(timeout) or timeout <= 0):
        raise _Malformed(f"`timeout` must be a positive number of seconds, not {timeout!r}.")
    return command, float(timeout)


def _kind(value: object) -> str:
    names = {str: "a string", int: "a number", float: "a number", bool: "true/false",
             list: "a list", dict: "a table"}
    return names.get(type(value), type(value).__name__)
