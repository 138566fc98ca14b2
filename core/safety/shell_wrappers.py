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
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shell_parts import Word

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash"})
"""Shells whose ``-c`` strings and scripts are bash enough to analyse."""

INTERPRETER = re.compile(
    r"^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*"
    r"|lua[0-9.]*|luajit|Rscript|julia|osascript|pwsh|powershell|fish|awk|gawk|mawk|nawk)$")
"""Programs that run code given on their command line or their input."""

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


@dataclass(frozen=True, slots=True)
class _Step:
    """One wrapper: where its command starts (None: it runs nothing) and what it adds."""

    next: int | None
    asks: tuple[str, ...] = ()
    assignments: tuple[str, ...] = ()
    chdir: str | None = None
    reads: tuple[Word, ...] = ()
    writes: tuple[Word, ...] = ()
    from_input: bool = False
    watch_code: str | None = None
    watch_dynamic: bool = False


Options = dict[str, "Word | None"]


def options(words: Sequence[Word], at: int, takes: str = "",
            long_takes: frozenset[str] = frozenset()) -> tuple[int, Options]:
    """Skip the options after the program at ``words[at]``.

    Args:
        words: The command's words.
        at: Index of the program.
        takes: Short options that take a value (``-n 5`` or ``-n5``).
        long_takes: Long options that take a value (``--signal KILL`` or ``--signal=KILL``).

    Returns:
        The index of the first operand, and the options met (``"-n"``, ``"--signal"``)
        with their values.
    """
    from .shell_parts import Word

    found: Options = {}
    index = at + 1
    while index < len(words):
        word = words[index]
        text = word.text
        if word.dynamic or text == "-" or not text.startswith("-"):
            break
        index += 1
        if text == "--":
            break
        if text.startswith("--"):
            name, eq, value = text[2:].partition("=")
            if eq:
                found["--" + name] = Word(value, word.dynamic)
            elif name in long_takes and index < len(words):
                found["--" + name] = words[index]
                index += 1
            else:
                found["--" + name] = None
            continue
        for pos, letter in enumerate(text[1:], start=1):
            if letter in takes:
                rest = text[pos + 1:]
                if rest:
                    found["-" + letter] = Word(rest)
                elif index < len(words):
                    found["-" + letter] = words[index]
                    index += 1
                else:
                    found["-" + letter] = None
                break
            found["-" + letter] = None
    return index, found


def _value(found: Options, *names: str) -> Word | None:
    return next((found[n] for n in names if found.get(n) is not None), None)


def _timeout(words: Sequence[Word], at: int) -> _Step:
    index, _ = options(words, at, "sk", frozenset({"signal", "kill-after"}))
    return _Step(index + 1)  # the duration, then the command


def _env(words: Sequence[Word], at: int) -> _Step:
    index, found = options(words, at, "uCS", frozenset({"unset", "chdir", "split-string"}))
    names: list[str] = []
    while index < len(words) and (words[index].text == "-"
                                  or _ASSIGNMENT.match(words[index].text)):
        if words[index].text != "-":
            names.append(words[index].text.split("=", 1)[0])
        index += 1
    chdir = _value(found, "-C", "--chdir")
    if _value(found, "-S", "--split-string") is not None:
        return _Step(None, ("runs a command line built from a string (env -S)",),
                     tuple(names))
    return _Step(index, assignments=tuple(names), chdir=chdir.text if chdir else None)


def _simple_wrapper(takes: str = "", long_takes: frozenset[str] = frozenset()) -> Callable[
        [Sequence[Word], int], _Step]:
    def step(words: Sequence[Word], at: int) -> _Step:
        return _Step(options(words, at, takes, long_takes)[0])
    return step


def _time(words: Sequence[Word], at: int) -> _Step:
    index, found = options(words, at, "fo", frozenset({"format", "output"}))
    output = _value(found, "-o", "--output")
    return _Step(index, writes=(output,) if output else ())


def _command(words: Sequence[Word], at: int) -> _Step:
    index, found = options(words, at)
    if "-v" in found or "-V" in found:
        return _Step(None)  # `command -v x` only looks x up
    return _Step(index)


def _ionice(words: Sequence[Word], at: int) -> _Step:
    index, found = options(words, at, "cnpPu",
                           frozenset({"class", "classdata", "pid", "pgid", "uid"}))
    if any(k in found for k in ("-p", "-P", "-u", "--pid", "--pgid", "--uid")):
        return _Step(None)  # changes another process; runs nothing
    return _Step(index)


def _xargs(words: Sequence[Word], at: int) -> _Step:
    index, found = options(words, at, "adEILnPs", frozenset({
        "arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs",
        "max-chars", "process-slot-var"}))
    arg_file = _value(found, "-a", "--arg-file")
    reads = (arg_file,) if arg_file else ()
    if index >= len(words):
        return _Step(None, reads=reads)  # runs echo
    return _Step(index, reads=reads, from_input=True)


def _sudo(words: Sequence[Word], at: int) -> _Step:
    index, found = options(words, at, "ugChprtUTRD", frozenset({
        "user", "group", "close-from", "host", "prompt", "role", "type", "other-user",
        "command-timeout", "chroot", "chdir"}))
    names: list[str] = []
    while index < len(words) and _ASSIGNMENT.match(words[index].text):
        names.append(words[index].text.split("=", 1)[0])
        index += 1
    chdir = _value(found, "-D", "--chdir")
    who = os.path.basename(words[at].text)
    return _Step(index, (f"runs as another user ({who})",), tuple(names),
                 chdir.text if chdir else None)


def _doas(words: Sequence[Word], at: int) -> _Step:
    index, _ = options(words, at, "uC")
    return _Step(index, ("runs as another user (doas)",))


def _watch(words: Sequence[Word], at: int) -> _Step:
    index, found = options(words, at, "nq", frozenset({"interval"}))
    if "-x" in found or "--exec" in found:
        return _Step(index)
    rest = words[index:]
    if not rest:
        return _Step(None)
    return _Step(None, watch_code=" ".join(w.text for w in rest),
                 watch_dynamic=any(w.dynamic for w in rest))


WRAPPERS: dict[str, Callable[[Sequence[Word], int], _Step]] = {
    "timeout": _timeout,
    "env": _env,
    "nice": _simple_wrapper("n", frozenset({"adjustment"})),
    "nohup": _simple_wrapper(),
    "time": _time,
    "command": _command,
    "builtin": _simple_wrapper(),
    "exec": _simple_wrapper("a"),
    "stdbuf": _simple_wrapper("ioe", frozenset({"input", "output", "error"})),
    "ionice": _ionice,
    "setsid": _simple_wrapper(),
    "xargs": _xargs,
    "sudo": _sudo,
    "doas": _doas,
    "watch": _watch,
}
"""Commands that run another command, and how to find it in their arguments."""


def look_through(words: Sequence[Word]) -> Look:
    """Find the command inside ``words``' wrappers (``timeout 5 env X=1 rm x`` -> ``rm x``)."""
    index = 0
    wrappers: list[str] = []
    asks: list[str] = []
    names: list[str] = []
    reads: list[Word] = []
    writes: list[Word] = []
    chdir: str | None = None
    from_input = False
    watch: tuple[str | None, bool] = (None, False)
    while index < len(words) and not words[index].dynamic:
        name = os.path.basename(words[index].text)
        wrapper = WRAPPERS.get(name)
        if wrapper is None:
            break
        step = wrapper(words, index)
        asks.extend(step.asks)
        names.extend(step.assignments)
        reads.extend(step.reads)
        writes.extend(step.writes)
        chdir = step.chdir or chdir
        from_input = from_input or step.from_input
        watch = (step.watch_code, step.watch_dynamic)
        if step.next is None or step.next >= len(words):
            break
        wrappers.append(name)
        index = step.next
    return Look(index, tuple(wrappers), tuple(asks), tuple(names), chdir, tuple(reads),
                tuple(writes), from_input, *watch)


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
    if re.match(r"^[gmn]?awk$", name):
        return None if "-f" in argv[1:] else f"runs inline code ({name} program)"
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
