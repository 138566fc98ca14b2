"""The message of an auto-commit: written by the model from the turn's diff, or a plain one
listing the files when the model cannot be asked."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from ..providers.base import Message
from .checkpoints import FileChange

DIFF_LIMIT = 12_000
"""Characters of the turn's diff the model reads to write the message."""

SUBJECT_LIMIT = 72
"""Characters of a message's first line; a longer one is cut."""

INSTRUCTIONS = (
    "You write git commit messages. Given what the person asked and the diff of the "
    "changes made for it, reply with the commit message only, nothing around it: a first "
    "line in the conventional-commit form `type: summary` (type one of feat, fix, refactor, "
    "docs, test, chore, style, perf, build, ci), imperative, at most 72 characters, no "
    "period; then an empty line and a short body (a few lines) saying what changed and why."
)


def message_request(prompt: str, changes: Sequence[FileChange]) -> list[Message]:
    """The messages that ask a model for the commit message of ``changes``."""
    asked = prompt.strip()
    if len(asked) > 2000:
        asked = asked[:2000] + " …"
    return [
        {"role": "system", "content": INSTRUCTIONS},
        {
            "role": "user",
            "content": f"The person asked:\n{asked}\n\nThe diff:\n{turn_diff(changes)}",
        },
    ]


def turn_diff(changes: Sequence[FileChange], limit: int = DIFF_LIMIT) -> str:
    """A unified diff of ``changes``, cut at ``limit`` characters."""
    parts: list[str] = []
    for change in changes:
        before = _lines(change.before)
        after = _lines(change.after)
        if before is None or after is None:
            parts.append(f"Binary file {change.path} changed\n")
            continue
        parts.append(
            "".join(
                difflib.unified_diff(
                    before,
                    after,
                    "/dev/null" if change.before is None else f"a/{change.path}",
                    "/dev/null" if change.after is None else f"b/{change.path}",
                )
            )
        )
    diff = "".join(parts)
    return diff if len(diff) <= limit else diff[:limit] + "\n… (the diff goes on)\n"


def cleaned(reply: str) -> str:
    """The model's reply as a commit message: fences and quotes around it dropped, the first
    line cut to ``SUBJECT_LIMIT``; "" when nothing is left."""
    text = reply.strip()
    fenced = re.fullmatch(r"```[\w-]*\n(.*?)\n?```", text, re.S)
    if fenced:
        text = fenced.group(1).strip()
    text = text.strip("\"'`").strip()
    if not text:
        return ""
    subject, _, body = text.partition("\n")
    subject = subject.strip()
    if len(subject) > SUBJECT_LIMIT:
        subject = subject[: SUBJECT_LIMIT - 1].rstrip() + "…"
    body = body.strip()
    return f"{subject}\n\n{body}\n" if body else f"{subject}\n"


def plain_message(turn: int, paths: Sequence[str]) -> str:
    """The message when the model could not write one: the turn and its files."""
    count = len(paths)
    listed = "\n".join(f"- {p}" for p in paths)
    return (
        f"chore: agent-tui turn {turn} changed {count} file{'s' if count != 1 else ''}"
        f"\n\n{listed}\n"
    )


def _lines(content: bytes | None) -> list[str] | None:
    """The text's lines (an absent file has none); None for binary content."""
    if content is None:
        return []
    if b"\0" in content[:8000]:
        return None
    try:
        return content.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None
