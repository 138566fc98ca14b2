"""Text that must be shown literally: markup, escape sequences and invisible characters as
the model, tools, files, web pages and other machines' session logs may carry them.

Each sample is shown by every screen and widget that shows outside text (the tests that
import this module): nothing may crash, no action may run, no escape may reach the terminal.
"""

from __future__ import annotations

HOSTILE: dict[str, str] = {
    "closing tag": "[/x] closing a tag that was never opened",
    "bare closing tag": "[/]",
    "unbalanced tags": "[bold]never closed [italic]nested[/bold] wrong order",
    "click action": "[@click=app.quit]press me[/]",
    "click action, bracketed name": "[@click=app.bell()]ring[/] [@click=screen.dismiss]x[/]",
    "link": "[link=https://evil.example]docs[/link]",
    "style tags": "[red on white blink]alarm[/]",
    "emoji code": ":warning: :smile: :thumbs_up:",
    "file path in brackets": "[notes.txt: 3 lines] [/etc/passwd]",
    "ansi colour": "\x1b[31mred\x1b[0m and \x1b[1;32mbold green\x1b[0m",
    "ansi cursor": "line\x1b[2J\x1b[H\x1b[10;10Hmoved\x1b[K",
    "osc 52 clipboard": "\x1b]52;c;cm0gLXJmIH4K\x07copied?",
    "osc 8 link": "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "osc title": "\x1b]0;pwned title\x07after",
    "control characters": "nul\x00 bell\x07 backspace\x08 cr\r form\x0c del\x7f",
    "bidi override": "invoice_\u202egnp.exe and \u2067isolate\u2069",
    "zero width": "pass\u200bword\u200d\ufeff",
    "long line": "x" * 5000,
    "invalid utf-8, decoded": b"caf\xe9 \xff\xfe".decode("utf-8", "replace"),
    "rich markup escape": "\\[not markup] \\\\[still]",
}
"""Hostile samples by name."""

ALL_HOSTILE = "\n".join(f"{name}: {text}" for name, text in HOSTILE.items())
"""Every sample, one per line, for widgets that show many lines."""

SHORT_HOSTILE = "\n".join(f"{name}: {text}" for name, text in HOSTILE.items()
                          if name != "long line")
"""Every sample but the long line."""
