"""Text from outside agent-tui, made safe to show: literal, never markup, never escapes.

The model's words, tool arguments and output, file names and contents, web pages and session
logs from other machines all reach the screen. Parsed as Rich/Textual markup, a ``[/x]`` in
them crashes a widget and a ``[@click=app.quit]`` puts an app action on screen; written to
the terminal raw, an escape sequence moves the cursor, sets the window title or fills the
clipboard (OSC 52). So outside text goes to widgets only through :func:`outside_text`: a
:class:`rich.text.Text` that is the text itself, with every control character and escape
sequence shown as a visible picture (``␛``), colours kept only when asked (``ansi=True``, for
command output), and the invisible characters that reorder or hide text (bidi overrides,
zero-width spaces) shown as their code points. Markup stays for the app's own fixed strings.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text

from ..core.text.visible_text import visible

if TYPE_CHECKING:
    from textual.content import Content

_SGR = re.compile(r"\x1b\[[0-9;:]*m")
"""Select Graphic Rendition: colours and bold, the only escape kept (with ``ansi=True``)."""
def outside_text(text: str, style: str = "", *, ansi: bool = False) -> Text:
    """``text`` from outside agent-tui as a literal :class:`~rich.text.Text`.

    Args:
        text: The text, as it came (a file name, a line of output, the model's words).
        style: A style for the whole text (the app's own, e.g. ``"dim"``).
        ansi: Keep its SGR colours (command output); every other escape is shown, never
            sent to the terminal.
    """
    if not ansi:
        return Text(visible(text), style=style)
    pieces = _SGR.split(text)
    codes = _SGR.findall(text)
    # Only SGR reaches Rich's decoder; the rest is made visible first.
    cleaned = "".join(visible(piece) + (codes[i] if i < len(codes) else "")
                      for i, piece in enumerate(pieces))
    result = Text.from_ansi(cleaned, style=style)
    result.end = ""
    return result


def outside_content(text: str, style: str = "", *, ansi: bool = False) -> Content:
    """``text`` from outside agent-tui as literal Textual :class:`~textual.content.Content`,
    for pieces joined with ``Content.assemble`` (see :func:`outside_text`)."""
    # Imported here: headless mode uses :func:`visible` and never imports textual.
    from textual.content import Content

    if not ansi:
        return Content.styled(visible(text), style) if style else Content(visible(text))
    return Content.from_rich_text(outside_text(text, style, ansi=True))


_BRACKETED = re.compile(r"(\\*)(\[[^[\]]*])")
"""A bracketed word and the backslashes before it: what Textual's markup may read as a tag."""


def literal_markup(text: str) -> str:
    """``text`` as markup that reads as itself, for APIs that take markup strings (the command
    palette): every bracketed word is escaped, ``[FILE]`` and ``[TURN]`` included, which
    Textual's own ``escape`` leaves as tags (it escapes only lowercase ones)."""
    escaped = _BRACKETED.sub(lambda m: f"{m[1]}{m[1]}\\{m[2]}", visible(text))
    return escaped + "\\" if escaped.endswith("\\") and not escaped.endswith("\\\\") else escaped
