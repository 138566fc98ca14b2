"""Other agents' names for agent-tui's tools, and their parameters, in one table.

agent-tui's tools are named as g3 names them (seed 000). Models trained on gemini-cli (seed
004), egirl (seed 001) or GLTCH (seed 003) call the same tools by their own names and
parameters; the registry turns such a call into a call of agent-tui's tool before it is
validated, so approval, rules, the tool log and the session treat it as that tool. Aliases
are not offered to the model (the tool list stays short); they only catch what it calls.

An alias of a tool agent-tui does not have (yet, or not enabled in this run) is listed too,
so that the model is told which tool it meant and that it is not available.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .base import ToolArgumentError
from .names import ToolName

Arguments = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolAlias:
    """How a call by another agent's name becomes a call of one of agent-tui's tools.

    Attributes:
        name: The name the other agent uses.
        tool: agent-tui's tool (a ``ToolName``, or the name a tool not built yet will have).
        seed: The agent the name comes from: ``gemini-cli``, ``egirl``, ``g3`` or ``GLTCH``.
        rename: Their parameter name -> ours; parameters absent here pass unchanged.
        drop: Their parameters that have no counterpart and change nothing (e.g. a
            description of a command for people); they are removed.
        convert: Turns the renamed arguments into ours where a rename is not enough;
            raises ``ToolArgumentError`` with a message for the model.
    """

    name: str
    tool: str
    seed: str
    rename: Mapping[str, str] = field(default_factory=dict)
    drop: frozenset[str] = frozenset()
    convert: Callable[[Arguments], Arguments] | None = None

    def translate(self, arguments: Mapping[str, Any]) -> Arguments:
        """The arguments as agent-tui's tool takes them."""
        out: Arguments = {}
        for key, value in arguments.items():
            if key in self.drop:
                continue
            out[self.rename.get(key, key)] = value
        return self.convert(out) if self.convert is not None else out


# --------------------------------------------------------------------------- converters


def _offset_limit(args: Arguments) -> Arguments:
    """gemini-cli's read_file pages by ``offset`` (0-based first line) and ``limit``."""
    offset, limit = args.pop("offset", None), args.pop("limit", None)
    if offset is None and limit is None:
        return args
    try:
        first = int(offset or 0) + 1
        args["start_line"] = first
        if limit is not None:
            args["end_line"] = first + int(limit) - 1
    except (TypeError, ValueError):
        raise ToolArgumentError(
            f"offset and limit must be whole numbers (got offset={offset!r}, limit={limit!r}); "
            "or pass start_line and end_line (1-indexed, inclusive)") from None
    return args


_STATUS_MARKS = {"pending": "[ ]", "in_progress": "[ ]", "completed": "[x]",
                 "cancelled": "[x]"}


def _todos(args: Arguments) -> Arguments:
    """gemini-cli's write_todos list becomes the Markdown checklist todo_write takes."""
    todos = args.pop("todos", None)
    if not isinstance(todos, list):
        raise ToolArgumentError(
            "todos must be a list of {description, status} objects, status one of pending, "
            "in_progress, completed, cancelled")
    lines = []
    for item in todos:
        if not isinstance(item, Mapping) or not isinstance(item.get("description"), str):
            raise ToolArgumentError(f"each todo needs a description (got {item!r})")
        status = item.get("status", "pending")
        if status not in _STATUS_MARKS:
            raise ToolArgumentError(
                f"unknown todo status {status!r}; use pending, in_progress, completed or "
                "cancelled")
        note = {"in_progress": " (in progress)", "cancelled": " (cancelled)"}.get(status, "")
        lines.append(f"- {_STATUS_MARKS[status]} {item['description']}{note}")
    return {**args, "content": "\n".join(lines) + "\n"}


_URL = re.compile(r"https?://[^\s<>\"')\]]+")


def _prompt_url(args: Arguments) -> Arguments:
    """gemini-cli's web_fetch takes a prompt holding the address; ours takes the address."""
    prompt = args.pop("prompt", None)
    if prompt is None:
        return args
    found = _URL.search(str(prompt))
    if found is None:
        raise ToolArgumentError(
            "web_fetch needs an http(s) address; the prompt holds none. Pass url, e.g. "
            '{"url": "https://example.com/page"}')
    return {**args, "url": found.group(0).rstrip(".,;:")}


def _include_paths(args: Arguments) -> Arguments:
    """gemini-cli's read_many_files takes globs in ``include`` as well as ``paths``."""
    include = args.pop("include", None)
    if include:
        extra = [include] if isinstance(include, str) else list(include)
        args["paths"] = [*args.get("paths", []), *extra]
    return args


def _url_then_body(args: Arguments) -> Arguments:
    """GLTCH's ``[ACTION:api|METHOD|url|body]``: the tag's last part holds the url, then,
    after a ``|``, the body."""
    url = args.get("url")
    if isinstance(url, str) and "|" in url and args.get("body") is None:
        url, body = url.split("|", 1)
        return {**args, "url": url.strip(), "body": body}
    return args


# --------------------------------------------------------------------------- the table

_DIR = {"dir_path": "path"}

ALIASES: tuple[ToolAlias, ...] = (
    # gemini-cli (seed 004), as its tools name themselves and their parameters.
    ToolAlias("read_file", ToolName.READ_FILE, "gemini-cli",
              rename={"absolute_path": "file_path"}, convert=_offset_limit),
    ToolAlias("replace", ToolName.EDIT_FILE, "gemini-cli"),
    ToolAlias("run_shell_command", ToolName.SHELL, "gemini-cli",
              rename={"directory": "working_dir", "dir_path": "working_dir"},
              drop=frozenset({"description", "is_background"})),
    ToolAlias("search_file_content", ToolName.GREP, "gemini-cli", rename=_DIR),
    ToolAlias("list_directory", ToolName.LS, "gemini-cli", rename=_DIR,
              drop=frozenset({"file_filtering_options", "respect_git_ignore"})),
    ToolAlias("glob", ToolName.GLOB_FILES, "gemini-cli",
              rename={"path": "dir", "dir_path": "dir"},
              drop=frozenset({"case_sensitive", "respect_git_ignore",
                              "file_filtering_options"})),
    ToolAlias("web_fetch", ToolName.WEB_FETCH, "gemini-cli", convert=_prompt_url),
    ToolAlias("google_web_search", ToolName.WEB_SEARCH, "gemini-cli"),
    ToolAlias("write_todos", ToolName.TODO_WRITE, "gemini-cli", convert=_todos),
    ToolAlias("read_many_files", ToolName.READ_MANY_FILES, "gemini-cli",
              drop=frozenset({"recursive", "useDefaultExcludes", "file_filtering_options"}),
              convert=_include_paths),
    ToolAlias("save_memory", ToolName.REMEMBER, "gemini-cli", rename={"fact": "notes"}),
    ToolAlias("activate_skill", ToolName.ACTIVATE_SKILL, "gemini-cli"),
    # egirl (seed 001).
    ToolAlias("execute_command", ToolName.SHELL, "egirl"),
    ToolAlias("screenshot", ToolName.TAKE_SCREENSHOT, "egirl"),
    ToolAlias("memory_search", ToolName.MEMORY_SEARCH, "egirl"),
    ToolAlias("memory_get", ToolName.MEMORY_GET, "egirl"),
    ToolAlias("memory_set", ToolName.MEMORY_SET, "egirl"),
    # GLTCH's action tags (seed 003): [ACTION:run|ls -la] and the like.
    ToolAlias("read", ToolName.READ_FILE, "GLTCH"),
    ToolAlias("write", ToolName.WRITE_FILE, "GLTCH"),
    ToolAlias("edit", ToolName.EDIT_FILE, "GLTCH"),
    ToolAlias("run", ToolName.SHELL, "GLTCH"),
    ToolAlias("search", ToolName.WEB_SEARCH, "GLTCH"),
    ToolAlias("fetch", ToolName.WEB_FETCH, "GLTCH"),
    ToolAlias("api", ToolName.HTTP_REQUEST, "GLTCH", convert=_url_then_body),
    ToolAlias("http_request", ToolName.HTTP_REQUEST, "GLTCH", convert=_url_then_body),
    ToolAlias("gif", ToolName.GIF_SEARCH, "GLTCH"),
)
"""Every alias. A name agent-tui's own tools use (``read_file``) is listed when another
agent gives that tool other parameters: the translation applies to every call of it."""

BY_NAME: dict[str, ToolAlias] = {alias.name: alias for alias in ALIASES}


def canonical_name(name: str) -> str:
    """agent-tui's name for the tool another agent calls ``name`` (``name`` itself when it
    is no alias)."""
    alias = BY_NAME.get(name)
    return alias.tool if alias is not None else name
