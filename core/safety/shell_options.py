"""Command-line options read the way the program's own parser reads them.

GNU programs parse with ``getopt_long``: ``-abc`` is ``-a -b -c`` until a letter that takes a
value (``-n5``, ``-n 5``), and any unique prefix of a long option is that option
(``sort --out=x`` is ``sort --output=x``; ``--o`` is too when no other long option starts
with ``o``). A check that compares exact names misses those spellings, so every option is
resolved against the program's table first. With a complete table, an option the program
does not know (or an ambiguous prefix) is reported as unknown: its meaning cannot be told,
and the caller asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shell_parts import Word


@dataclass(frozen=True, slots=True)
class OptionTable:
    """A program's options.

    Attributes:
        short: Short options that take no value (``"abc"``).
        short_takes: Short options that take a value (``-n 5``, ``-n5``).
        long: Long options that take no value (``{"all"}``).
        long_takes: Long options that take a value (``--lines 5``, ``--lines=5``).
        long_optional: Long options whose value is optional, given only as ``--color=WHEN``.
        complete: Whether these are all the program's options; an unknown option is then
            reported instead of guessed at.
        permute: Options may follow operands (GNU) until ``--``; without it, the first
            operand ends the options (wrappers such as ``env`` and ``xargs``).
        short_optional: Short options whose value is optional, given only attached
            (xargs's ``-i{}``).
    """

    short: str = ""
    short_takes: str = ""
    long: frozenset[str] = frozenset()
    long_takes: frozenset[str] = frozenset()
    long_optional: frozenset[str] = frozenset()
    complete: bool = False
    permute: bool = True
    short_optional: str = ""

    @property
    def long_names(self) -> frozenset[str]:
        """Every long option's name."""
        return self.long | self.long_takes | self.long_optional


@dataclass(slots=True)
class ParsedOptions:
    """What :func:`parse_options` found.

    Attributes:
        found: Options by canonical name (``"-n"``, ``"--output"``) with their values
            (None for a flag); the last spelling wins, as in the programs.
        given: Every option met, in order, with its value (``grep -f a -f b`` twice).
        operands: The words that are not options, in order.
        unknown: Options as written that the table cannot resolve (unknown or ambiguous).
        end: Index just past the last word read: with ``permute`` off, the first operand.
        dynamic: Whether an option-position word is only known at run time, so an option
            may hide in it.
    """

    found: dict[str, Word | None] = field(default_factory=dict)
    given: list[tuple[str, Word | None]] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    end: int = 0
    dynamic: bool = False

    def has(self, *names: str) -> bool:
        """Whether any of ``names`` (canonical) was given."""
        return any(name in self.found for name in names)

    def values(self, name: str) -> list[Word]:
        """Every value given to the option ``name`` (canonical), in order."""
        return [v for n, v in self.given if n == name and v is not None]

    def _set(self, name: str, value: Word | None) -> None:
        self.found[name] = value
        self.given.append((name, value))

    def value(self, *names: str) -> Word | None:
        """The value of the first of ``names`` given with one."""
        return next((v for n in names if (v := self.found.get(n)) is not None), None)


def resolve_long(name: str, table: OptionTable) -> str | None:
    """The long option ``--name`` means for ``table``: itself, or the one option it is a
    unique prefix of (``out`` -> ``output``); None when unknown or ambiguous.

    With an incomplete table an unmatched name is taken as written (a guess is no better).
    """
    names = table.long_names
    if name in names:
        return name
    matches = [n for n in names if n.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    if not matches and not table.complete:
        return name
    return None


def parse_options(words: Sequence[Word], at: int, table: OptionTable) -> ParsedOptions:
    """Read the options after the program at ``words[at]``.

    Args:
        words: The command's words.
        at: Index of the program.
        table: The program's options.

    Returns:
        The options found (canonical names), the operands, and what could not be resolved.
    """
    from .shell_parts import Word

    parsed = ParsedOptions()
    index = at + 1
    while index < len(words):
        word = words[index]
        text = word.text
        if word.dynamic and not word.process:
            parsed.dynamic = parsed.dynamic or text.startswith("-") or not text[:1].isalnum()
        if word.dynamic or text == "-" or not text.startswith("-"):
            if not table.permute:
                break
            parsed.operands.append(word)
            index += 1
            continue
        index += 1
        if text == "--":
            parsed.operands.extend(words[index:])
            index = len(words)
            break
        if text.startswith("--"):
            written, eq, value = text[2:].partition("=")
            name = resolve_long(written, table)
            if name is None:
                parsed.unknown.append("--" + written)
                continue
            if eq:
                parsed._set("--" + name, Word(value, literal=word.literal))
            elif name in table.long_takes and index < len(words):
                parsed._set("--" + name, words[index])
                index += 1
            else:
                parsed._set("--" + name, None)
            continue
        for pos, letter in enumerate(text[1:], start=1):
            if letter in table.short_takes:
                rest = text[pos + 1:]
                if rest:
                    parsed._set("-" + letter, Word(rest, literal=word.literal))
                elif index < len(words):
                    parsed._set("-" + letter, words[index])
                    index += 1
                else:
                    parsed._set("-" + letter, None)
                break
            if letter in table.short_optional:
                rest = text[pos + 1:]
                parsed._set("-" + letter, Word(rest) if rest else None)
                break
            if table.complete and letter not in table.short:
                parsed.unknown.append("-" + letter)
                continue
            parsed._set("-" + letter, None)
    parsed.end = index
    return parsed
