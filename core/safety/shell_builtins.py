"""Builtins that change the shell itself: the variables they set and the text they evaluate.

``read PATH``, ``printf -v PATH …``, ``mapfile``, ``getopts`` and ``let`` set variables
without an ``X=…`` assignment, so a later "read-only" ``ls`` may be another program;
``hash -p FILE ls`` makes ``ls`` run FILE outright. And bash evaluates some text as code
although it is quoted: an array subscript in a name (``'a[$(rm -rf ~)]'``) given to ``test
-v``, ``[[ ]]``, ``printf -v``, ``read``, ``declare``, ``unset`` or arithmetic runs the
``$(…)`` inside; so does a variable holding such text once it is expanded as a prompt
(``${x@P}``) or in arithmetic. The analysis uses these to add the names a command sets to
its part (where the risky ones ask) and to ask where text would run as code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

EVALUATING = frozenset({
    "test", "[", "printf", "read", "declare", "typeset", "local", "export", "readonly",
    "unset", "let", "mapfile", "readarray", "getopts", "wait", "[[", "((",
})
"""Builtins that read a name or an arithmetic expression, so a subscript in it is run."""

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*")
_ARITH_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*"
                           r"(?:[-+*/%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*([A-Za-z_]\w*)|"
                           r"([A-Za-z_]\w*)\s*(?:\+\+|--)")


def holds_code(text: str) -> bool:
    """Whether literal text holds a command substitution bash would run if it evaluated
    the text (``$(…)`` or backticks)."""
    return "$(" in text or "`" in text


def code_in_text_reason(name: str, argv: Sequence[str]) -> str | None:
    """Why ``name``'s literal arguments would run code (a subscript with ``$(…)``), or None."""
    if name not in EVALUATING:
        return None
    if any(holds_code(arg) for arg in argv[1:]):
        return (f"passes text with $(…) or backticks to {name}, which bash evaluates as code "
                "(an array subscript)")
    return None


def names_set(argv: Sequence[str]) -> tuple[str, ...]:
    """The variables a builtin sets by name (``read PATH`` -> ``PATH``)."""
    name = argv[0] if argv else ""
    args = list(argv[1:])
    if name == "read":
        return _read_names(args)
    if name == "printf":
        return _option_values(args, "v")
    if name in ("mapfile", "readarray"):
        operands = _operands(args, "dnOsuCc")
        return tuple(operands[:1]) or ("MAPFILE",)
    if name == "getopts":
        return (*_operands(args, "")[1:2], "OPTARG", "OPTIND")
    if name == "wait":
        return _option_values(args, "p")
    if name in ("let", "(("):
        found: list[str] = []
        for arg in args:
            for match in _ARITH_ASSIGN.finditer(arg):
                found.extend(g for g in match.groups() if g)
        return tuple(found)
    return ()


def shell_change_reason(argv: Sequence[str]) -> str | None:
    """Why a builtin changes which program a later command runs, or None."""
    name = argv[0] if argv else ""
    args = argv[1:]
    if name == "hash" and any(a.startswith("-") and "p" in a[1:] for a in args):
        return "hash -p makes a command name run another program"
    if name == "enable" and args:
        return "enable loads or switches off shell builtins, changing what later commands run"
    if name in ("mapfile", "readarray") and any(
            a.startswith("-") and "C" in a[1:] for a in args):
        return f"{name} -C runs a callback command"
    return None


def nameref_targets(argv: Sequence[str]) -> tuple[str, ...] | None:
    """For ``declare -n ref=TARGET``: the targets (None when it is not a nameref)."""
    flags = "".join(a[1:] for a in argv[1:] if a.startswith("-"))
    if "n" not in flags:
        return None
    return tuple(a.split("=", 1)[1] for a in argv[1:] if "=" in a and _NAME.match(a))


def _read_names(args: list[str]) -> tuple[str, ...]:
    arrays = _option_values(args, "a")
    operands = _operands(args, "adinNptu")
    return (*arrays, *operands) if (arrays or operands) else ("REPLY",)


def _option_values(args: list[str], letters: str) -> tuple[str, ...]:
    """The values of short options ``-X VALUE`` / ``-XVALUE`` for X in ``letters``."""
    found: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--" or not arg.startswith("-") or arg == "-":
            break
        for pos, letter in enumerate(arg[1:], start=1):
            if letter in letters:
                rest = arg[pos + 1:]
                if rest:
                    found.append(rest)
                elif index < len(args):
                    found.append(args[index])
                    index += 1
                break
    return tuple(found)


def _operands(args: list[str], takes: str) -> list[str]:
    """The operands after a builtin's options (``takes``: short options with a value)."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            index += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        index += 1
        for pos, letter in enumerate(arg[1:], start=1):
            if letter in takes:
                if pos + 1 == len(arg):
                    index += 1
                break
    return args[index:]
