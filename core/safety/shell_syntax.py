"""Reading tree-sitter-bash nodes: the text of words, quoting, and the operands of shells.

Small pieces the shell analysis builds on: what a node's text is, how an unquoted word, a
double-quoted string's escapes and a ``$'…'`` string read, which names an assignment sets,
and where ``bash -c``'s string or a script is among a shell's arguments.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .shell_builtins import holds_code
from .shell_parts import Part
from .shell_words import WordText
from .workspace import real_path

if TYPE_CHECKING:
    from tree_sitter import Node


def shell_operands(argv: tuple[str, ...]) -> tuple[int | None, int | None]:
    """For ``bash [options] …``: the index of ``-c``'s string, or of the script file."""
    index, has_c = 1, False
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            index += 1
            break
        if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 2
            continue
        if arg.startswith("--"):
            index += 1
            continue
        if len(arg) > 1 and arg[0] in "-+":
            has_c = has_c or "c" in arg[1:]
            if "s" in arg[1:]:
                return (index + 1 if has_c else None), None
            index += 1
            continue
        break
    if has_c:
        return index, None
    if index < len(argv) and argv[index] != "-":
        return None, index
    return None, None


def reads_stdin_code(part: Part) -> bool:
    """An interpreter (python, node…) given no script, no module and no inline code."""
    for arg in part.argv[1:]:
        if arg == "-":
            return True
        if arg in ("-m", "--module", "-V", "--version", "-h", "--help", "-v") or (
                not arg.startswith("-")):
            return False
    return True


def cd_target(cwd: Path | None, part: Part) -> Path | None:
    command = part.command
    if part.name == "popd":
        return None
    operands = [w for w in command[1:] if not (w.text.startswith("-") and len(w.text) > 1)]
    if not operands:
        return Path(os.path.realpath(os.path.expanduser("~")))
    target = operands[0]
    if target.dynamic or target.text == "-":
        return None
    return real_path(target.text, cwd)


def stored_code(node: Node) -> tuple[str, ...]:
    """Why the literal text in ``node`` is code bash may run later, as a 1-tuple (or ())."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in ("raw_string", "string_content", "ansi_c_string", "word"):
            text = node_text(current)
            literal = unquoted_word(text).chars if kind == "word" else text
            if holds_code(literal):
                return ("stores text with $(…) or backticks, which bash runs if the text is "
                        "later expanded as a prompt, in arithmetic or as a subscript",)
        stack.extend(current.named_children)
    return ()


def assigned_names(node: Node) -> tuple[str, ...]:
    if node.type == "variable_assignments":
        return tuple(n for c in node.named_children for n in assigned_names(c))
    name = node.child_by_field_name("name")
    if name is None:
        return ()
    return (node_text(name).split("[", 1)[0],)


_CHANGES_ANY_NAME = frozenset({"eval", "source", ".", "alias"})


def bindable_names(root: Node) -> frozenset[str]:
    """Variables whose value a script's plain ``x=literal`` statement fixes for the lines
    after it: assigned exactly once, and never named anywhere else (``read x``,
    ``printf -v x``, ``(( x++ ))``, a loop variable, a nameref), in a script with no
    ``eval`` or ``source``, which could assign anything."""
    counts: dict[str, int] = {}
    named: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "variable_assignment":
            for name in assigned_names(node):
                counts[name] = counts.get(name, 0) + 1
        elif kind == "command_name" and node_text(node) in _CHANGES_ANY_NAME:
            return frozenset()
        elif kind == "word" and node.parent is not None and node.parent.type != "command_name":
            named.add(node_text(node))
        elif kind == "variable_name" and node.parent is not None and node.parent.type not in (
                "simple_expansion", "expansion", "variable_assignment"):
            named.add(node_text(node))
        elif kind == "for_statement":
            named.add(node_text(node.child_by_field_name("variable")))
        elif kind == "declaration_command" and any(
                c.type == "word" and node_text(c).startswith("-") and "n" in node_text(c)
                for c in node.children):
            return frozenset()
        stack.extend(node.children)
    return frozenset(n for n, count in counts.items() if count == 1 and n not in named)


def node_text(node: Node | None) -> str:
    if node is None:
        return ""
    return node.text.decode("utf-8", "surrogateescape") if node.text is not None else ""


def unquoted_word(text: str) -> WordText:
    """An unquoted word: ``\\x`` is a quoted ``x``; a backslash-newline disappears."""
    text = text.replace("\\\n", "")
    if "\\" not in text:
        return WordText.of(text, "u")
    chars: list[str] = []
    kinds: list[str] = []
    index = 0
    while index < len(text):
        if text[index] == "\\" and index + 1 < len(text):
            chars.append(text[index + 1])
            kinds.append("q")
            index += 2
            continue
        chars.append(text[index])
        kinds.append("u")
        index += 1
    return WordText("".join(chars), "".join(kinds))


def unescape_double_quoted(text: str) -> str:
    """Inside double quotes only ``\\$``, ``\\```, ``\\"``, ``\\\\`` and newline escape."""
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def ansi_c_word(text: str) -> WordText:
    """``$'\\x72m'`` is ``rm``: decode it, so escapes cannot hide a command's name."""
    body = text[2:-1]
    try:
        decoded = body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return WordText.of(text, "d")
    return WordText.of(decoded.replace("\\'", "'"), "q")


def error_near(root: Node) -> str:
    """Where the first parse error is, e.g. ``near "then fi" on line 2``."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            line = node.start_point[0] + 1
            snippet = node_text(node).strip().splitlines()[0][:40] if node_text(node).strip() else ""
            if node.is_missing:
                return f"something is missing on line {line}"
            return f"near `{snippet}` on line {line}"
        stack.extend(reversed(node.children))
    return "somewhere"
