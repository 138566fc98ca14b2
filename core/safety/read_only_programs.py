"""What the programs on the read-only allowlist do with their words: which are files they
read, and which options write, run or change something.

The options are named canonically (``--output``, ``-o``); each program's option table
(:data:`.option_tables.TABLES`) resolves how they were written. :mod:`.shell_policy`
judges a command with these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

NO_PATHS = frozenset({
    "echo", "printf", "pwd", "true", "false", ":", "which", "type", "basename", "dirname",
    "whoami", "id", "groups", "uname", "env", "printenv", "test", "[", "seq", "nproc", "arch",
    "uptime", "tr", "cd", "pushd", "popd", "export", "declare", "local", "readonly", "typeset",
    "unset", "xargs", "exec", "command", "sleep", "ps", "free", "tty", "locale", "realpath",
    "readlink", "df", "set", "shift", "read", "wait", "exit", "return", "break", "continue",
    "hash", "date", "hostname", "numfmt", "expr",
})
"""Read-only commands whose arguments are not files they read."""

_WRITES = "writes a file"
_RUNS = "runs a program"


@dataclass(frozen=True, slots=True)
class ProgramSpec:
    """A read-only program: which of its words are files it reads, and the options that take
    it off the list. Options are named canonically (``--output``, ``-o``); the program's
    option table (:data:`.option_tables.TABLES`) resolves how they were written.

    Attributes:
        paths: ``"operands"`` (operands are files), ``"none"`` or ``"pattern"`` (the first
            operand is a pattern unless a ``pattern_options`` option gives it).
        reads: Options whose value is a file the program reads.
        lists: Options whose value is a file naming more files it reads (``--files0-from``).
        forbidden: Options that write, run or change something, with what they do.
        pattern_options: Options that give the pattern instead of the first operand.
        folder: With no operand it reads the folder it runs in (``ls``, ``rg``).
    """

    paths: str = "operands"
    reads: frozenset[str] = frozenset()
    lists: frozenset[str] = frozenset()
    forbidden: Mapping[str, str] = field(default_factory=dict)
    pattern_options: frozenset[str] = frozenset()
    folder: bool = False


def _spec(paths: str = "operands", reads: str = "", lists: str = "",
          forbidden: Mapping[str, str] | None = None, pattern_options: str = "",
          folder: bool = False) -> ProgramSpec:
    """A spec from space-separated option names."""
    return ProgramSpec(paths, frozenset(reads.split()), frozenset(lists.split()),
                       forbidden or {}, frozenset(pattern_options.split()), folder)


_GREP = _spec("pattern", reads="-f --file --exclude-from",
              pattern_options="-e -f --regexp --file")
_CHECKSUM = _spec(lists="-c --check")

SPECS: dict[str, ProgramSpec] = {
    **{name: _spec("none") for name in NO_PATHS},
    **{name: _spec() for name in (
        "cat", "rev", "comm", "tac", "base64", "base32", "expand", "unexpand", "paste", "fold",
        "column", "strings", "od", "nl", "cmp", "stat", "head", "tail", "cut", "uniq", "more")},
    **{name: _CHECKSUM for name in ("md5sum", "sha1sum", "sha224sum", "sha256sum",
                                    "sha384sum", "sha512sum", "b2sum", "cksum")},
    "wc": _spec(lists="--files0-from"),
    "file": _spec(reads="-m --magic-file", lists="-f --files-from",
                  forbidden={"-C": "compiles a magic file (writes a .mgc file)",
                             "--compile": "compiles a magic file (writes a .mgc file)"}),
    "hexdump": _spec(reads="-f --format-file"),
    "ls": _spec(folder=True),
    "du": _spec(reads="-X --exclude-from", lists="--files0-from", folder=True),
    "tree": _spec(reads="--gitfile --infofile --hintro --houtro", folder=True,
                  forbidden={"-o": _WRITES, "-R": "writes 00Tree.html in every folder"}),
    "sort": _spec(reads="--random-source", lists="--files0-from",
                  forbidden={"-o": _WRITES, "--output": _WRITES,
                             "--compress-program": _RUNS}),
    "diff": _spec(reads="-X --exclude-from --from-file --to-file"),
    "grep": _GREP, "egrep": _GREP, "fgrep": _GREP,
    "rg": _spec("pattern", reads="-f --file --ignore-file", folder=True,
                forbidden={"--pre": _RUNS, "--pre-glob": _RUNS},
                pattern_options="-e -f --regexp --file --files --type-list"),
    "ag": _spec("pattern", reads="-p --path-to-ignore", folder=True,
                forbidden={"--pager": _RUNS},
                pattern_options="-g --filename-pattern --list-file-types"),
    "fd": _spec("pattern", reads="--ignore-file --base-directory --search-path", folder=True,
                forbidden={"-x": _RUNS, "--exec": _RUNS, "-X": _RUNS, "--exec-batch": _RUNS},
                pattern_options="--search-path"),
    "less": _spec(reads="-T --tag-file", lists="-t --tag", forbidden={
        "-o": _WRITES, "-O": _WRITES, "--log-file": _WRITES, "--LOG-FILE": _WRITES,
        **dict.fromkeys(("-k", "--lesskey-file", "--lesskey-src"),
                        "loads key bindings and variables that can run programs")}),
    "man": _spec("none", reads="-M --manpath", forbidden={
        "-P": _RUNS, "--pager": _RUNS, "-H": "runs a web browser", "--html": "runs a web browser",
        "-X": _RUNS, "--gxditview": _RUNS,
        "-C": "reads a configuration that names the programs man runs",
        "--config-file": "reads a configuration that names the programs man runs",
        "-u": "rebuilds man's index caches", "--update": "rebuilds man's index caches",
        "-c": "writes formatted pages", "--catman": "writes formatted pages"}),
    "date": _spec("none", reads="-f --file -r --reference"),
    "hostname": _spec("none", forbidden=dict.fromkeys(("-F", "--file", "-b", "--boot"),
                                                      "sets the host name")),
    "env": _spec("none", forbidden={"-S": "runs the command in its string",
                                    "--split-string": "runs the command in its string"}),
}
SPECS["fdfind"] = SPECS["fd"]


JQ_SHORT = frozenset("cnesrjaSCMhVRLf0b")
"""jq's one-letter options (``-L DIR`` takes the next word)."""
JQ_LONG = {
    **dict.fromkeys((
        "compact-output", "null-input", "exit-status", "slurp", "raw-output", "join-output",
        "ascii-output", "sort-keys", "color-output", "monochrome-output", "help", "version",
        "raw-input", "tab", "unbuffered", "stream", "stream-errors", "seq", "from-file",
        "args", "jsonargs", "debug-dump-disasm", "debug-trace", "build-configuration",
        "raw-output0", "binary", "run-tests"), 0),
    "indent": 1, "arg": 2, "argjson": 2, "slurpfile": 2, "rawfile": 2, "argfile": 2,
}
"""jq's long options (exact names: jq does not take abbreviations) and how many words each
takes."""
