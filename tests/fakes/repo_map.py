"""Reading recorded requests past the repository map, which every request of a project with
source files ends with (``core/context/repo_map``): scripted fakes that answer by the last
message look at the conversation's last message instead."""

from __future__ import annotations

from typing import Any

from agent_tui.core.context.repo_map_render import REPO_MAP_PREFIX


def is_repo_map(message: dict[str, Any]) -> bool:
    """Whether ``message`` is the repository map's."""
    content = message.get("content")
    return (message.get("role") == "user" and isinstance(content, str)
            and content.startswith(REPO_MAP_PREFIX))


def conversation(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` without the repository map that ends a request."""
    return messages[:-1] if messages and is_repo_map(messages[-1]) else messages


def last_message(request: Any) -> dict[str, Any]:
    """The last message of a recorded request's conversation (the map left out)."""
    return conversation(request.messages)[-1]
