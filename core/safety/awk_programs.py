"""Whether an awk command can write, run or load anything: its options and its program.

An awk program that only reads its input and prints to standard output is as harmless as
``cut``. It stops being so with ``system()``, a pipe (``print | "cmd"``, ``"cmd" | getline``),
an output redirection inside ``print``/``printf`` (``print > "f"``: in awk a ``>`` in an
unparenthesised print is always a redirection), ``getline`` (reads any file or command),
changes to ``ARGV``/``ARGC``/``ENVIRON`` (other files read), or gawk's ``@include``,
``@load`` and ``@name()`` indirect calls (which reach ``system`` too). Strings, regular
expression literals and comments are read as awk reads them, so words inside them do not
count, and words outside them are never hidden.

Options are the union of gawk's, mawk's and POSIX awk's, since ``awk`` is any of them: an
option that writes, runs or loads code in one of them counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r]+|\\\n)
  | (?P<newline>\n)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<op>\|\||\|&|&&|>>|\+\+|--|[-+*/%^!=<>]=|\*\*=?|[^\s\w])
""", re.VERBOSE)
_OPERAND_END = frozenset({")", "]", "$", "++", "--"})
"""Tokens after which ``/`` divides (with names and numbers); elsewhere it starts a regex."""
_KEYWORDS = frozenset({"print", "printf", "return", "in", "getline", "if", "while", "for",
                       "do", "else", "case", "delete", "exit"})
_CONTINUES = frozenset({",", "{", "&&", "||", "do", "else"})
"""Tokens after which a newline does not end the statement."""
_ASSIGN = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "^=", "**=", "++", "--"})
_ARRAY_WRITERS = frozenset({"sub", "gsub", "split", "patsplit", "match", "asort", "asorti"})
"""Built-ins that change a variable or array they are given."""
_PROTECTED = frozenset({"ARGV", "ARGC", "ENVIRON"})
_CONSOLE = frozenset({'"/dev/stdout"', '"/dev/stderr"'})


def _tokens(program: str, brackets: bool) -> list[tuple[str, str]]:
    """``(kind, text)`` tokens, strings and regexes whole; comments and blanks dropped.

    ``brackets``: whether a ``/`` inside ``[...]`` of a regex belongs to it (gawk) or ends
    it; both readings are judged, so neither can hide code.
    """
    tokens: list[tuple[str, str]] = []
    index, size = 0, len(program)
    while index < size:
        previous = tokens[-1] if tokens else ("", "")
        if program[index] == "/" and not (
                previous[0] in ("name", "number", "string", "regex")
                and previous[1] not in _KEYWORDS or previous[1] in _OPERAND_END):
            end = _regex_end(program, index + 1, brackets)
            tokens.append(("regex", program[index:end]))
            index = end
            continue
        match = _TOKEN.match(program, index)
        if match is None:  # pragma: no cover - the last alternative matches any character
            break
        kind = match.lastgroup or "op"
        if kind not in ("space", "comment"):
            tokens.append((kind, match.group()))
        index = match.end()
    return tokens


def _regex_end(program: str, index: int, brackets: bool) -> int:
    size = len(program)
    while index < size and program[index] != "\n":
        char = program[index]
        if char == "\\":
            index += 2
            continue
        if char == "[" and brackets:
            close = index + 1
            close += 1 if program[close:close + 1] == "^" else 0
            close += 1 if program[close:close + 1] == "]" else 0
            while close < size and program[close] not in "]\n":
                close += 2 if program[close] == "\\" else 1
            index = close + 1
            continue
        if char == "/":
            return index + 1
        index += 1
    return index


def awk_program_problem(program: str) -> str | None:
    """Why an awk program is not read-only, or None when it only reads its input and
    prints to standard output.

    Args:
        program: The program text, as awk receives it.
    """
    for brackets in (True, False):
        if why := _problem(_tokens(program, brackets)):
            return why
    return None


def _problem(tokens: list[tuple[str, str]]) -> str | None:  # noqa: C901 - one pass, one table
    depth = 0
    printing: int | None = None  # paren depth of the print statement being read
    calls: list[str] = []  # the function name of each open parenthesis ("" for grouping)
    for at, (kind, text) in enumerate(tokens):
        before = tokens[at - 1][1] if at else ""
        if kind == "name":
            if text == "system":
                return "the awk program runs a command with system()"
            if text == "getline":
                return "the awk program reads files or commands with getline"
            if text in ("print", "printf"):
                printing = depth
            if text in _PROTECTED and _changes(tokens, at):
                return f"the awk program changes {text}, which decides what awk reads"
            if text in _PROTECTED and any(c in _ARRAY_WRITERS for c in calls):
                return f"the awk program passes {text} to a function that changes it"
        elif kind == "op":
            if text in ("|", "|&"):
                return "the awk program pipes to or from a command"
            if text == "@":
                return "the awk program uses gawk's @ (include, load or an indirect call)"
            if text in (">", ">>") and printing is not None and depth == printing:
                target = tokens[at + 1:at + 3]
                if not (target and target[0][1] in _CONSOLE
                        and (len(target) == 1 or target[1][1] in (";", "}", "\n"))):
                    return "the awk program writes a file (print > file)"
            if text == "(":
                calls.append(before if tokens[at - 1][0] == "name" and at else "")
                depth += 1
            elif text == ")":
                calls.pop() if calls else None
                depth -= 1
            elif text in (";", "}", "{") and printing is not None and depth <= printing:
                printing = None
        elif kind == "newline" and before not in _CONTINUES and printing is not None:
            printing = None
    return None


def _changes(tokens: list[tuple[str, str]], at: int) -> bool:
    """Whether the protected variable at ``tokens[at]`` is written, deleted or passed whole."""
    before = tokens[at - 1][1] if at else ""
    if before in ("delete", "++", "--"):
        return True
    index = at + 1
    if index < len(tokens) and tokens[index][1] == "[":
        level = 0
        while index < len(tokens):
            level += {"[": 1, "]": -1}.get(tokens[index][1], 0)
            index += 1
            if level == 0:
                break
        return index < len(tokens) and tokens[index][1] in _ASSIGN
    following = tokens[index][1] if index < len(tokens) else ""
    if following in _ASSIGN:
        return True
    return tokens[at][1] != "ARGC" and before != "in"


# -- options --------------------------------------------------------------------------------

_SHORT = "bcCgGhIkMnNOPrsStV"
"""Short options that take no value (gawk's; mawk's are a subset)."""
_SHORT_TAKES = "FvfEilWe"
_SHORT_OPTIONAL = "dDLop"
_LONG = frozenset({
    "characters-as-bytes", "traditional", "copyright", "gen-pot", "help", "trace", "bignum",
    "use-lc-numeric", "non-decimal-data", "optimize", "posix", "re-interval", "no-optimize",
    "sandbox", "lint-old", "version", "csv", "usage", "dump", "interactive", "posix_space"})
_LONG_TAKES = frozenset({"field-separator", "assign", "file", "source", "exec", "include",
                         "load", "random", "sprintf"})
_LONG_OPTIONAL = frozenset({"dump-variables", "debug", "pretty-print", "profile", "lint"})
_FROM_FILE = "runs an awk program from a file, which agent-tui does not read"
_PROBLEMS = {
    "f": _FROM_FILE, "file": _FROM_FILE, "E": _FROM_FILE, "exec": _FROM_FILE,
    "i": "loads awk code from a file", "include": "loads awk code from a file",
    "l": "loads a shared library (native code)", "load": "loads a shared library (native code)",
    "d": "writes its variables to a file", "dump-variables": "writes its variables to a file",
    "o": "writes the program to a file", "pretty-print": "writes the program to a file",
    "p": "writes a profile to a file", "profile": "writes a profile to a file",
    "D": "starts the debugger, which runs the commands it reads",
    "debug": "starts the debugger, which runs the commands it reads",
}


@dataclass(frozen=True, slots=True)
class AwkCommand:
    """An awk command line read as awk reads it.

    Attributes:
        problem: Why an option makes it more than a reader (None when none does).
        program: Index in argv of the program operand; None when the program comes from
            ``-e``/``--source`` or ``-f`` or is missing.
        sources: Program texts given with ``-e``/``--source``.
        files: Index in argv of the first operand after the program (input files and
            ``var=value`` assignments).
    """

    problem: str | None
    program: int | None
    sources: tuple[str, ...]
    files: int


def read_awk_command(argv: tuple[str, ...]) -> AwkCommand:
    """Read ``awk``'s options: POSIX ones, gawk's (long ones abbreviated too) and mawk's
    ``-W``; options end at the first operand, which is the program unless ``-e`` or ``-f``
    gave one."""
    sources: list[str] = []
    index = 1
    while index < len(argv):
        text = argv[index]
        if text == "--":
            index += 1
            break
        if not text.startswith("-") or text == "-":
            break
        index += 1
        options: list[tuple[str, str | None]] = []
        if text.startswith("--"):
            written, eq, value = text[2:].partition("=")
            name = _resolve(written)
            if name is None:
                return AwkCommand(f"awk has an option agent-tui does not know: --{written}",
                                  None, (), index)
            if not eq and name in _LONG_TAKES and index < len(argv):
                value, index = argv[index], index + 1
            options.append((name, value if eq or name in _LONG_TAKES else None))
        else:
            for pos, letter in enumerate(text[1:], start=1):
                rest = text[pos + 1:]
                if letter in _SHORT_TAKES:
                    if not rest and index < len(argv):
                        rest, index = argv[index], index + 1
                    options.append((letter, rest))
                    break
                if letter in _SHORT_OPTIONAL:
                    options.append((letter, rest))
                    break
                if letter not in _SHORT:
                    return AwkCommand(f"awk has an option agent-tui does not know: -{letter}",
                                      None, (), index)
                options.append((letter, None))
        for name, argument in options:
            if name == "W" and argument is not None:  # mawk's -W NAME, gawk's -W long-option
                for item in argument.split(","):
                    resolved = _resolve(item.partition("=")[0])
                    if resolved is None or resolved in _PROBLEMS:
                        return AwkCommand(f"awk -W {item} "
                                          f"{_PROBLEMS.get(resolved or '', 'is not known')}",
                                          None, (), index)
                continue
            if name in _PROBLEMS:
                return AwkCommand(f"awk {'-' if len(name) == 1 else '--'}{name} "
                                  f"{_PROBLEMS[name]}", None, (), index)
            if name in ("e", "source") and argument is not None:
                sources.append(argument)
    if sources or index >= len(argv):
        return AwkCommand(None, None, tuple(sources), index)
    return AwkCommand(None, index, (), index + 1)


def _resolve(name: str) -> str | None:
    """A long option (or mawk ``-W`` word) from a unique prefix, as getopt_long and mawk
    resolve it; ambiguous prefixes resolve to a problem option when one matches."""
    names = _LONG | _LONG_TAKES | _LONG_OPTIONAL
    matches = sorted(n for n in names if n.startswith(name)) if name else []
    risky = [n for n in matches if n in _PROBLEMS]
    if risky:  # mawk's `-W dump` is gawk's --dump-variables: the riskier reading counts
        return risky[0]
    if name in names:
        return name
    return matches[0] if len(matches) == 1 else None


def awk_options_problem(argv: tuple[str, ...]) -> str | None:
    """Why awk's options make ``argv`` more than a reader, or None; ``-e`` program texts
    are judged here too (see :func:`awk_program_problem`)."""
    command = read_awk_command(argv)
    if command.problem:
        return command.problem
    return next(filter(None, map(awk_program_problem, command.sources)), None)


def awk_program_index(argv: tuple[str, ...]) -> int | None:
    """Index in ``argv`` of the program operand, or None when ``-e``/``-f`` gives the
    program or there is none."""
    return read_awk_command(argv).program
