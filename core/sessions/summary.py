"""What the session index keeps of one session: its summary (title, project, model, prompts,
model calls, tokens, cost, lineage) and the searchable text and edited files, read from its log.

:func:`summarize` gives the summary of a log; :func:`digest_log` everything the index stores.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from typing import Any

from ...tools.names import EDIT_TOOLS
from .log import MODEL_CHOSEN, SessionLog

TITLE_LENGTH = 80
"""How long a session's title (its first prompt) may be."""


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One session as the index knows it.

    Attributes:
        id: The session id.
        title: The header's title, else the first line of the first prompt (80 chars).
        project: The project folder, resolved.
        model: The model the session started with (its header's, or, when the header has
            none, the one first-run setup chose after it was written).
        created: Unix time of the header.
        updated: Unix time of the last event.
        prompts: Prompts the person sent (``user_message`` records): its turns.
        model_calls: Requests to the model (``assistant_message`` records); a prompt
            takes one, plus one after each round of tool calls.
        prompt_tokens: Session total from the last ``usage`` record.
        completion_tokens: Likewise.
        cost: US dollars from the last ``usage`` record; None when unknown.
        cache_read_tokens: Of the prompt tokens, those read from the provider's prompt
            cache (from the last ``usage`` record).
        cache_write_tokens: Of the prompt tokens, those written to the prompt cache.
        parent: ``(session id, event index)`` it was forked from, if it was.
        size: Bytes of its log.
        match: For search results, a snippet of the best matching message.
    """

    id: str
    title: str
    project: str
    model: str
    created: float
    updated: float
    prompts: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    parent: tuple[str, int] | None = None
    size: int = 0
    match: str | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``sessions list --json``)."""
        data = asdict(self)
        data["parent"] = list(self.parent) if self.parent else None
        data["total_tokens"] = self.total_tokens
        return data


@dataclass(slots=True)
class LogDigest:
    """What the index keeps of one log."""

    summary: SessionSummary
    files: set[str]
    messages: list[tuple[str, str]]  # (kind, text)


def summarize(log: SessionLog, *, size: int = 0) -> SessionSummary:
    """The summary of a log: title, counts and totals (also for ``sessions show``)."""
    return digest_log(log, size=size, mtime_updated=0.0).summary


def digest_log(log: SessionLog, *, size: int, mtime_updated: float) -> LogDigest:
    header = log.header
    project = str(header.get("project") or "")
    title = str(header.get("title") or "")
    model = str(header.get("model") or "")  # else the one chosen after the header was written
    prompts, model_calls, usage, updated = 0, 0, None, 0.0
    files: set[str] = set()
    edits: dict[str, list[str]] = {}  # call id -> paths, until its result says it failed
    messages: list[tuple[str, str]] = []
    for event in log.events:
        kind = event.get("type")
        ts = event.get("ts")
        if isinstance(ts, int | float) and ts > updated:
            updated = float(ts)
        if kind == "user_message":
            prompts += 1
            text = str(event.get("text") or "")
            messages.append(("user", text))
            if not title:
                title = _title(text)
        elif kind == "assistant_message":
            model_calls += 1
            if event.get("text"):
                messages.append(("assistant", str(event["text"])))
        elif kind == "tool_call":
            name = str(event.get("name") or "")
            args = event.get("args")
            messages.append(("tool", f"{name} {_args_text(args)}"))
            if name in EDIT_TOOLS:
                edits[str(event.get("id"))] = _edit_paths(args, project)
        elif kind == "tool_result":
            touched = edits.pop(str(event.get("id")), [])
            if event.get("ok"):
                files.update(touched)
        elif kind == "usage" and isinstance(event.get("session"), dict):
            usage = event["session"]
        elif kind == MODEL_CHOSEN and not model:
            model = str(event.get("model") or "")
    for touched in edits.values():  # no result: the process died mid-call; it may have run
        files.update(touched)
    usage = usage or {}
    created = _number(header.get("created"))
    parent = log.parent
    summary = SessionSummary(
        id=log.session_id,
        title=title or "(no prompt)",
        project=project,
        model=model,
        created=created,
        updated=updated or mtime_updated or created,
        prompts=prompts,
        model_calls=model_calls,
        prompt_tokens=int(_number(usage.get("prompt_tokens"))),
        completion_tokens=int(_number(usage.get("completion_tokens"))),
        cost=usage.get("cost") if isinstance(usage.get("cost"), int | float) else None,
        parent=parent,
        size=size,
        cache_read_tokens=int(_number(usage.get("cache_read_tokens"))),
        cache_write_tokens=int(_number(usage.get("cache_write_tokens"))),
    )
    return LogDigest(summary, files, messages)


def _title(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1] + "…"
    return ""


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _parse_args(args: object) -> object:
    if isinstance(args, str):
        try:
            return json.loads(args)
        except ValueError:
            return args
    return args


def _args_text(args: object) -> str:
    args = _parse_args(args)
    if isinstance(args, dict):
        return " ".join(f"{k} {v}" for k, v in args.items() if isinstance(v, str | int | float))
    return str(args) if args is not None else ""


def _edit_paths(args: object, project: str) -> list[str]:
    args = _parse_args(args)
    if not isinstance(args, dict):
        return []
    found = []
    for key in ("file_path", "path"):
        value = args.get(key)
        if isinstance(value, str) and value:
            if project and not os.path.isabs(value):
                value = os.path.join(project, value)
            found.append(os.path.normpath(value))
    return found
