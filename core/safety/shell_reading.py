"""Reading shell words inside the walk: what each written word becomes, and the commands
its substitutions run.

:class:`WordReader` is the layer of the shell analysis below statements: it turns a
tree-sitter word node into :class:`~.shell_words.WordText` (how each character was written)
and then into the arguments bash makes of it, walking the ``$( )``, backticks and ``<( )``
inside as commands of their own. :class:`Scope` is what the walk knows at one point.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .shell_parts import Part, Redirect, Word
from .shell_syntax import ansi_c_word, node_text, unescape_double_quoted, unquoted_word
from .shell_words import WordText, expand

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(frozen=True, slots=True)
class Scope:
    """What the walk knows at one point: folder, inherited redirections, pipeline stage."""

    cwd: Path | None
    redirects: tuple[Redirect, ...] = ()
    pipe: tuple[int, int] | None = None
    wrappers: tuple[str, ...] = ()
    asks: tuple[str, ...] = ()
    origin: str = ""
    depth: int = 0
    bindings: tuple[tuple[str, str], ...] = ()  # loop variables over literal words
    env: tuple[str, ...] = ()  # variables set for every command inside (`X=1 bash -c …`)
    programs: tuple[tuple[str, tuple[Word, ...]], ...] = ()  # names rebound, newest first
    functions: tuple[tuple[str, tuple[Part, ...]], ...] = ()  # functions defined, with bodies


@dataclass
class WordReader:
    """Reads words for the statement walker that extends it (which provides ``_walk``).

    Attributes:
        parts: The simple commands found so far, in the order bash meets them.
    """

    parts: list[Part] = field(default_factory=list)
    _home: str = field(default_factory=lambda: os.path.expanduser("~"))
    _loop_lists: set[str] = field(default_factory=set)  # loop variables bound to `{a,b}`

    def _walk(self, node: Node, scope: Scope) -> Scope:
        raise NotImplementedError  # the statement walker's

    def _word(self, node: Node, scope: Scope) -> Word:
        """One word as written, quotes removed (a redirection's target, a ``-c`` string)."""
        return self._written(node, scope).word()

    def _fields(self, node: Node, scope: Scope) -> list[Word]:
        """The arguments one written word becomes (braces, ``~``, splitting, globs)."""
        return expand(self._written(node, scope), scope.cwd, self._home)

    def _written(self, node: Node, scope: Scope, quoted: bool = False) -> WordText:
        kind = node.type
        text = node_text(node)
        if kind == "word":
            return unquoted_word(text)
        if kind in ("number", "brace_expression", "variable_name"):
            return WordText.of(text, "q" if quoted else "u")
        if kind == "raw_string":
            return WordText.of(text[1:-1], "q")
        if kind == "ansi_c_string":
            return ansi_c_word(text)
        if kind in ("string", "translated_string"):
            return self._string(node, scope)
        if kind == "concatenation":
            joined = WordText()
            for child in node.children:
                joined = joined + self._written(child, scope, quoted)
            return joined
        if kind in ("simple_expansion", "expansion"):
            return self._expansion(node, scope, quoted)
        if kind in ("command_substitution", "process_substitution"):
            inner = self._substitution(node, scope)
            if kind == "process_substitution":
                return WordText(text, "q" * len(text), inner, process=True)
            return WordText.of(text, "d", inner)
        before = len(self.parts)
        self._values(node, scope)
        return WordText.of(text, "d", tuple(self.parts[before:]))

    def _string(self, node: Node, scope: Scope) -> WordText:
        """A double-quoted string. The text between its pieces (newlines: tree-sitter leaves
        them out of ``string_content``) is read from the source, so no line is lost."""
        source = node.text or b""
        base = node.start_byte
        at = base + 1
        joined = WordText()
        for child in node.named_children:
            gap = source[at - base:child.start_byte - base].decode("utf-8", "surrogateescape")
            joined = joined + WordText.of(unescape_double_quoted(gap), "q")
            if child.type == "string_content":
                joined = joined + WordText.of(unescape_double_quoted(node_text(child)), "q")
            else:
                joined = joined + self._written(child, scope, quoted=True)
            at = child.end_byte
        gap = source[at - base:len(source) - 1].decode("utf-8", "surrogateescape")
        joined = joined + WordText.of(unescape_double_quoted(gap), "q")
        if joined.dynamic:
            return WordText.of(node_text(node), "d", joined.inner)
        return joined

    def _expansion(self, node: Node, scope: Scope, quoted: bool) -> WordText:
        text = node_text(node)
        if re.search(r"@P\}$", text):
            self.parts.append(Part(text, (), cwd=scope.cwd, origin=scope.origin or text,
                                   pipe=scope.pipe, asks=scope.asks + (
                                       f"expands {text} as a prompt string, which runs the "
                                       "commands written in the variable",)))
        name = text.strip("${}")
        value = None
        if name == "HOME":
            value = self._home
        elif name == "PWD" and scope.cwd is not None:
            value = str(scope.cwd)
        else:
            value = next((v for var, v in scope.bindings if var == name), None)
        if value is not None:
            if name in self._loop_lists:
                return WordText.of(value, "b")
            return WordText.of(value, "q" if quoted else "v")
        before = len(self.parts)
        self._values(node, scope)
        return WordText.of(text, "d", tuple(self.parts[before:]))

    def _substitution(self, node: Node, scope: Scope) -> tuple[Part, ...]:
        """``$( )``, backticks, ``<( )``: their commands run in a subshell of their own."""
        before = len(self.parts)
        inner = replace(scope, redirects=(), pipe=None)
        for child in node.named_children:
            if child.type != "comment":
                inner = self._walk(child, inner)
        return tuple(self.parts[before:])

    def _values(self, node: Node, scope: Scope) -> None:
        """Walk the substitutions inside a value (an assignment, ``${x:-$(cmd)}``)."""
        for child in node.named_children:
            if child.type in ("command_substitution", "process_substitution"):
                self._substitution(child, scope)
            else:
                self._values(child, scope)
