"""vi keys for the prompt (the ``vi_mode`` setting): insert and normal modes, the common
motions and edits, counts.

Normal mode: ``h j k l w b e 0 ^ $ gg G`` move; ``x dd dw cw D C yy p P`` edit (a count
before them repeats: ``3w``, ``2dd``); ``u`` undoes (Ctrl+Y redoes: Ctrl+R
stays the session browser's); ``i a I A o O`` go to insert mode. Esc goes to normal mode.

Esc is also the workbench's key to cancel a running turn. In vi mode an Esc in insert mode
with text in the prompt only goes to normal mode; an Esc in normal mode, or in insert mode on
an empty prompt, goes on to cancel the turn (and does nothing more when none runs).

:class:`ViKeys` works on a :class:`~textual.widgets.TextArea` through its public editing API,
so each edit is one step of its undo history.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from textual import events
from textual.widgets import TextArea

ViMode = Literal["insert", "normal"]

_MOTIONS = frozenset("hjklwbe0^$G")
_OPERATORS = frozenset("dcy")


def _char_class(char: str) -> int:
    """vi's word classes: 0 blank, 1 word characters, 2 other punctuation."""
    if char.isspace():
        return 0
    return 1 if char.isalnum() or char == "_" else 2


@dataclass
class _Register:
    text: str = ""
    linewise: bool = False


class ViKeys:
    """The vi state of one prompt: its mode, a pending count and operator, the register.

    The prompt calls :meth:`handle` with each key before its own handling; a True answer
    means the key was used.
    """

    def __init__(self, area: TextArea, on_mode: Callable[[ViMode], None] | None = None) -> None:
        """The vi keys of ``area``; ``on_mode`` hears of each change of mode (to show it)."""
        self.area = area
        self._on_mode = on_mode
        self.mode: ViMode = "insert"
        """``insert`` (keys type) or ``normal`` (keys move and edit)."""
        self._count = ""
        self._pending = ""
        self._register = _Register()

    # -- the entry point -------------------------------------------------------------------

    def handle(self, event: events.Key) -> bool:
        """Use ``event`` if vi mode has a meaning for it; True when it did (the prompt then
        stops it)."""
        if event.key == "escape":
            return self._escape()
        if self.mode == "insert":
            return False
        char = event.character
        if char is None or not char.isprintable() or event.key.startswith(("ctrl+", "alt+")):
            return False  # arrows, Enter, Ctrl keys: as in insert mode
        self._normal(char)
        return True

    def _escape(self) -> bool:
        pending = bool(self._pending or self._count)
        self._pending = self._count = ""
        if self.mode == "insert":
            self.set_mode("normal")
            row, column = self.area.cursor_location
            if column:
                self.area.move_cursor((row, column - 1))
            return bool(self.area.text)  # an empty prompt: Esc goes on (cancels a turn)
        return pending

    def set_mode(self, mode: ViMode) -> None:
        """Switch to ``mode`` (the prompt shows it)."""
        self.mode = mode
        self.area.history.checkpoint()  # what insert mode typed is one step for u
        if self._on_mode is not None:
            self._on_mode(mode)

    # -- normal mode -----------------------------------------------------------------------

    def _normal(self, char: str) -> None:
        self.area.history.checkpoint()  # each normal-mode edit is its own step for u
        if char.isdigit() and (char != "0" or self._count):
            self._count += char
            return
        count = int(self._count or "1")
        pending, self._pending, self._count = self._pending, "", ""
        if pending == "g":
            if char == "g":
                self._goto_line(count - 1 if self._count_given(count) else 0)
            return
        if pending in _OPERATORS:
            self._operate(pending, char, count)
            return
        if char in _MOTIONS:
            self._move_to(self._motion(char, count))
        elif char in _OPERATORS or char == "g":
            self._pending = char
            self._count = str(count) if count > 1 else ""
        elif char == "x":
            row, column = self.area.cursor_location
            end = min(column + count, len(self._line(row)))
            if end > column:
                self._cut((row, column), (row, end))
                self._clamp()
        elif char == "D":
            row, column = self.area.cursor_location
            self._cut((row, column), (row, len(self._line(row))))
            self._clamp()
        elif char == "C":
            row, column = self.area.cursor_location
            self._cut((row, column), (row, len(self._line(row))))
            self.set_mode("insert")
        elif char in "pP":
            self._put(after=char == "p", count=count)
        elif char == "u":
            for _ in range(count):
                self.area.undo()
            self._clamp()
        elif char in "iaIAoO":
            self._insert(char)

    def _count_given(self, count: int) -> bool:
        return count > 1

    def _insert(self, char: str) -> None:
        area = self.area
        row, column = area.cursor_location
        line = self._line(row)
        if char == "a" and line:
            area.move_cursor((row, column + 1))
        elif char == "I":
            area.move_cursor((row, len(line) - len(line.lstrip())))
        elif char == "A":
            area.move_cursor((row, len(line)))
        elif char == "o":
            area.insert("\n", (row, len(line)))
            area.move_cursor((row + 1, 0))
        elif char == "O":
            area.insert("\n", (row, 0))
            area.move_cursor((row, 0))
        self.set_mode("insert")

    def _operate(self, operator: str, char: str, count: int) -> None:
        area = self.area
        row, column = area.cursor_location
        if char == operator:  # dd, cc, yy: whole lines
            last = min(row + count - 1, area.document.line_count - 1)
            lines = [self._line(r) for r in range(row, last + 1)]
            self._register = _Register("\n".join(lines) + "\n", linewise=True)
            if operator == "y":
                return
            if operator == "c":
                self._replace((row, 0), (last, len(self._line(last))), "")
                self.set_mode("insert")
                return
            self._delete_lines(row, last)
            return
        if char == "w" and operator == "c":
            char = "e"  # vi's cw changes to the end of the word
            end = self._motion("e", count)
            end = (end[0], end[1] + 1)
        elif char in _MOTIONS:
            end = self._motion(char, count)
            if char in "e$":
                end = (end[0], end[1] + 1)
            if char == "w" and end[0] > row:  # dw stops at the end of the line
                end = (row, len(self._line(row)))
        else:
            return
        start, end = sorted([(row, column), end])
        if operator == "y":
            self._register = _Register(area.document.get_text_range(start, end))
            area.move_cursor(start)
            return
        self._cut(start, end)
        if operator == "c":
            self.set_mode("insert")
        else:
            self._clamp()

    # -- motions ---------------------------------------------------------------------------

    def _motion(self, char: str, count: int) -> tuple[int, int]:
        area = self.area
        row, column = area.cursor_location
        last_row = area.document.line_count - 1
        if char == "h":
            return row, max(0, column - count)
        if char == "l":
            return row, min(column + count, max(0, len(self._line(row)) - 1))
        if char in "jk":
            row = min(last_row, row + count) if char == "j" else max(0, row - count)
            return row, min(column, max(0, len(self._line(row)) - 1))
        if char == "0":
            return row, 0
        if char == "^":
            line = self._line(row)
            return row, len(line) - len(line.lstrip())
        if char == "$":
            row = min(last_row, row + count - 1)
            return row, max(0, len(self._line(row)) - 1)
        if char == "G":
            target = last_row if not self._count_given(count) else min(last_row, count - 1)
            line = self._line(target)
            return target, len(line) - len(line.lstrip())
        index = self._index((row, column))
        for _ in range(count):
            index = {"w": self._word_start, "b": self._word_back, "e": self._word_end}[char](index)
        return self._location(index)

    def _word_start(self, index: int) -> int:
        text = self.area.text
        n = len(text)
        if index >= n:
            return index
        kind = _char_class(text[index])
        while index < n and kind and _char_class(text[index]) == kind:
            index += 1
        while index < n and _char_class(text[index]) == 0:
            if text[index] == "\n" and index + 1 < n and text[index + 1] == "\n":
                return index + 1  # an empty line is a word
            index += 1
        return index

    def _word_end(self, index: int) -> int:
        text = self.area.text
        n = len(text)
        index += 1
        while index < n and _char_class(text[index]) == 0:
            index += 1
        if index >= n:
            return max(0, n - 1)
        kind = _char_class(text[index])
        while index + 1 < n and _char_class(text[index + 1]) == kind:
            index += 1
        return index

    def _word_back(self, index: int) -> int:
        text = self.area.text
        index -= 1
        while index > 0 and _char_class(text[index]) == 0:
            index -= 1
        if index <= 0:
            return 0
        kind = _char_class(text[index])
        while index > 0 and _char_class(text[index - 1]) == kind:
            index -= 1
        return index

    def _goto_line(self, row: int) -> None:
        row = min(row, self.area.document.line_count - 1)
        line = self._line(row)
        self.area.move_cursor((row, len(line) - len(line.lstrip())))

    def _move_to(self, location: tuple[int, int]) -> None:
        self.area.move_cursor(location)

    # -- editing ---------------------------------------------------------------------------

    def _cut(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        self._register = _Register(self.area.document.get_text_range(start, end))
        self._replace(start, end, "")

    def _replace(self, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        result = self.area.replace(text, start, end)
        self.area.move_cursor(result.end_location)

    def _delete_lines(self, first: int, last: int) -> None:
        area = self.area
        line_count = area.document.line_count
        if last < line_count - 1:
            start, end = (first, 0), (last + 1, 0)
        elif first > 0:
            start, end = (first - 1, len(self._line(first - 1))), (last, len(self._line(last)))
        else:
            start, end = (0, 0), (last, len(self._line(last)))
        area.replace("", start, end)
        self._goto_line(min(first, area.document.line_count - 1))

    def _put(self, *, after: bool, count: int) -> None:
        area = self.area
        register = self._register
        if not register.text:
            return
        row, column = area.cursor_location
        if register.linewise:
            body = register.text * count
            if after:
                line = self._line(row)
                area.insert("\n" + body[:-1], (row, len(line)))
                self._goto_line(row + 1)
            else:
                area.insert(body, (row, 0))
                self._goto_line(row)
            return
        at = (row, min(column + 1, len(self._line(row)))) if after else (row, column)
        result = area.insert(register.text * count, at)
        end_row, end_column = result.end_location
        area.move_cursor((end_row, max(0, end_column - 1)))

    def _clamp(self) -> None:
        """In normal mode the cursor sits on a character, not after the last one."""
        row, column = self.area.cursor_location
        length = len(self._line(row))
        if length and column >= length:
            self.area.move_cursor((row, length - 1))

    # -- text and places -------------------------------------------------------------------

    def _line(self, row: int) -> str:
        return self.area.document.get_line(row)

    def _index(self, location: tuple[int, int]) -> int:
        row, column = location
        return sum(len(self._line(r)) + 1 for r in range(row)) + column

    def _location(self, index: int) -> tuple[int, int]:
        row = 0
        while row < self.area.document.line_count - 1:
            length = len(self._line(row)) + 1
            if index < length:
                break
            index -= length
            row += 1
        return row, min(index, len(self._line(row)))
