"""Wrapper commands the shell analysis looks through, and interpreters running inline code.

``timeout 5 rm -rf x`` runs ``rm -rf x``; ``sudo -u bob make`` runs ``make`` as bob (and
must be approved); ``xargs grep x`` runs ``grep x`` with arguments read at run time.
``look_through`` finds where the real command starts in a command's words and what the
wrappers add on the way: variables set, a folder changed to, files read or written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .shell_options import OptionTable, ParsedOptions, parse_options

if TYPE_CHECKING:
    from .shell_parts import Word

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash"})
"""Shells whose ``-c`` strings and scripts are bash enough to analyse."""

INTERPRETER = re.compile(
    r"^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*"
    r"|lua[0-9.]*|luajit|Rscript|julia|osascript|pwsh|powershell|fish|awk|gawk|mawk|nawk)$")
"""Programs that run code given on their command line or their input."""

AWK = re.compile(r"^[gmn]?awk$")
"""The awks, whose programs ``awk_programs`` reads."""
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class Look:
    """What ``look_through`` found.

    Attributes:
        start: Index of the command inside the wrappers (0: no wrapper).
        wrappers: The wrappers passed, outermost first.
        asks: Reasons the command must be approved (``sudo``, ``env -S``).
        assignments: Variables the wrappers set (``env X=1``).
        chdir: A folder a wrapper changes to (``env -C DIR``, ``sudo -D DIR``).
        reads: Files a wrapper reads (``xargs -a FILE``).
        writes: Files a wrapper writes (``time -o FILE``).
        from_input: Arguments arrive at run time (``xargs``).
        watch_code: The command line ``watch`` runs with ``sh -c``.
        watch_dynamic: Whether that line is only known at run time.
        maybe_at: When a wrapper's options cannot be read, the first word that may be the
            command it runs (the words from there on are each judged as the command).
        separator: How ``xargs`` splits its input into arguments: ``"nul"`` (``-0``),
            ``"newline"`` (``-d '\\n'``), ``"blank"`` (blanks and newlines, quotes and
            backslashes read; also ``-I`` and ``-L``), ``"other"`` (another delimiter).
        replace: The string ``xargs -I`` replaces with each input line (None without ``-I``).
    """

    start: int = 0
    wrappers: tuple[str, ...] = ()
    asks: tuple[str, ...] = ()
    assignments: tuple[str, ...] = ()
    chdir: str | None = None
    reads: tuple[Word, ...] = ()
    writes: tuple[Word, ...] = ()
    from_input: bool = False
    watch_code: str | None = None
    watch_dynamic: bool = False
    maybe_at: int | None = None
    separator: str = ""
    replace: str | None = None


_Step = tuple["int | None", Look]
"""One wrapper: where its command starts (None: it runs nothing) and what it adds."""


def _step(next_at: int | None, **adds: object) -> _Step:
    """Where the command starts after one wrapper, and what the wrapper adds (a partial
    :class:`Look`)."""
    return next_at, Look(**adds)  # type: ignore[arg-type]


def _table(short: str = "", short_takes: str = "", long: str = "", long_takes: str = "",
           long_optional: str = "", short_optional: str = "") -> OptionTable:
    """A wrapper's complete options; the first word that is not an option is the command."""
    return OptionTable(short, short_takes, frozenset(long.split()), frozenset(long_takes.split()),
                       frozenset(long_optional.split()), complete=True, permute=False,
                       short_optional=short_optional)


TABLES: dict[str, OptionTable] = {
    "timeout": _table("fpv", "ks", "foreground preserve-status verbose help version",
                      "kill-after signal"),
    "env": _table("i0v", "uCS", "ignore-environment null debug list-signal-handling help "
                  "version", "unset chdir split-string",
                  "block-signal default-signal ignore-signal"),
    "nice": _table("", "n", "help version", "adjustment"),
    "nohup": _table("", "", "help version"),
    "time": _table("apqvV", "fo", "append portability quiet verbose help version",
                   "format output"),
    "command": _table("pvV"),
    "builtin": _table(),
    "exec": _table("cl", "a"),
    "stdbuf": _table("", "ioe", "help version", "input output error"),
    "ionice": _table("thV", "cnpPu", "ignore help version", "class classdata pid pgid uid"),
    "setsid": _table("cfwhV", "", "ctty fork wait help version"),
    "xargs": _table("0oprtx", "adEILnPs", "null open-tty interactive no-run-if-empty verbose "
                    "exit show-limits help version",
                    "arg-file delimiter max-lines max-args max-procs max-chars "
                    "process-slot-var", "eof replace", short_optional="eil"),
    "sudo": _table("ABbEeHiKklNnPSsVv", "CDghprRTtUu",
                   "askpass bell background edit set-home login remove-timestamp "
                   "reset-timestamp list no-update non-interactive preserve-groups stdin shell "
                   "version validate help",
                   "close-from chdir group host prompt chroot role command-timeout type "
                   "other-user user", "preserve-env"),
    "doas": _table("Lns", "uCa"),
    "watch": _table("bcegptwxhv", "nq", "beep color errexit chgexit precise no-title no-wrap "
                    "exec help version", "interval equexit", "differences"),
}
"""The wrappers' options, as their --help lists them (GNU coreutils, findutils, util-linux,
procps, sudo)."""


def _unknown(name: str, parsed: ParsedOptions) -> _Step | None:
    """A wrapper given an option it does not have: which word is the command is unknowable,
    so each of the next words is judged as if it were (a refused one refuses)."""
    if parsed.unknown:
        return _step(None, asks=(f"{name} has an option agent-tui does not know "
                                 f"({parsed.unknown[0]}), so the command it runs cannot be "
                                 "told",), maybe_at=parsed.end)
    if parsed.dynamic:
        return _step(None, asks=(f"{name}'s options are only known at run time, so the "
                                 "command it runs cannot be told",), maybe_at=parsed.end)
    return None


def _parse(words: Sequence[Word], at: int) -> ParsedOptions:
    return parse_options(words, at, TABLES[os.path.basename(words[at].text)])


def _timeout(words: Sequence[Word], at: int) -> _Step:
    parsed = _parse(words, at)
    return _unknown("timeout", parsed) or _step(parsed.end + 1)  # the duration, then the command


def _env(words: Sequence[Word], at: int) -> _Step:
    parsed = _parse(words, at)
    if step := _unknown("env", parsed):
        return step
    index = parsed.end
    names: list[str] = []
    while index < len(words) and (words[index].text == "-"
                                  or _ASSIGNMENT.match(words[index].text)):
        if words[index].text != "-":
            names.append(words[index].text.split("=", 1)[0])
        index += 1
    chdir = parsed.value("-C", "--chdir")
    if parsed.has("-S", "--split-string"):
        return _step(None, asks=("runs a command line built from a string (env -S)",),
                     assignments=tuple(names))
    return _step(index, assignments=tuple(names), chdir=chdir.text if chdir else None)


def _simple_wrapper(words: Sequence[Word], at: int) -> _Step:
    name = os.path.basename(words[at].text)
    if name == "nice" and at + 1 < len(words) and re.fullmatch(r"-\d+", words[at + 1].text):
        return _step(at + 2)  # the old spelling of an adjustment, `nice -10 make`
    parsed = _parse(words, at)
    return _unknown(name, parsed) or _step(parsed.end)


def _time(words: Sequence[Word], at: int) -> _Step:
    parsed = _parse(words, at)
    output = parsed.value("-o", "--output")
    return _unknown("time", parsed) or _step(parsed.end, writes=(output,) if output else ())


def _command(words: Sequence[Word], at: int) -> _Step:
    parsed = _parse(words, at)
    if parsed.has("-v", "-V"):
        return _step(None)  # `command -v x` only looks x up
    return _unknown("command", parsed) or _step(parsed.end)


def _ionice(words: Sequence[Word], at: int) -> _Step:
    parsed = _parse(words, at)
    if parsed.has("-p", "-P", "-u", "--pid", "--pgid", "--uid"):
        return _step(None)  # changes another process; runs nothing
    return _unknown("ionice", parsed) or _step(parsed.end)


def _xargs(words: Sequence[Word], at: int) -> _Step:
    parsed = _parse(words, at)
    arg_file = parsed.value("-a", "--arg-file")
    reads = (arg_file,) if arg_file else ()
    # The command gets the slot number in this variable: `--process-slot-var=PATH` makes
    # it look programs up in a folder named 0.
    slot = parsed.value("--process-slot-var")
    if step := _unknown("xargs", parsed):
        return step
    if parsed.end >= len(words):
        return _step(None, reads=reads)  # runs echo
    replace = parsed.value("-I", "-i", "--replace")
    if replace is None and parsed.has("-i", "--replace"):
        replace_text: str | None = "{}"
    else:
        replace_text = None if replace is None or replace.dynamic else replace.text
    return _step(parsed.end, reads=reads, from_input=True,
                 assignments=(slot.text,) if slot is not None else (),
                 separator=_xargs_separator(parsed), replace=replace_text)


_DELIMITERS = {"\\0": "nul", "\\x00": "nul", "\\000": "nul", "\\n": "newline",
               "\\x0a": "newline", "\\012": "newline", "\n": "newline"}
"""``xargs -d`` values that split at NUL bytes or newlines, as xargs reads its escapes."""


def _xargs_separator(parsed: ParsedOptions) -> str:
    """How xargs splits its input (see :attr:`Look.separator`)."""
    delimiter = parsed.value("-d", "--delimiter")
    if parsed.has("-0", "--null"):
        return "other" if delimiter is not None else "nul"  # the last one given wins
    if delimiter is not None:
        return "other" if delimiter.dynamic else _DELIMITERS.get(delimiter.text.lower(), "other")
    return "blank"


def _sudo(words: Sequence[Word], at: int) -> _Step:
    parsed = _parse(words, at)
    who = os.path.basename(words[at].text)
    if step := _unknown(who, parsed):
        return _step(None, asks=(f"runs as another user ({who})", *step[1].asks),
                     maybe_at=step[1].maybe_at)
    index = parsed.end
    names: list[str] = []
    while index < len(words) and _ASSIGNMENT.match(words[index].text):
        names.append(words[index].text.split("=", 1)[0])
        index += 1
    chdir = parsed.value("-D", "--chdir")
    return _step(index, asks=(f"runs as another user ({who})",), assignments=tuple(names),
                 chdir=chdir.text if chdir else None)


def _watch(words: Sequence[Word], at: int) -> _Step:
    parsed = _parse(words, at)
    if step := _unknown("watch", parsed):
        return step
    if parsed.has("-x", "--exec"):
        return _step(parsed.end)
    rest = words[parsed.end:]
    if not rest:
        return _step(None)
    return _step(None, watch_code=" ".join(w.text for w in rest),
                 watch_dynamic=any(w.dynamic for w in rest))


WRAPPERS: dict[str, Callable[[Sequence[Word], int], _Step]] = {
    "timeout": _timeout,
    "env": _env,
    "nice": _simple_wrapper,
    "nohup": _simple_wrapper,
    "time": _time,
    "command": _command,
    "builtin": _simple_wrapper,
    "exec": _simple_wrapper,
    "stdbuf": _simple_wrapper,
    "ionice": _ionice,
    "setsid": _simple_wrapper,
    "xargs": _xargs,
    "sudo": _sudo,
    "doas": _sudo,
    "watch": _watch,
}
"""Commands that run another command, and how to find it in their arguments."""


def look_through(words: Sequence[Word]) -> Look:
    """Find the command inside ``words``' wrappers (``timeout 5 env X=1 rm x`` -> ``rm x``)."""
    look = Look()
    while look.start < len(words) and not words[look.start].dynamic:
        name = os.path.basename(words[look.start].text)
        wrapper = WRAPPERS.get(name)
        if wrapper is None:
            break
        next_at, adds = wrapper(words, look.start)
        look = replace(
            look, asks=look.asks + adds.asks, assignments=look.assignments + adds.assignments,
            reads=look.reads + adds.reads, writes=look.writes + adds.writes,
            chdir=adds.chdir or look.chdir, from_input=look.from_input or adds.from_input,
            watch_code=adds.watch_code, watch_dynamic=adds.watch_dynamic,
            maybe_at=adds.maybe_at, separator=adds.separator, replace=adds.replace)
        if next_at is None or next_at >= len(words):
            break
        look = replace(look, start=next_at, wrappers=(*look.wrappers, name))
    return look


_INLINE_FLAGS: tuple[tuple[re.Pattern[str], frozenset[str], str], ...] = (
    (re.compile(r"^(python|pypy)"), frozenset({"c"}), ""),
    (re.compile(r"^(node|nodejs|bun)$"), frozenset(), "-e --eval -p --print"),
    (re.compile(r"^perl"), frozenset({"e", "E"}), ""),
    (re.compile(r"^ruby"), frozenset({"e"}), ""),
    (re.compile(r"^php"), frozenset({"r"}), ""),
    (re.compile(r"^(lua|luajit|julia|osascript|Rscript)"), frozenset({"e"}), "--eval"),
    (re.compile(r"^(pwsh|powershell)$"), frozenset(), "-c -Command -command"),
    (re.compile(r"^fish$"), frozenset({"c"}), "--command"),
)


def inline_code(argv: Sequence[str]) -> str | None:
    """Why ``argv`` runs code written on its command line (``python3 -c …``), or None."""
    name = os.path.basename(argv[0])
    if AWK.match(name):
        return None  # an awk program is read by the policy: one that only prints is a reader
    if name == "deno":
        return "runs inline code (deno eval)" if len(argv) > 1 and argv[1] == "eval" else None
    for pattern, letters, long_flags in _INLINE_FLAGS:
        if not pattern.match(name):
            continue
        flags = long_flags.split()
        for arg in argv[1:]:
            if arg.split("=", 1)[0] in flags:
                return f"runs inline code ({name} {arg.split('=', 1)[0]})"
            if arg == "--" or not arg.startswith("-") or arg in ("-m", "-"):
                return None
            if not arg.startswith("--") and letters & set(arg[1:]):
                return f"runs inline code ({name} {arg})"
        return None
    return None
