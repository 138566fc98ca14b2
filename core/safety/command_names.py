"""Names a command line makes run another program, and what a command may run in the end.

bash finds the program a name runs through aliases, functions, the hash table and ``PATH``,
and a command line can change each of them before it runs a name: ``hash -p /bin/rm x; x
-rf d`` runs ``rm -rf d``, as do ``alias x=rm; x -rf d``, ``x() { rm "$@"; }; x -rf d`` and
``PATH=./bin:$PATH; x -rf d`` with ``./bin/x`` a copy of rm. The analysis records each such
binding (:func:`bindings`) and, for each later command, what it may run instead
(:func:`runs_instead`); a deny rule on a program then refuses every way of running it
(see :func:`could_run`).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from .shell_builtins import names_set
from .shell_parts import Part, Word
from .shell_wrappers import SHELLS, WRAPPERS
from .workspace import real_path

ANY_NAME = "*"
"""The binding key for a rebinding that may hit any name (``alias "$n"=rm``)."""
ANY_PROGRAM = "$PATH"
"""The binding key for a changed ``PATH``: every name that is not a builtin may run anything."""

UNKNOWN = Word("(a program only known at run time)", dynamic=True)
"""What a name runs when the command line makes it run something agent-tui cannot tell."""

BUILTINS = frozenset(
    (
        "echo printf cd pwd test [ true false : export declare local readonly typeset unset read "
        "set shift wait exit return break continue eval source . alias unalias hash type command "
        "builtin enable exec let shopt trap umask ulimit getopts mapfile readarray jobs fg bg "
        "kill times dirs pushd popd help logout disown caller compgen complete compopt bind fc "
        "history suspend"
    ).split()
)
"""bash's builtins: a changed ``PATH`` does not change what they run."""

Binding = tuple[str, tuple[Word, ...]]
"""A name and the words it runs from now on (``("x", (Word("/bin/rm"),))``)."""

_POSITIONAL = re.compile(r'^"?\$(?:\{)?([@*]|[1-9])\}?"?$')


def bindings(part: Part) -> tuple[Binding, ...]:
    """The names ``part`` makes run other programs for the rest of the command line."""
    name, command = part.name, part.command
    found: list[Binding] = []
    if "PATH" in part.assignments and (
        not command
        or name in ("export", "declare", "typeset", "readonly", "local")
        or "PATH" in names_set(part.argv)
    ):
        found.append((ANY_PROGRAM, (UNKNOWN,)))  # `PATH=…` alone, `export PATH=…`, `read PATH`
    if name == "hash":
        found.extend(_hash(command))
    elif name == "alias":
        found.extend(_alias(command))
    elif name == "enable":
        found.extend(_enable(command))
    return tuple(found)


def _hash(command: tuple[Word, ...]) -> list[Binding]:
    """``hash -p FILE NAME…``: each NAME runs FILE."""
    words = list(command[1:])
    target: Word | None = None
    index = 0
    while index < len(words) and words[index].text.startswith("-") and not words[index].dynamic:
        flags = words[index].text[1:]
        index += 1
        if "p" in flags:
            if flags.endswith("p") and index < len(words):
                target = words[index]
                index += 1
            elif not flags.endswith("p"):
                target = Word(flags[flags.index("p") + 1 :])
    if target is None:
        return []
    runs = (target,) if not target.dynamic else (UNKNOWN,)
    return [(w.text if not w.dynamic else ANY_NAME, runs) for w in words[index:]]


def _alias(command: tuple[Word, ...]) -> list[Binding]:
    """``alias NAME=VALUE…``: NAME runs the words of VALUE."""
    found: list[Binding] = []
    for word in command[1:]:
        if word.text.startswith("-"):
            continue
        name, eq, value = word.text.partition("=")
        if not eq:
            continue
        if word.dynamic and ("$" in name or "`" in name or not name):
            found.append((ANY_NAME, (UNKNOWN,)))
            continue
        try:
            runs = tuple(Word(w) for w in shlex.split(value)) if not word.dynamic else None
        except ValueError:
            runs = None
        found.append((name, runs or (UNKNOWN,)))
    return found


def _enable(command: tuple[Word, ...]) -> list[Binding]:
    """``enable -f FILE NAME…`` loads NAME from a shared object: it runs unknown code."""
    words = command[1:]
    flags = "".join(w.text[1:] for w in words if w.text.startswith("-"))
    if "f" not in flags and not any(w.dynamic for w in words):
        return []  # `enable -n echo` leaves echo to the program of that name, found on PATH
    names = [w for w in words if not w.text.startswith("-")]
    return [(w.text if not w.dynamic else ANY_NAME, (UNKNOWN,)) for w in names[1:] or names]


MAKERS = frozenset({"cp", "ln", "mv", "install", "rsync", "link", "tee", "dd", "curl", "wget"})
"""Programs that can put another program's bytes (or a link to it) under a new name."""


def made_files(part: Part) -> list[Path]:
    """The files ``part`` may make into a program under a new name: what it redirects its
    output to, and the files a copier, linker or downloader names (``cp /bin/rm x``)."""
    found = [
        r.target.text for r in part.redirects if r.writes and r.target and not r.target.dynamic
    ]
    if part.name in MAKERS:
        found += [
            w.text[3:] if w.text.startswith("of=") else w.text
            for w in part.command[1:]
            if not w.dynamic and not w.text.startswith("-")
        ]
    paths = (real_path(text, part.cwd) for text in found)
    return [path for path in paths if path is not None]


def runs_instead(
    part: Part, bound: Sequence[Binding], functions: Sequence[tuple[str, tuple[Part, ...]]]
) -> tuple[tuple[Word, ...], ...]:
    """What ``part`` may run instead of the program its name usually finds, given the
    bindings made before it (newest first) and the functions defined: each entry is a whole
    command line (``rm -rf d`` for ``x -rf d`` after ``alias x=rm``)."""
    name = part.name
    if not name:
        return ()
    args = part.command[1:]
    if "PATH" in part.assignments and name not in BUILTINS:  # `PATH=./bin x`
        return ((UNKNOWN, *args),)
    for key, runs in bound:
        if key in (name, ANY_NAME) or (key == ANY_PROGRAM and name not in BUILTINS):
            return (runs + args,)
    body = next((parts for key, parts in functions if key == name), None)
    if body is not None:
        return tuple(_called(inner, args) for inner in body if inner.command)
    return ()


def _called(inner: Part, args: tuple[Word, ...]) -> tuple[Word, ...]:
    """A command of a function's body with the call's arguments in place of ``$@``, ``$1``…"""
    words: list[Word] = []
    for word in inner.command:
        match = _POSITIONAL.match(word.text) if word.dynamic else None
        if match is None:
            words.append(word)
        elif match.group(1) in "@*":
            words.extend(args)
        elif int(match.group(1)) <= len(args):
            words.append(args[int(match.group(1)) - 1])
    return tuple(words)


def could_run(part: Part) -> tuple[tuple[tuple[Word, ...], str], ...]:
    """The command lines ``part`` could run beyond its own words, each with why: what its
    rebound name runs, a program whose name is only known at run time, the code of
    ``eval``/``bash -c`` built at run time, a command ``xargs`` hands a wrapper."""
    found: list[tuple[tuple[Word, ...], str]] = []
    name = part.name
    for runs in part.runs_as:
        found.append(
            (
                runs,
                f"{name} runs `{' '.join(w.text for w in runs)}` here, as the command line made it"
                if runs and not runs[0].dynamic
                else f"what {name} runs was changed earlier in the command line",
            )
        )
    if part.command and not name:
        found.append(((UNKNOWN, *part.command[1:]), "its program's name is only known at run time"))
    if (name in SHELLS or name == "eval") and any(w.dynamic for w in part.code):
        found.append(((UNKNOWN,), f"it runs code built at run time ({name})"))
    if part.from_input and os.path.basename(name) in WRAPPERS:
        found.append(((UNKNOWN,), f"{name} runs a command it is given at run time"))
    return tuple(found)
