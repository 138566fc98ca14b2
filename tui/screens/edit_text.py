"""Outside text in an editor (an ``Input`` or a ``TextArea``): shown safely, given back whole.

Textual's editors draw their text as it is, so an escape sequence in a proposed command, a
file's new content or the model's summary would reach the terminal. The editors get the text
with its control and invisible characters shown (``␛``, ``<U+202E>``); what the person gives
back has them restored, so editing one word of a file with escape bytes keeps its bytes.
"""

from __future__ import annotations

import re

from ..outside_text import visible

_PICTURES = {0x2400 + code: code for code in range(32) if code not in (9, 10)} | {0x2421: 0x7F}
"""The control pictures ``visible`` draws, back to their control characters."""
_CODE_POINT = re.compile(r"<U\+([0-9A-F]{4})>")
"""How ``visible`` writes an invisible character."""


def for_editor(text: str) -> str:
    """``text`` as an editor may show it: line ends kept (``\\r\\n`` too), every other
    control and invisible character shown."""
    return "\r\n".join(visible(part) for part in text.split("\r\n"))


def from_editor(edited: str, original: str) -> str:
    """What the person means by ``edited``, the editor's text after ``for_editor(original)``.

    Unchanged, it is ``original``; otherwise the shown characters are put back, unless
    ``original`` itself held such pictures (then the edit is taken as typed).
    """
    if edited == for_editor(original):
        return original
    if _restored(for_editor(original)) != original:
        return edited
    return _restored(edited)


def _restored(shown: str) -> str:
    def code_point(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if visible(char) == match.group() else match.group()

    return _CODE_POINT.sub(code_point, shown).translate(_PICTURES)
