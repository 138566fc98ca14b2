"""The one glob language of agent-tui: rule patterns, read_many_files and glob_files/grep.

A glob is matched against a ``/``-separated path:

- ``*`` matches any run of characters within one folder name, ``?`` one character; both
  match a leading dot, as in ripgrep and unlike bash.
- ``**/`` at the start of a folder name matches zero or more folders, a trailing ``/**``
  the folder itself and everything below it; ``**`` anywhere else matches anything,
  ``/`` included (ripgrep reads it as ``*`` there; crossing folders is the wider reading,
  which a deny rule wants).
- ``[abc]``, ``[a-z]``, ``[!a]`` or ``[^a]`` match one character of a class, never ``/``;
  a ``]`` right after the opening ``[`` (or ``[!``) belongs to the class, a ``-`` first or
  last is literal, ``\\`` inside a class is literal, and a reversed range matches nothing.
- ``{a,b}`` matches either alternative; alternatives may nest and hold any glob syntax, and
  an empty one matches the empty string (``.env{,.local}``).
- ``\\`` makes the next character literal (``\\*``, ``\\[``, ``\\{``, ``\\,``).

An ``[`` without its ``]``, a ``{`` without its ``}`` and a stray ``}`` are literal
characters, as git reads an unclosed ``[`` in ``.gitignore`` (ripgrep's ``--glob`` rejects
them as errors instead; a pattern that fails is worse than one that means what it says).
Matching is case-sensitive, and the whole path must match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

MAX_ALTERNATIVES = 1_024
"""How many brace-free globs ``expand_braces`` produces before it gives up."""

_ESCAPED = frozenset("\\*?[]{},")


@dataclass(frozen=True, slots=True)
class _Syntax:
    """Where a glob's special characters are: what is syntax and what is literal text."""

    classes: dict[int, int]
    """The index of each ``[`` that opens a class, to the index of its ``]``."""
    braces: dict[int, int]
    """The index of each ``{`` that opens alternatives, to the index of its ``}``."""
    commas: dict[int, tuple[int, ...]]
    """The index of each such ``{``, to the commas that separate its alternatives."""
    first_magic: int | None
    """The index of the first ``*``, ``?``, class or alternatives (None: a plain path)."""


def _class_end(pattern: str, start: int) -> int | None:
    """The index of the ``]`` closing the class that opens at ``start``, or None."""
    index = start + 1
    if pattern[index:index + 1] in ("!", "^"):
        index += 1
    if pattern[index:index + 1] == "]":
        index += 1  # a ``]`` first is a member of the class
    end = pattern.find("]", index)
    return end if end != -1 else None


@lru_cache(maxsize=512)
def _syntax(pattern: str) -> _Syntax:
    classes: dict[int, int] = {}
    braces: dict[int, int] = {}
    commas: dict[int, list[int]] = {}
    open_braces: list[int] = []
    magic: list[int] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[" and (end := _class_end(pattern, index)) is not None:
            classes[index] = end
            magic.append(index)
            index = end + 1
            continue
        if char in "*?":
            magic.append(index)
        elif char == "{":
            open_braces.append(index)
            commas[index] = []
        elif char == "}" and open_braces:
            start = open_braces.pop()
            braces[start] = index
            magic.append(start)
        elif char == "," and open_braces:
            commas[open_braces[-1]].append(index)
        index += 1
    # A ``{`` left open is literal, and so are its commas: no closed pair can enclose it.
    return _Syntax(classes, braces,
                   {start: tuple(found) for start, found in commas.items() if start in braces},
                   min(magic, default=None))


def has_magic(pattern: str) -> bool:
    """Whether ``pattern`` is a glob rather than a plain (possibly escaped) path."""
    return _syntax(pattern).first_magic is not None


def escape(text: str) -> str:
    """A glob that matches exactly ``text``."""
    return "".join(f"\\{char}" if char in _ESCAPED else char for char in text)


def unescape(pattern: str) -> str:
    """The path a glob without magic names: its escapes removed (``a\\[1\\]`` -> ``a[1]``)."""
    return re.sub(r"\\(.)", r"\1", pattern, flags=re.S)


def split_fixed(pattern: str) -> tuple[str, str]:
    """A glob's fixed leading folder and the glob that follows it.

    The folder is the literal path before the first name with glob syntax in it, escapes
    removed: ``src/**/*.py`` gives ``("src", "**/*.py")``, ``/p/a{b,c}/x`` gives
    ``("/p", "a{b,c}/x")``, ``*.py`` gives ``("", "*.py")`` and ``/*.py`` gives
    ``("/", "*.py")``. A plain path is all folder: ``a/\\[b\\]`` gives ``("a/[b]", "")``.
    """
    first = _syntax(pattern).first_magic
    if first is None:
        return unescape(pattern), ""
    cut = pattern.rfind("/", 0, first)
    if cut == -1:
        return "", pattern
    return unescape(pattern[:cut]) or "/", pattern[cut + 1:]


def fixed_folder(pattern: str) -> str:
    """The folder a glob starts in: ``/p/src/**/*.py`` searches ``/p/src`` (see ``split_fixed``)."""
    return split_fixed(pattern)[0]


def expand_braces(pattern: str) -> list[str] | None:
    """The brace-free globs ``pattern`` stands for: ``a/{b,c/d}*`` -> ``a/b*``, ``a/c/d*``.

    Literal braces and commas come out escaped, so each result reads as it did inside
    ``pattern``. None when there would be more than ``MAX_ALTERNATIVES``.
    """
    syntax = _syntax(pattern)
    try:
        return _expand(pattern, 0, len(pattern), syntax)
    except _TooMany:
        return None


class _TooMany(Exception):
    """More alternatives than ``MAX_ALTERNATIVES``."""


def _expand(pattern: str, start: int, stop: int, syntax: _Syntax) -> list[str]:
    results = [""]
    index = start
    while index < stop:
        char = pattern[index]
        if char == "\\":
            piece, index = pattern[index:index + 2], index + 2
        elif char == "[" and index in syntax.classes:
            piece, index = pattern[index:syntax.classes[index] + 1], syntax.classes[index] + 1
        elif char == "{" and index in syntax.braces:
            options = [option for begin, end in _branches(index, syntax)
                       for option in _expand(pattern, begin, end, syntax)]
            if len(results) * len(options) > MAX_ALTERNATIVES:
                raise _TooMany
            results = [head + option for head in results for option in options]
            index = syntax.braces[index] + 1
            continue
        else:
            piece, index = (f"\\{char}" if char in "{},]" else char), index + 1
        results = [head + piece for head in results]
    return results


def _branches(brace: int, syntax: _Syntax) -> list[tuple[int, int]]:
    """The ``(start, stop)`` of each alternative of the ``{`` at index ``brace``."""
    bounds = [brace, *syntax.commas[brace], syntax.braces[brace]]
    return [(bounds[k] + 1, bounds[k + 1]) for k in range(len(bounds) - 1)]


def split_names(pattern: str) -> list[str]:
    """A brace-free glob's folder names: ``a/[/]b/*`` -> ``["a", "[/]b", "*"]``.

    A ``/`` inside a class does not split (the class matches nothing there anyway).
    """
    syntax = _syntax(pattern)
    names, begin, index = [], 0, 0
    while index < len(pattern):
        if pattern[index] == "\\":
            index += 2
            continue
        if index in syntax.classes:
            index = syntax.classes[index] + 1
            continue
        if pattern[index] == "/":
            names.append(pattern[begin:index])
            begin = index + 1
        index += 1
    names.append(pattern[begin:])
    return names


def crosses_folders(pattern: str) -> bool:
    """Whether a glob has a ``**`` (not escaped), which may match across folders."""
    syntax = _syntax(pattern)
    index = 0
    while index < len(pattern):
        if pattern[index] == "\\":
            index += 2
        elif index in syntax.classes:
            index = syntax.classes[index] + 1
        elif pattern.startswith("**", index):
            return True
        else:
            index += 1
    return False


def ripgrep_reads_alike(name: str) -> bool:
    """Whether ripgrep (its globset crate) reads the file-name glob ``name`` as this module
    does, so it may be handed to rg (``--type-add``) without changing what matches.

    It does not for an unclosed ``[`` or ``{``, a stray ``}``, a dangling ``\\`` (errors
    there), an empty alternative (dropped there), nested alternatives (an error before
    ripgrep 14) or ``**`` (``*`` there).
    """
    syntax = _syntax(name)
    if "**" in name:
        return False
    closes = set(syntax.braces.values())
    depth, index = 0, 0
    while index < len(name):
        char = name[index]
        if char == "\\":
            if index + 1 == len(name):
                return False
            index += 2
            continue
        if index in syntax.classes:
            index = syntax.classes[index] + 1
            continue
        if char == "[" or (char == "{" and index not in syntax.braces) or (
                char == "}" and index not in closes):
            return False
        if char == "{":
            depth += 1
            if depth > 1 or any(begin == end for begin, end in _branches(index, syntax)):
                return False
        elif char == "}":
            depth -= 1
        index += 1
    return True


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob over ``/``-separated paths; match it with ``fullmatch``."""
    return re.compile(_translate(pattern, 0, len(pattern), _syntax(pattern), True, True),
                      re.DOTALL)


def _translate(pattern: str, start: int, stop: int, syntax: _Syntax, name_start: bool,
               at_end: bool) -> str:
    """The regex for ``pattern[start:stop]``.

    Args:
        name_start: ``start`` begins a folder name (for ``**/``).
        at_end: ``stop`` ends the whole pattern (for a trailing ``/**``).
    """
    out: list[str] = []
    index = start
    while index < stop:
        char = pattern[index]
        begins_name = (name_start if index == start else pattern[index - 1] == "/")
        if char == "*" and pattern.startswith("**", index) and index + 2 <= stop:
            if begins_name and index + 3 <= stop and pattern[index + 2] == "/":
                out.append("(?:.*/)?")
                index += 3
            else:
                out.append(".*")
                index += 2
        elif char == "*":
            out.append("[^/]*")
            index += 1
        elif char == "/" and at_end and index + 3 == stop and pattern.startswith("/**", index):
            out.append("(?:/.*)?")
            index += 3
        elif char == "?":
            out.append("[^/]")
            index += 1
        elif char == "[" and index in syntax.classes:
            end = syntax.classes[index]
            out.append(_class_regex(pattern[index + 1:end]))
            index = end + 1
        elif char == "{" and index in syntax.braces:
            end = syntax.braces[index]
            alternatives = [
                _translate(pattern, begin, stop_at, syntax, begins_name, at_end and end + 1 == stop)
                for begin, stop_at in _branches(index, syntax)]
            out.append("(?:" + "|".join(alternatives) + ")")
            index = end + 1
        elif char == "\\" and index + 1 < stop:
            out.append(re.escape(pattern[index + 1]))
            index += 2
        else:
            out.append(re.escape(char))
            index += 1
    return "".join(out)


def _class_regex(body: str) -> str:
    """The regex for a class's ``body`` (between ``[`` and ``]``); it never matches ``/``."""
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    members: list[str] = []
    index = 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1] == "-":
            low, high = body[index], body[index + 2]
            if low <= high:  # a reversed range (``z-a``) matches nothing
                members.append(f"{re.escape(low)}-{re.escape(high)}")
            index += 3
        else:
            members.append(re.escape(body[index]))
            index += 1
    if negated:
        return "[^/" + "".join(members) + "]"
    if not members:
        return "(?!)"
    return "(?!/)[" + "".join(members) + "]"


@dataclass(frozen=True, slots=True)
class PathMatcher:
    """A glob and how it meets a path: the whole path, or (gitignore style) any name in it.

    Attributes:
        pattern: The glob as given.
        regex: Its compiled form.
        by_name: Match a file's or folder's name at any depth instead of the whole path.
    """

    pattern: str
    regex: re.Pattern[str]
    by_name: bool = False

    @classmethod
    def parse(cls, pattern: str, *, by_name: bool = False) -> PathMatcher:
        """Compile ``pattern``; ``by_name`` matches names at any depth."""
        return cls(pattern, glob_regex(pattern), by_name)

    def matches(self, path: str) -> bool:
        """Whether the relative ``path`` (or, by name, its last name) matches."""
        return bool(self.regex.fullmatch(path.rsplit("/", 1)[-1] if self.by_name else path))

    def matches_within(self, path: str) -> bool:
        """Whether ``path`` or a folder it lies in matches (``tests`` covers ``tests/a.py``)."""
        parts = path.split("/")
        return any(self.matches("/".join(parts[:k])) for k in range(1, len(parts) + 1))
