"""Text made safe for a terminal and a reader: escape sequences, control characters and
invisible characters shown as visible pictures or code points.

Outside text (the model's words, tool output, file names, session logs from other machines)
goes through :func:`visible` before it reaches a terminal or a widget
(``tui.outside_text`` builds on it); the session export uses it too. :func:`redrawn`
applies a live output's carriage returns as a terminal would.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI: cursor movement, erasing, modes…
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, clipboard (52), links (8)…
    r"|[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|[@-Z\\-_]|[ -/][0-~]?)?")
"""Every escape sequence (and a lone ESC)."""
_CONTROL_PICTURES = {code: 0x2400 + code for code in range(32) if code not in (9, 10)} | {
    0x7F: 0x2421}
"""C0 controls and DEL as the Unicode "control pictures" (ESC is ␛); tab and newline stay."""
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u00ad\u061c"
                        "\u0080-\u009f]")
"""Zero-width characters, bidi marks, embeddings, overrides and isolates, soft hyphens and
C1 controls: they hide or reorder what a person reads."""


def visible(text: str) -> str:
    """``text`` with its escape sequences, control characters and invisible characters
    shown as visible pictures or code points (tab and newline kept)."""
    text = _ESCAPE.sub(lambda m: m.group().translate(_CONTROL_PICTURES), text)
    text = _INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)
    return text.translate(_CONTROL_PICTURES)


def redrawn(text: str) -> str:
    """``text`` as a terminal leaves it after its carriage returns: one that does not end a
    line redraws the line, so a progress bar's (or an MCP server's progress) updates leave
    only their latest state."""
    if "\r" not in text:
        return text
    return "\n".join(_redrawn_line(line) for line in text.split("\n"))


def _redrawn_line(line: str) -> str:
    body = line.rstrip("\r")
    return line if "\r" not in body else line[body.rfind("\r") + 1:]
