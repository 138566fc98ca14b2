"""What a shell command line is made of: words, redirections, simple commands (parts).

``shell_analysis`` builds these from a command line; ``shell_policy`` and ``permissions``
judge them.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&", "<>"})
"""Redirection operators that write their target."""
READ_OPS = frozenset({"<", "<>", "<&"})
"""Redirection operators that read their target."""

@dataclass(frozen=True, slots=True)
class Word:
    """One word of a command line.

    Attributes:
        text: The word with quotes and escapes resolved; its source text when dynamic.
        dynamic: Whether its value is only known at run time (``$VAR``, ``$( )``, backticks).
        inner: The commands substitutions inside the word run (also listed as parts).
        process: A process substitution ``<( )`` / ``>( )``: bash passes a pipe, not a file.
        literal: Already expanded as bash expands an argument (braces, globs): its text is
            the very name the program gets, never to be globbed again.
    """

    text: str
    dynamic: bool = False
    inner: tuple[Part, ...] = ()
    process: bool = False
    literal: bool = False


@dataclass(frozen=True, slots=True)
class Redirect:
    """A redirection of a command.

    Attributes:
        op: The operator: ``>``, ``>>``, ``<``, ``&>``, ``>&``, ``<<`` (heredoc), ``<<<``…
        target: The file (or fd number) it names; None for a heredoc.
        body: A heredoc's or here-string's text (None for file redirections).
        dynamic_body: Whether that text holds expansions resolved at run time.
    """

    op: str
    target: Word | None = None
    body: str | None = None
    dynamic_body: bool = False

    @property
    def is_dup(self) -> bool:
        """``2>&1``, ``>&-``: a file descriptor copied or closed, no file involved."""
        text = self.target.text if self.target else ""
        return self.op in (">&", "<&") and (text.isdigit() or text in ("-", "")) or (
            self.op in (">", "<") and text.startswith("&"))

    @property
    def writes(self) -> bool:
        """Whether it writes its target file."""
        return self.op in WRITE_OPS and self.target is not None and not self.is_dup

    @property
    def reads(self) -> bool:
        """Whether it reads its target file."""
        return self.op in READ_OPS and self.target is not None and not self.is_dup

    @property
    def stdin_text(self) -> bool:
        """A heredoc or here-string: text fed to the command's input."""
        return self.body is not None


@dataclass(frozen=True, slots=True)
class Listing:
    """What a path-listing command prints.

    Attributes:
        program: The lister, for messages (``find``, ``git ls-files``).
        roots: The folders (or files) whose paths it lists, as written.
        nul: Whether each name ends with a NUL byte (``-print0``, ``-z``) rather than a newline.
        prefixed: Whether every name starts with the root it lies in (``find src`` prints
            ``src/…``), so that none can start with ``-``.
        recursive: Whether it lists everything below its roots (``ls``: only their entries).
        from_index: ``git ls-files``: the names come from the git index too.
    """

    program: str
    roots: tuple[Word, ...]
    nul: bool = False
    prefixed: bool = True
    recursive: bool = True
    from_index: bool = False

    @property
    def reads(self) -> tuple[Word, ...]:
        """The folders the paths lie in, relative to the folder xargs runs in: ``ls src``
        prints bare names, which xargs's command reads in its own folder."""
        return self.roots if self.recursive else (Word("."),)


@dataclass(frozen=True, slots=True)
class FedNames:
    """The names a lister feeds through a pipe to ``xargs`` and how xargs splits them.

    Attributes:
        listing: What the lister prints.
        separator: How xargs splits its input (``nul``, ``newline``, ``blank``).
    """

    listing: Listing
    separator: str


@dataclass(frozen=True, slots=True)
class Part:
    """One simple command a shell command line runs.

    Attributes:
        text: Its source text.
        words: Its words as written, wrappers included (assignments left out).
        start: Where the command inside the wrappers starts in ``words``.
        redirects: Its redirections, with those of enclosing blocks (``{ …; } > f``).
        cwd: The folder it runs in (symlinks resolved); None when only known at run time.
        assignments: Names of variables set for it (``X=1 cmd``, ``env X=1 cmd``).
        wrappers: The wrappers looked through (``timeout``, ``sudo``, ``bash -c``…).
        asks: Reasons it must be approved whatever the mode allows ("runs as root").
        code: Words whose text runs as code (``bash -c``'s string when built at run time,
            a script from ``<( )``); what downloads feed them is checked.
        stdin_code: It runs code it reads from its input (``… | sh``).
        from_input: More arguments arrive at run time (``xargs``, ``find -exec``).
        origin: The written form of the outermost command it came from.
        pipe: ``(pipeline, stage)`` when it is a stage of a pipeline.
        input_paths: For ``find DIR | xargs CMD``: the folders the arguments that arrive at
            run time lie in (None when they could be anything).
        fed: For ``find DIR | xargs CMD``: what the lister prints and how xargs splits it
            (whether each name arrives intact is judged against the folder, see
            :func:`~.path_listings.names_problem`).
        runs_as: When the command's name was made to run something else earlier in the
            command line (``hash -p``, ``alias``, a function, a changed ``PATH``): the
            command lines it may run instead (a dynamic word for a program agent-tui cannot
            tell). See :mod:`.command_names`.
        binds: For a command that makes a name run a program (``alias ll=rm``,
            ``hash -p /bin/rm x``, ``PATH=…``): the name and the words it will run
            (a dynamic word when unknown).
    """

    text: str
    words: tuple[Word, ...]
    start: int = 0
    redirects: tuple[Redirect, ...] = ()
    cwd: Path | None = None
    assignments: tuple[str, ...] = ()
    wrappers: tuple[str, ...] = ()
    asks: tuple[str, ...] = ()
    code: tuple[Word, ...] = ()
    stdin_code: bool = False
    from_input: bool = False
    origin: str = ""
    pipe: tuple[int, int] | None = None
    input_paths: tuple[Word, ...] | None = None
    fed: FedNames | None = None
    runs_as: tuple[tuple[Word, ...], ...] = ()
    binds: tuple[tuple[str, tuple[Word, ...]], ...] = ()

    @property
    def command(self) -> tuple[Word, ...]:
        """The words of the command inside the wrappers."""
        return self.words[self.start:]

    @property
    def argv(self) -> tuple[str, ...]:
        """The command's words as text."""
        return tuple(w.text for w in self.command)

    @property
    def name(self) -> str:
        """The program's base name (``rm`` for ``/bin/rm``); "" when built at run time."""
        command = self.command
        if not command or command[0].dynamic:
            return ""
        return os.path.basename(command[0].text) or command[0].text

    @property
    def line(self) -> str:
        """The command inside the wrappers as one line, e.g. ``rm -rf x``."""
        return " ".join(self.argv)

    @property
    def quoted_line(self) -> str:
        """:attr:`line` with each word quoted as the shell reads it back, e.g.
        ``rm -r 'my dir'``: what a rule for exactly this command names."""
        return quoted(self.command)

    @property
    def quoted_written(self) -> str:
        """:attr:`written` with each word quoted as the shell reads it back."""
        return self.origin or quoted(self.words)

    @property
    def written(self) -> str:
        """The command as written, wrappers included, e.g. ``timeout 5 rm -rf x``."""
        return self.origin or " ".join(w.text for w in self.words)

    @property
    def dynamic(self) -> bool:
        """Whether some argument is only known at run time."""
        return self.from_input or any(w.dynamic for w in self.command)


@dataclass(frozen=True, slots=True)
class ShellAnalysis:
    """A command line split into parts.

    Attributes:
        command: The command line analysed.
        parts: Its simple commands in the order bash meets them.
        error: Why it does not parse (None when it does).
        fork_bombs: Functions that call themselves in a pipeline or more than once.
    """

    command: str
    parts: tuple[Part, ...]
    error: str | None = None
    fork_bombs: tuple[str, ...] = ()

    def pipeline(self, part: Part) -> list[Part]:
        """The stages of the pipeline ``part`` belongs to (just ``part`` when none)."""
        if part.pipe is None:
            return [part]
        return sorted((p for p in self.parts if p.pipe and p.pipe[0] == part.pipe[0]),
                      key=lambda p: p.pipe[1] if p.pipe else 0)


@dataclass(frozen=True, slots=True)
class Access:
    """What a simple command reads and writes.

    Attributes:
        read_only: Whether it is on the read-only allowlist as called.
        why: Why it is not, for people ("sed -i edits files in place").
        reads: The files and folders it reads (read-only commands).
        writes: Files it writes apart from its redirections (``git config`` -> .git/config).
        touches: Path-like arguments of a command that is not read-only.
    """

    read_only: bool
    why: str = ""
    reads: tuple[Word, ...] = ()
    writes: tuple[Word, ...] = ()
    touches: tuple[Word, ...] = ()


def path_like(words: tuple[Word, ...], cwd: Path | None) -> tuple[Word, ...]:
    """Arguments that name files: with a slash, ``~``, a leading dot, or existing."""
    found: list[Word] = []
    for word in words:
        if word.dynamic or word.process:
            continue
        text = word.text
        if text.startswith("-"):
            _, eq, value = text.partition("=")
            if not eq or not value:
                continue
            text = value
        if "/" in text or text.startswith(("~", ".")) or (
                cwd is not None and text and os.path.lexists(os.path.join(cwd, text))):
            found.append(Word(text))
    return tuple(found)


def quoted(words: tuple[Word, ...]) -> str:
    """``words`` as one command line that reads back as the same words: each word quoted
    where the shell needs it (``'my dir'``, ``'print(1); print(2)'``); a word only known at
    run time as written."""
    return " ".join(w.text if w.dynamic else _quoted_word(w.text) for w in words)


_SPECIAL = re.compile(r"""[\s'"\\;&|<>()$`*?\[]|^[#~]|\{.*(,|\.\.).*\}""")
"""What the shell would read in a bare word other than as its characters: blanks, quotes,
operators, expansions, globs, a leading comment or tilde, a brace expansion."""


def _quoted_word(text: str) -> str:
    """``text`` bare when the shell reads it as it is (``-I{}``, ``src/a.py``), else quoted."""
    return shlex.quote(text) if not text or _SPECIAL.search(text) else text
