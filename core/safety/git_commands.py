"""git commands: which are read-only, what they read, and when even a read runs a program.

A git command is read as git reads it: its global options (``-C``, ``--git-dir``,
``--work-tree``) pick the repository, and the subcommand's options are resolved against
git's own tables (:mod:`git_options`), so an abbreviation (``git grep --open``) means the
option it abbreviates and an option git's table lacks asks. A read-only subcommand stays
read-only only when the repository git would use (:mod:`git_repository`) sets nothing that
runs a program; when that repository cannot be known before the command runs, it asks.
``git config`` writes git's configuration unless it only reads a value.
"""

from __future__ import annotations

import re
from pathlib import Path

from .git_options import OPTIONS
from .git_repository import discover, find_repository, repository_findings
from .shell_options import ParsedOptions, parse_options, resolve_long
from .shell_parts import Access, Part, Word, path_like
from .workspace import Workspace

_GLOBAL_FLAGS = frozenset({
    "-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--literal-pathspecs",
    "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks",
    "--bare"})
_GLOBAL_VALUED = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
                            "--list-cmds"})
_GLOBAL_INFO = frozenset({"--version", "--html-path", "--man-path", "--info-path",
                          "--exec-path"})
"""Global options that print something and stop (``--help`` may start a browser the config
names, so it is not one of them)."""
_RUNS = frozenset({"--output", "-O", "--open-files-in-pager"})
"""Options of read-only subcommands that write a file or run a program (grep's ``-O``)."""
_READS_VALUE = {"blame": ("--contents", "-S", "--ignore-revs-file"),
                "annotate": ("--contents", "-S", "--ignore-revs-file"),
                "grep": ("-f",), "ls-files": ("-X", "--exclude-from")}
"""Options whose value is a file the subcommand reads."""
_ORDERFILE = ("-O", "--orderfile")
"""The diff option reading an order file (``-O`` in ``git grep`` runs a pager instead)."""
_PATH_OPERANDS = frozenset({
    "status", "diff", "diff-files", "diff-index", "log", "show", "whatchanged", "blame",
    "annotate", "ls-files", "shortlog", "grep", "check-ignore", "stash show"})
"""Subcommands whose operands may be files they read (``git diff --no-index a /etc/b``)."""
_NO_REPOSITORY = frozenset({"version"})
_LISTING = {
    "branch": ({"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list",
                "--show-current", "--color", "--no-color", "--column", "--no-column", "-q",
                "--quiet", "-i", "--ignore-case", "--omit-empty"},
               {"--merged", "--no-merged", "--contains", "--no-contains", "--points-at",
                "--sort", "--format", "--abbrev"}),
    "tag": ({"-l", "--list", "--column", "--no-column", "-i", "--ignore-case", "--color",
             "--no-color", "--omit-empty"},
            {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort",
             "--format"}),
}
_CONFIG_WRITES = frozenset({"--replace-all", "--add", "--unset", "--unset-all",
                            "--rename-section", "--remove-section", "--edit", "-e"})
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list",
                           "-l", "--get-color", "--get-colorbool"})
_CONFIG_SUBCOMMANDS_READING = frozenset({"get", "list", "get-color", "get-colorbool"})
_CONFIG_SUBCOMMANDS_WRITING = frozenset({"set", "unset", "rename-section", "remove-section",
                                         "edit"})

__all__ = ["find_repository", "git_access"]


class _Asks(Exception):
    """The command is not read-only, and why."""

    def __init__(self, why: str, touches: tuple[Word, ...] = ()) -> None:
        super().__init__(why)
        self.why = why
        self.touches = touches


def git_access(part: Part, workspace: Workspace) -> Access:
    """Whether a git command is read-only, and what it reads or writes."""
    try:
        return _GitCommand(part, workspace).access()
    except _Asks as asks:
        return Access(False, asks.why, touches=asks.touches)


class _GitCommand:
    """One git command: the repository it uses and the subcommand it runs."""

    def __init__(self, part: Part, workspace: Workspace) -> None:
        self.part = part
        self.workspace = workspace
        self.words = part.command
        self.folder: Path | None = part.cwd
        self.git_dir: Word | None = None
        self.bare = False
        self.reads: list[Word] = []

    def access(self) -> Access:
        at = self._global_options()
        if at >= len(self.words):
            return Access(True, reads=tuple(self.reads))
        word = self.words[at]
        if word.dynamic:
            raise _Asks("the git subcommand is only known at run time")
        sub = word.text
        touches = self._touches(at)
        if sub == "config":
            return self._config(at)
        name = self._read_only_name(sub, at, touches)
        if name not in _NO_REPOSITORY:
            self._check_repository(sub)
        return Access(True, reads=tuple(self.reads))

    # -- global options ------------------------------------------------------------------

    def _global_options(self) -> int:
        """Read git's own options (exact names: git does not abbreviate them); the index of
        the subcommand."""
        words, index = self.words, 1
        while index < len(words) and words[index].text.startswith("-"):
            word = words[index]
            if word.dynamic:
                raise _Asks("a git option is only known at run time")
            name, eq, value = word.text.partition("=")
            if name in ("-c", "--config-env") or name == "--exec-path" and eq:
                raise _Asks(f"git {name} sets configuration that can run programs")
            if word.text in _GLOBAL_INFO:
                return len(words)
            if word.text in _GLOBAL_FLAGS:
                self.bare = self.bare or word.text == "--bare"
                index += 1
                continue
            if name not in _GLOBAL_VALUED or (name == "-C" and eq):
                raise _Asks(f"git does not know the option {word.text}")
            if eq:
                given, index = Word(value), index + 1
            elif index + 1 < len(words):
                given, index = words[index + 1], index + 2
            else:
                raise _Asks(f"git {name} needs a value")
            self._global_value(name, given)
        return index

    def _global_value(self, name: str, value: Word) -> None:
        if name in ("--namespace", "--super-prefix", "--list-cmds"):
            return
        if value.dynamic:
            raise _Asks(f"git {name} names a folder only known at run time, so the repository "
                        "it uses cannot be checked")
        self.reads.append(self._absolute(value))
        if name == "-C" and value.text:
            self.folder = self.workspace.resolve(value.text, self.folder)
        elif name == "--git-dir":
            self.git_dir = value

    # -- the subcommand ------------------------------------------------------------------

    def _read_only_name(self, sub: str, at: int, touches: tuple[Word, ...]) -> str:
        """Judge the subcommand's words; its name in :data:`OPTIONS` when read-only."""
        args = [w.text for w in self.words[at + 1:]]
        if sub in ("stash", "worktree") and args[:1] in (["list"], ["show"]):
            name, at = f"{sub} {args[0]}", at + 1
            if name == "worktree show":
                raise _Asks("git worktree show is not read-only", touches)
        elif sub == "reflog" and args[:1] in (["show"], ["exists"]):
            name, at = sub, at + 1
        elif sub == "reflog" and args[:1] in (["expire"], ["delete"]):
            raise _Asks(f"git reflog {args[0]} is not read-only", touches)
        elif sub in _LISTING:
            if not _listing_only(sub, args):
                raise _Asks(f"git {sub} is not read-only", touches)
            return sub
        elif sub == "remote":
            if not (not args or args in (["-v"], ["--verbose"]) or args[0] == "get-url"):
                raise _Asks("git remote is not read-only", touches)
            return sub
        elif sub == "rev-parse":
            return sub  # it prints what it is given, options included
        elif sub in OPTIONS and " " not in sub:
            name = sub
        else:
            raise _Asks(f"git {sub} is not read-only", touches)
        parsed = parse_options(self.words, at, OPTIONS[name])
        self._judge_options(name, parsed)
        return name

    def _judge_options(self, name: str, parsed: ParsedOptions) -> None:
        shown = f"git {name}"
        if parsed.dynamic:
            raise _Asks(f"an option of {shown} is only known at run time")
        if parsed.unknown:
            raise _Asks(f"{shown} does not know the option {parsed.unknown[0]} (or it "
                        "abbreviates several), so what it does cannot be told")
        for option in _RUNS:
            if option in parsed.found and not (option == "-O" and name != "grep"):
                raise _Asks(f"{shown} with that option writes a file or runs a program")
        if self._hidden_option(name, parsed):
            raise _Asks(f"{shown} with that option writes a file or runs a program")
        valued = _READS_VALUE.get(name, ()) + (_ORDERFILE if name != "grep" else ())
        for option in valued:
            if (value := parsed.found.get(option)) is not None:
                self.reads.append(self._absolute(value))
        if name in _PATH_OPERANDS:
            operands = parsed.operands
            if name == "grep" and operands and not parsed.has("-e", "-f"):
                operands = operands[1:]
            self.reads.extend(self._absolute(w) for w in operands
                              if not w.text.startswith("-") or w.dynamic)

    def _hidden_option(self, name: str, parsed: ParsedOptions) -> bool:
        """An option that writes or runs, taken as another option's value by the table but
        perhaps not by git (``--format --output=x``): asked rather than trusted."""
        table = OPTIONS[name]
        for value in parsed.found.values():
            separate = value is not None and any(value is word for word in self.words)
            text = value.text if value is not None else ""
            if separate and text.startswith("--"):
                resolved = resolve_long(text[2:].split("=", 1)[0], table)
                if resolved and f"--{resolved}" in _RUNS:
                    return True
        return False

    def _check_repository(self, sub: str) -> None:
        """Ask when the repository git would use sets a program to run, or is unknown."""
        if self.git_dir is not None:
            git_dir = self.workspace.resolve(self.git_dir.text, self.folder)
            git_dirs = [git_dir] if git_dir is not None else None
        elif self.bare:
            git_dirs = [self.folder] if self.folder is not None else None
        else:
            git_dirs = discover(self.folder) if self.folder is not None else None
        if git_dirs is None:
            raise _Asks(f"git {sub} runs in a folder only known at run time, so the "
                        "repository config it reads cannot be checked")
        findings = repository_findings(git_dirs)
        if findings.hazard is not None:
            raise _Asks(f"git {sub} would run a program set by the git config: "
                        f"{findings.hazard}")
        self.reads.extend(Word(str(p)) for p in findings.worktrees)

    # -- git config ----------------------------------------------------------------------

    def _config(self, at: int) -> Access:
        parsed = parse_options(self.words, at, OPTIONS["config"])
        if parsed.dynamic:
            raise _Asks("an option of git config is only known at run time")
        if parsed.unknown:
            raise _Asks(f"git config does not know the option {parsed.unknown[0]} (or it "
                        "abbreviates several), so what it does cannot be told")
        operands = [w.text for w in parsed.operands]
        given = set(parsed.found)
        first = operands[0] if operands else ""
        writes = bool(given & _CONFIG_WRITES) or first in _CONFIG_SUBCOMMANDS_WRITING
        reads = bool(given & _CONFIG_READS) or first in _CONFIG_SUBCOMMANDS_READING
        if not writes and (reads or len(operands) <= 1):
            file = parsed.value("--file", "-f")
            if file is not None:
                self.reads.append(self._absolute(file))
            return Access(True, reads=tuple(self.reads))
        return Access(False, "git config changes git's configuration",
                      writes=(self._config_target(parsed),))

    def _config_target(self, parsed: ParsedOptions) -> Word:
        if parsed.has("--global"):
            return Word("~/.gitconfig")
        if parsed.has("--system"):
            return Word("/etc/gitconfig")
        file = parsed.value("--file", "-f")
        if file is not None:
            return self._absolute(file)
        if self.git_dir is not None:
            base = self.workspace.resolve(self.git_dir.text, self.folder)
        else:
            base = find_repository(self.folder) if self.folder is not None else None
        if base is None:
            return Word(str(self.folder / ".git" / "config")) if self.folder else Word(
                ".git/config")
        return Word(str(base / ("config.worktree" if parsed.has("--worktree") else "config")))

    # -- helpers -------------------------------------------------------------------------

    def _absolute(self, word: Word) -> Word:
        """A path git resolves from its folder (after ``-C``), made absolute."""
        if word.dynamic or self.folder is None or word.text.startswith(("/", "~")):
            return word
        return Word(str(self.folder / word.text))

    def _touches(self, at: int) -> tuple[Word, ...]:
        return path_like(self.words[at + 1:], self.part.cwd)


def _listing_only(sub: str, args: list[str]) -> bool:
    """``git branch`` and ``git tag`` only list (no name to create, no option that changes
    anything)."""
    flags, valued = _LISTING[sub]
    listing = any(a in ("-l", "--list") for a in args)
    expect_value = False
    for arg in args:
        if expect_value:
            expect_value = False
            continue
        name = arg.split("=", 1)[0]
        if name in valued:
            expect_value = "=" not in arg and name not in ("--merged", "--no-merged", "--abbrev")
            continue
        if arg in flags or (sub == "tag" and re.fullmatch(r"-n\d*", arg)):
            continue
        if arg.startswith("-") or not listing:
            return False
    return True
