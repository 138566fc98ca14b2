"""The help line of keys that the workbench's screens show at their foot."""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content

KEY_STYLE = "bold $accent"
"""How key names stand out in a help line."""


def key_help(items: Iterable[tuple[str, str]]) -> Content:
    """``key what  key what …``: each key in :data:`KEY_STYLE`, then what it does."""
    parts: list[str | tuple[str, str]] = []
    for key, what in items:
        if parts:
            parts.append("  ")
        parts += [(key, KEY_STYLE), f" {what}"]
    return Content.assemble(*parts)
