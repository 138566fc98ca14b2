"""Shell words expanded the way bash expands them before a command sees them.

bash turns one written word into zero or more arguments: brace expansion (``{-o,out}`` is
``-o out``), tilde expansion, word splitting of unquoted expansions, and pathname expansion
against the folder the command runs in (``*`` may match a file named ``-o``). Only then does
the program parse its options, so the judge must look at the words after the same steps.
What bash only knows at run time stays marked dynamic.

Each character of a word remembers how it was written, which decides what expands:

- ``u``: unquoted literal text (braces, globs and a leading ``~`` expand);
- ``q``: quoted or escaped literal text (nothing expands);
- ``v``: the unquoted value of a variable whose value is known (splits at blanks, globs
  expand, braces do not);
- ``d``: text only known at run time (``$x``, ``$(cmd)``), kept as written;
- ``b``: a loop variable that is one of several words, kept as the list ``{a,b}`` so the
  paths it may name are each judged.

Words that come out of :func:`expand` are marked ``literal`` (unless dynamic or such a list):
their text is the argument itself, never to be expanded again.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .shell_parts import Part, Word

MAX_FIELDS = 512
"""How many words one written word may expand to before the rest are only known as "more"."""

_SEQUENCE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")
_GLOB = frozenset("*?[")
_BLANKS = frozenset(" \t\n")
_EXPANDING = frozenset("{*?[")
"""Characters without which only word splitting can change a word."""


@dataclass(frozen=True, slots=True)
class WordText:
    """A written word before expansion: its characters and how each was written.

    Attributes:
        chars: The characters (quotes removed; dynamic parts as written).
        kinds: One of ``u``, ``q``, ``v``, ``d`` per character (see the module's docstring).
        inner: The commands substitutions in the word run.
        process: A process substitution ``<( )``: bash passes a pipe.
    """

    chars: str = ""
    kinds: str = ""
    inner: tuple[Part, ...] = ()
    process: bool = False

    @classmethod
    def of(cls, text: str, kind: str, inner: tuple[Part, ...] = ()) -> WordText:
        """``text`` written all one way."""
        return cls(text, kind * len(text), inner)

    def __add__(self, other: WordText) -> WordText:
        return WordText(self.chars + other.chars, self.kinds + other.kinds,
                        self.inner + other.inner, self.process or other.process)

    def __getitem__(self, span: slice) -> WordText:
        return WordText(self.chars[span], self.kinds[span], self.inner, self.process)

    @property
    def dynamic(self) -> bool:
        """Whether some of it is only known at run time."""
        return "d" in self.kinds

    def word(self, literal: bool = False) -> Word:
        """The word as one argument (``literal``: as the program gets it)."""
        literal = literal and not self.dynamic and "b" not in self.kinds
        return Word(self.chars, self.dynamic, self.inner, self.process, literal)


def expand(text: WordText, cwd: Path | None, home: str) -> list[Word]:
    """The arguments bash makes of one written word run in ``cwd``."""
    if text.process or not (_EXPANDING & set(text.chars)) and "v" not in text.kinds:
        return [text.word(literal=True)]
    fields: list[Word] = []
    for braced in expand_braces(text):
        for field in split_fields(braced):
            # A plain `~/x` stays as written (rules are written with `~`; paths resolve it);
            # before a glob is matched it must be the home folder.
            fields.extend(expand_pathnames(expand_tilde(field, home), cwd)
                          if _has_glob(field) else [field.word(literal=True)])
            if len(fields) >= MAX_FIELDS:
                return [*fields[:MAX_FIELDS], Word(f"(more words {text.chars} expands to)",
                                                   dynamic=True)]
    return fields


def expand_braces(text: WordText) -> list[WordText]:
    """``a{b,c}d`` -> ``abd``, ``acd``; ``{1..3}`` -> ``1``, ``2``, ``3`` (unquoted braces
    only; a brace with neither a comma nor a sequence is literal)."""
    chars, kinds = text.chars, text.kinds
    for start, char in enumerate(chars):
        if char != "{" or kinds[start] != "u":
            continue
        end, commas = _closing_brace(chars, kinds, start)
        if end is None:
            continue
        if commas:
            bounds = [start, *commas, end]
            choices = [text[bounds[i] + 1:bounds[i + 1]] for i in range(len(bounds) - 1)]
        elif kinds[start + 1:end] == "u" * (end - start - 1) and (
                items := _sequence(chars[start + 1:end])) is not None:
            choices = [WordText.of(item, "u") for item in items]
        else:
            continue
        head, tail = text[:start], text[end + 1:]
        results: list[WordText] = []
        for choice in choices:
            results.extend(expand_braces(head + choice + tail))
            if len(results) >= MAX_FIELDS:
                break
        return results[:MAX_FIELDS]
    return [text]


def _closing_brace(chars: str, kinds: str, start: int) -> tuple[int | None, list[int]]:
    depth = 0
    commas: list[int] = []
    for index in range(start + 1, len(chars)):
        if kinds[index] != "u":
            continue
        char = chars[index]
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return index, commas
            depth -= 1
        elif char == "," and depth == 0:
            commas.append(index)
    return None, []


def _sequence(body: str) -> list[str] | None:
    """The items of a sequence expression ``1..5``, ``a..e``, ``01..10..2``."""
    match = _SEQUENCE.match(body)
    if match is None:
        return None
    first, last, step_text = match.groups()
    step = abs(int(step_text)) if step_text and int(step_text) else 1
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        low, high = int(first), int(last)
        padded = any(len(n.lstrip("-")) > 1 and n.lstrip("-").startswith("0")
                     for n in (first, last))
        width = max(len(first), len(last)) if padded else 0
        numbers = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        return [str(n).zfill(width) for n in numbers[:MAX_FIELDS]]
    if len(first) == 1 and len(last) == 1 and not first.isdigit() and not last.isdigit():
        low, high = ord(first), ord(last)
        codes = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        return [chr(c) for c in codes[:MAX_FIELDS]]
    return None


def expand_tilde(text: WordText, home: str) -> WordText:
    """An unquoted ``~`` or ``~user`` at the start of the word names a home folder."""
    if not text.chars.startswith("~") or text.kinds[:1] != "u":
        return text
    slash = text.chars.find("/")
    end = slash if slash >= 0 else len(text.chars)
    if text.kinds[:end] != "u" * end:
        return text
    user = text.chars[1:end]
    folder = home if not user else os.path.expanduser("~" + user)
    if folder.startswith("~"):
        return text  # no such user: bash leaves the word as it is
    return WordText.of(folder, "q") + text[end:]


def split_fields(text: WordText) -> list[WordText]:
    """Word splitting: the blanks in known unquoted values separate arguments, and a word
    that is only such an empty value disappears."""
    if "v" not in text.kinds:
        return [text]
    fields: list[WordText] = []
    start = 0
    for index, (char, kind) in enumerate(zip(text.chars, text.kinds, strict=True)):
        if kind == "v" and char in _BLANKS:
            if index > start:
                fields.append(text[start:index])
            start = index + 1
    if start < len(text.chars):
        fields.append(text[start:])
    return fields


def expand_pathnames(text: WordText, cwd: Path | None) -> list[Word]:
    """Pathname expansion: an unquoted ``*``, ``?`` or ``[`` matches files in ``cwd``; with
    no match the word stays as written (bash's default)."""
    word = text.word(literal=True)
    if not _has_glob(text):
        return [word]
    pattern = "".join(c if k in "uv" else glob.escape(c)
                      for c, k in zip(text.chars, text.kinds, strict=True))
    if not os.path.isabs(pattern) and cwd is None:
        return [Word(text.chars, dynamic=True, inner=text.inner)]
    try:
        matches = sorted(glob.glob(pattern, root_dir=None if os.path.isabs(pattern) else cwd))
    except (OSError, ValueError):
        return [Word(text.chars, dynamic=True, inner=text.inner)]
    if not matches:
        return [word]
    return [Word(m, inner=text.inner, literal=True) for m in matches[:MAX_FIELDS]]


def _has_glob(text: WordText) -> bool:
    """Whether pathname expansion applies: an unquoted glob character, nothing dynamic."""
    return not text.dynamic and any(c in _GLOB and k in "uv"
                                    for c, k in zip(text.chars, text.kinds, strict=True))
