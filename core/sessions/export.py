"""A session log as a readable Markdown transcript (``agent-tui sessions show``, ``/export``).

A transcript is printed on terminals and opened in viewers, and its text came from the model,
tools, files and other machines: every control character in it (escape sequences that move
the cursor, set the title or fill the clipboard included) is written as its visible picture
(``␛``), and characters that hide or reorder text (bidi overrides, zero-width spaces) as
their code points, so the file holds no byte a terminal acts on.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from ..text.visible_text import visible
from .log import MODEL_CHOSEN, SessionLog


def to_markdown(log: SessionLog) -> str:
    """A readable transcript: prompts, answers, tool calls and results, todos."""
    header = log.header
    title = header.get("title") or _first_prompt(log) or f"Session {log.session_id}"
    out = [f"# {title}", ""]
    created = header.get("created")
    meta = [
        ("Session", log.session_id),
        ("Project", header.get("project")),
        ("Model", header.get("model") or _chosen_model(log)),
        (
            "Created",
            time.strftime("%Y-%m-%d %H:%M", time.localtime(created))
            if isinstance(created, int | float)
            else None,
        ),
    ]
    meta.append(("Forked from", fork_origin(log)))
    out += [f"- **{name}:** {value}" for name, value in meta if value]
    out.append("")
    for event in log.events:
        out += _event_markdown(event)
    # Windows line ends are line ends here, not a stray ␍ on every line of a tool's output.
    return visible("\n".join(out).rstrip().replace("\r\n", "\n") + "\n")


def fork_origin(log: SessionLog) -> str | None:
    """Where a fork came from, as a person counts: ``"ID, after its prompt 2"`` (the parent
    and how many of its prompts the fork kept); None for a session that is no fork.

    The header's event index is the log's own bookkeeping: a person counts prompts.
    """
    if log.parent is None:
        return None
    parent_id, last_event = log.parent
    kept = sum(1 for event in log.events[: last_event + 1] if event.get("type") == "user_message")
    return f"{parent_id}, after its prompt {kept}" if kept else f"{parent_id}, before its first prompt"


def _chosen_model(log: SessionLog) -> str | None:
    """The model chosen after the header was written (first-run setup), if one was."""
    return next((str(e.get("model")) for e in log.events if e.get("type") == MODEL_CHOSEN), None)


def _first_prompt(log: SessionLog) -> str:
    for event in log.events:
        if event.get("type") == "user_message":
            lines = str(event.get("text", "")).strip().splitlines()
            return lines[0][:80] if lines else ""
    return ""


def _event_markdown(event: dict[str, Any]) -> list[str]:
    kind = event.get("type")
    if kind == "user_message":
        return ["## User", "", str(event.get("text", "")), ""]
    if kind == "assistant_message":
        text = str(event.get("text") or "").strip()
        return ["## Assistant", "", text, ""] if text else []
    if kind == "tool_call":
        args = event.get("args")
        body = args if isinstance(args, str) else json.dumps(args, indent=2, ensure_ascii=False)
        summary = f" — {event['summary']}" if event.get("summary") else ""
        return [
            f"### Tool call: `{event.get('name', '?')}`{summary}",
            "",
            *_fenced(body, "json"),
            "",
        ]
    if kind == "approval" and event.get("edited_summary"):
        args = event.get("edited_args")
        body = args if isinstance(args, str) else json.dumps(args, indent=2, ensure_ascii=False)
        return [
            f"### Edited by the person before it ran — {event['edited_summary']}",
            "",
            *_fenced(body, "json"),
            "",
        ]
    if kind == "tool_result":
        status = "cancelled" if event.get("cancelled") else "ok" if event.get("ok") else "failed"
        return [
            f"**Result of `{event.get('name', '?')}`** ({status})",
            "",
            *_fenced(str(event.get("output", "")), "text"),
            "",
        ]
    if kind == "todo":
        return ["### Todos", "", str(event.get("content", "")), ""]
    if kind == "error":
        return [f"> **Error:** {event.get('message', '')}", ""]
    return []


def _fenced(text: str, language: str) -> list[str]:
    """A code fence longer than any run of backticks inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", text.rstrip("\n"), fence]
