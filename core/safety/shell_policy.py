"""What one simple command does: read-only or not, which files it reads and writes, and
whether it is one of the commands agent-tui refuses in every mode.

``access`` knows the read-only allowlist (ls, cat, grep, git status…) and the options that
take a command off it (``sed -i``, ``find -delete``, ``sort -o``…). ``hard_denial`` knows
the catastrophic commands: ``rm -rf /``, fork bombs, ``mkfs``, ``dd`` onto a disk,
``curl … | sh``, ``chmod -R 777 /``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .git_commands import git_access
from .shell_parts import Access, Part, ShellAnalysis, Word, path_like
from .shell_wrappers import options
from .workspace import GLOB_CHARS, Workspace, brace_expand

NO_PATHS = frozenset({
    "echo", "printf", "pwd", "true", "false", ":", "which", "type", "basename", "dirname",
    "whoami", "id", "groups", "uname", "env", "printenv", "test", "[", "seq", "nproc", "arch",
    "uptime", "tr", "cd", "pushd", "popd", "export", "declare", "local", "readonly", "typeset",
    "unset", "xargs", "exec", "command", "sleep", "ps", "free", "tty", "locale", "realpath",
    "readlink", "df", "set", "shift", "read", "wait", "exit", "return", "break", "continue",
    "hash", "date", "hostname",
})
"""Read-only commands whose arguments are not files they read."""

DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "GET"})
"""Programs that fetch from the network."""

SYSTEM_DIRS = frozenset({
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
    "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/snap", "/usr/bin",
    "/usr/lib", "/usr/local", "/usr/sbin", "/usr/share", "/var/lib", "/Applications",
    "/Library", "/System", "/Users", "/Volumes", "/private",
})
"""Folders whose loss breaks the machine."""

_DISK = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|md|mapper/|rdisk)|"
                   r"^/proc/sysrq-trigger$")
_RISKY_VARIABLES = re.compile(
    r"^(PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|IFS|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|CDPATH"
    r"|HOME|GIT_\w+|\w*PAGER|EDITOR|VISUAL|LESS\w*|PYTHON\w*|NODE_OPTIONS|NODE_PATH"
    r"|PERL\w*|RUBY\w*|GREP_OPTIONS)$")
"""Variables that can make a later command run another program (or read another file)."""


@dataclass(frozen=True, slots=True)
class _Spec:
    """A read-only command: which operands are files, and the options that change that."""

    paths: str = "operands"  # "operands", "none", or "pattern" (the first is a pattern)
    takes: str = ""
    long_takes: frozenset[str] = frozenset()
    path_options: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    pattern_options: tuple[str, ...] = ()


_GREP_LONG = frozenset({
    "regexp", "file", "max-count", "after-context", "before-context", "context", "include",
    "exclude", "exclude-dir", "exclude-from", "label", "binary-files", "devices", "directories",
    "group-separator", "glob", "iglob", "type", "type-not", "type-add", "type-clear",
    "max-columns", "threads", "replace", "encoding", "max-depth", "max-filesize", "colors",
    "sort", "sortr", "engine", "ignore-file", "path-separator", "context-separator",
    "file-search-regex", "ignore", "ignore-dir", "depth", "path-to-ignore", "workers"})

SPECS: dict[str, _Spec] = {
    **{name: _Spec(paths="none") for name in NO_PATHS},
    **{name: _Spec() for name in (
        "cat", "wc", "file", "rev", "comm", "tac", "md5sum", "sha1sum", "sha224sum", "base64",
        "base32",
        "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "expand", "unexpand",
        "paste", "fold", "column", "strings", "od", "hexdump", "nl", "cmp", "stat")},
    "head": _Spec(takes="nc", long_takes=frozenset({"lines", "bytes"})),
    "tail": _Spec(takes="ncs", long_takes=frozenset({"lines", "bytes", "pid",
                                                     "sleep-interval"})),
    "cut": _Spec(takes="bcdf", long_takes=frozenset({"bytes", "characters", "delimiter",
                                                     "fields", "output-delimiter"})),
    "ls": _Spec(takes="ITw", long_takes=frozenset({"ignore", "hide", "tabsize", "width",
                                                   "format", "sort", "time", "block-size"})),
    "du": _Spec(takes="dBtX", long_takes=frozenset({"max-depth", "block-size", "threshold",
                                                    "exclude", "exclude-from"}),
                path_options=("-X", "--exclude-from", "--files0-from")),
    "tree": _Spec(takes="LIPH", long_takes=frozenset({"filelimit", "charset", "timefmt"}),
                  forbidden=("-o",)),
    "sort": _Spec(takes="ktST", long_takes=frozenset({
        "key", "field-separator", "buffer-size", "temporary-directory", "parallel",
        "files0-from", "random-source", "batch-size"}),
        path_options=("--files0-from", "--random-source"),
        forbidden=("-o", "--output", "--compress-program")),
    "uniq": _Spec(takes="fsw", long_takes=frozenset({"skip-fields", "skip-chars",
                                                     "check-chars"})),
    "diff": _Spec(takes="CUFILSXxW", long_takes=frozenset({
        "context", "unified", "label", "ignore-matching-lines", "show-function-line",
        "starting-file", "exclude", "exclude-from", "width", "from-file", "to-file",
        "tabsize", "ifdef", "line-format", "color", "palette", "horizon-lines"}),
        path_options=("-X", "--exclude-from", "--from-file", "--to-file")),
    "grep": _Spec(paths="pattern", takes="efmABCdD", long_takes=_GREP_LONG,
                  path_options=("-f", "--file", "--exclude-from"),
                  pattern_options=("-e", "-f", "--regexp", "--file")),
    "rg": _Spec(paths="pattern", takes="efgtTmABCMjrEd", long_takes=_GREP_LONG,
                path_options=("-f", "--file", "--ignore-file"),
                forbidden=("--pre", "--pre-glob", "--hostname-bin"),
                pattern_options=("-e", "-f", "--regexp", "--file", "--files", "--type-list")),
    "ag": _Spec(paths="pattern", takes="ABCGgm", long_takes=_GREP_LONG,
                path_options=("--path-to-ignore",), forbidden=("--pager",),
                pattern_options=("-g",)),
}
SPECS["egrep"] = SPECS["fgrep"] = SPECS["grep"]

_FIND_FORBIDDEN = {"-exec": "runs a command for each file", "-execdir": "runs a command for "
                   "each file", "-ok": "runs a command for each file", "-okdir": "runs a "
                   "command for each file", "-delete": "deletes files", "-fprint": "writes a "
                   "file", "-fprint0": "writes a file", "-fprintf": "writes a file",
                   "-fls": "writes a file"}
_SEARCHERS = frozenset({"rg", "ag", "ack"})
"""Programs that search folders recursively by default."""
_GREPS = frozenset({"grep", "egrep", "fgrep"})
_RECURSIVE_OPTIONS = frozenset({"--recursive", "--dereference-recursive",
                                "--directories=recurse"})


def searched_folders(part: Part, reads: list[Path | None]) -> list[Path]:
    """The folders whose every file ``part`` reads: ``grep -r``, ``rg`` and ``git grep``.

    ``reads`` are the real paths the part names (see :func:`access`); a recursive grep
    without any searches the folder it runs in.
    """
    name, argv = part.name, part.argv
    if name == "git" and argv[1:2] == ("grep",):
        return [part.cwd] if part.cwd is not None else []
    greps = name in _GREPS and _recursive(argv)
    if not greps and name not in _SEARCHERS:
        return []
    if greps and not reads:
        return [part.cwd] if part.cwd is not None else []
    return [p for p in reads if p is not None and p.is_dir()]


def risky_assignments(part: Part) -> list[str]:
    """The variables set for ``part`` that can make it run another program (``PATH``,
    ``LD_PRELOAD``, ``GIT_*``…)."""
    return [name for name in part.assignments if _RISKY_VARIABLES.match(name)]


def access(part: Part, workspace: Workspace) -> Access:
    """Judge ``part`` against the read-only allowlist and find the files it names."""
    name = part.name
    unsafe = risky_assignments(part)
    if not part.command:
        if unsafe:
            return Access(False, f"sets {unsafe[0]}, which can change what later commands run")
        return Access(True)
    if not name:
        return Access(False, "the program's name is only known at run time")
    result = _access(part, name, workspace)
    if unsafe and (result.read_only or name in ("export", "declare", "typeset", "readonly")):
        return Access(False, f"sets {unsafe[0]}, which can change what later commands run",
                      touches=result.touches)
    return result


def _access(part: Part, name: str, workspace: Workspace) -> Access:
    command = part.command
    if name == "find":
        return _find(command)
    if name == "sed":
        return _sed(command)
    if name == "git":
        return git_access(part, workspace)
    if name == "date" and any(w.text in ("-s", "--set") or w.text.startswith("--set=")
                              for w in command[1:]):
        return Access(False, "date --set changes the clock")
    if name == "hostname" and any(not w.text.startswith("-") for w in command[1:]):
        return Access(False, "hostname NAME renames the machine")
    spec = SPECS.get(name)
    if spec is None:
        return Access(False, f"{name} is not on the read-only list",
                      touches=path_like(command[1:], part.cwd))
    operands, found = _scan(command, spec)
    for option in spec.forbidden:
        if option in found:
            return Access(False, f"{name} {option} is not read-only",
                          touches=path_like(command[1:], part.cwd))
    if spec.paths == "none":
        return Access(True)
    if part.from_input:  # `xargs cat`: the files arrive at run time
        operands.append(Word(f"(arguments {part.wrappers[-1] if part.wrappers else name} "
                             "reads at run time)", dynamic=True))
    if spec.paths == "pattern" and operands and not any(o in found
                                                       for o in spec.pattern_options):
        operands.pop(0)
    if name == "uniq" and len(operands) > 1:
        return Access(False, "uniq INPUT OUTPUT writes OUTPUT", writes=(operands[1],))
    read_options = [v for o in spec.path_options if (v := found.get(o)) is not None]
    if not operands and name in ("ls", "du", "tree", "rg", "ag"):
        operands = [Word(".")]
    return Access(True, reads=tuple(operands) + tuple(read_options))


def _scan(command: tuple[Word, ...], spec: _Spec) -> tuple[list[Word], dict[str, Word | None]]:
    """Operands and options, wherever the options are (GNU tools accept them anywhere)."""
    found: dict[str, Word | None] = {}
    operands: list[Word] = []
    index = 1
    while index < len(command):
        word = command[index]
        if word.text == "--":
            operands.extend(command[index + 1:])
            break
        if word.text.startswith("-") and word.text != "-" and not word.dynamic:
            index, more = options(command, index - 1, spec.takes, spec.long_takes)
            found.update(more)
            if command[index - 1].text == "--":
                operands.extend(command[index:])
                break
            continue
        operands.append(word)
        index += 1
    return [w for w in operands if w.text != "-"], found


def _find(command: tuple[Word, ...]) -> Access:
    index = 1
    while index < len(command) and command[index].text in ("-H", "-L", "-P", "-D") or (
            index < len(command) and command[index].text.startswith("-O")):
        index += 2 if command[index].text == "-D" else 1
    starts: list[Word] = []
    while index < len(command) and not command[index].text.startswith(("-", "(", "!", ")")):
        starts.append(command[index])
        index += 1
    for word in command[index:]:
        if word.text in _FIND_FORBIDDEN:
            return Access(False, f"find {word.text} {_FIND_FORBIDDEN[word.text]}",
                          touches=tuple(starts) or (Word("."),))
    return Access(True, reads=tuple(starts) or (Word("."),))


def _sed(command: tuple[Word, ...]) -> Access:
    scripts: list[Word] = []
    operands: list[Word] = []
    expect = ""
    for word in command[1:]:
        text = word.text
        if expect:
            if expect == "e":
                scripts.append(word)
            expect = ""
            continue
        if text.startswith("--") and len(text) > 2:
            name, eq, value = text[2:].partition("=")
            if name.startswith("in-place"):
                return Access(False, "sed --in-place edits files", touches=(*operands,))
            if name == "file":
                return Access(False, "sed --file runs a script from a file")
            if name == "expression":
                if eq:
                    scripts.append(Word(value, word.dynamic))
                else:
                    expect = "e"
            elif name == "line-length" and not eq:
                expect = "l"
            continue
        if text.startswith("-") and len(text) > 1 and not word.dynamic:
            for pos, letter in enumerate(text[1:], start=1):
                if letter == "i":
                    return Access(False, "sed -i edits files in place",
                                  touches=tuple(w for w in command[1:]
                                                if not w.text.startswith("-")))
                if letter == "f":
                    return Access(False, "sed -f runs a script from a file")
                if letter in "el":
                    rest = text[pos + 1:]
                    if letter == "e" and rest:
                        scripts.append(Word(rest))
                    elif not rest:
                        expect = letter
                    break
            continue
        operands.append(word)
    if not scripts and operands:
        scripts.append(operands.pop(0))
    for script in scripts:
        if script.dynamic:
            return Access(False, "the sed script is only known at run time")
        if not sed_script_is_safe(script.text):
            return Access(False, "the sed script writes files or runs commands (w, e, r)")
    return Access(True, reads=tuple(operands))


def sed_script_is_safe(script: str) -> bool:
    """Whether a sed script neither writes files (``w``), runs commands (``e``) nor reads
    other files (``r``), including through the ``s`` command's ``w`` and ``e`` flags."""
    index, size = 0, len(script)

    def skip(at: int, delimiter: str) -> int:
        while at < size:
            if script[at] == "\\":
                at += 2
                continue
            if script[at] == delimiter:
                return at + 1
            at += 1
        return size

    while index < size:
        char = script[index]
        if char in " \t\n;!{}" or char.isdigit() or char in "$,~+IM":
            index += 1
        elif char == "/":
            index = skip(index + 1, "/")
        elif char == "\\" and index + 1 < size:
            index = skip(index + 2, script[index + 1])
        elif char in "sy":
            if index + 1 >= size:
                return True
            delimiter = script[index + 1]
            end = skip(skip(index + 2, delimiter), delimiter)
            if char == "s":
                stop = end
                while stop < size and script[stop] not in ";\n}":
                    stop += 1
                if set(script[end:stop]) & {"w", "e", "W"}:
                    return False
                end = stop
            index = end
        elif char in "wWerR":
            return False
        elif char in "aic:bTt#":
            stop = _line_end(script, index)
            if char in "aic":  # `a\` text goes on while lines end with a backslash
                while script[index:stop].rstrip().endswith("\\") and stop < size:
                    index, stop = stop + 1, _line_end(script, stop + 1)
            else:
                semi = script.find(";", index)
                stop = semi if 0 <= semi < stop and char != "#" else stop
            index = stop
        else:
            index += 1
    return True


# -- hard denials --------------------------------------------------------------------------


def hard_denial(part: Part, analysis: ShellAnalysis, workspace: Workspace) -> str | None:
    """Why ``part`` is refused in every mode, yolo included, or None."""
    name = part.name
    argv = part.argv
    operands = [w for w in part.command[1:] if not w.text.startswith("-")]
    if name in analysis.fork_bombs:
        return "is a fork bomb"
    if name == "rm":
        if "--no-preserve-root" in argv:
            return "deletes with --no-preserve-root, which lets rm erase /"
        if _recursive(argv):
            for word in operands:
                if doomed := _doomed(word, part.cwd, workspace, project=True):
                    return f"deletes {doomed}"
    if name in ("chmod", "chown", "chgrp") and _recursive(argv):
        for word in operands:
            if doomed := _doomed(word, part.cwd, workspace, project=False):
                return f"changes the permissions or owner of everything in {doomed}"
    if name == "find" and _find_deletes(argv):
        for word in operands:
            if doomed := _doomed(word, part.cwd, workspace, project=False):
                return f"deletes everything in {doomed}"
    if name == "mv":
        for word in operands:
            if doomed := _doomed(word, part.cwd, workspace, project=False):
                return f"moves {doomed} away"
    if name.startswith("mkfs") or name in ("mke2fs", "mkdosfs", "mkntfs"):
        return "formats a file system"
    if reason := _disk_write(part, name, operands):
        return reason
    if name in ("shutdown", "reboot", "halt", "poweroff") or (
            name == "systemctl" and argv[1:2] and argv[1] in ("poweroff", "reboot", "halt",
                                                              "kexec")) or (
            name in ("init", "telinit") and argv[1:2] in (("0",), ("6",))):
        return "shuts down or restarts the machine"
    if name == "killall5" or (name == "kill" and "-1" in argv[2:]) or argv == ("kill", "--",
                                                                                "-1"):
        return "kills every process you own"
    if _fed_from_network(part, analysis):
        return "runs a script straight from the network (like curl … | sh)"
    return None


def _find_deletes(argv: tuple[str, ...]) -> bool:
    """``find -delete`` or ``find -exec rm``/``shred``."""
    for index, arg in enumerate(argv):
        if arg == "-delete" or (arg in ("-exec", "-execdir") and index + 1 < len(argv)
                                and os.path.basename(argv[index + 1]) in ("rm", "shred")):
            return True
    return False


def _recursive(argv: tuple[str, ...]) -> bool:
    """Whether a command's options ask it to descend into folders (``-r``, ``-R``, grep's
    long spellings)."""
    return any(a in _RECURSIVE_OPTIONS or (a.startswith("-") and not a.startswith("--")
                                           and set(a[1:]) & {"r", "R"}) for a in argv[1:])


def _doomed(word: Word, cwd: Path | None, workspace: Workspace, *, project: bool) -> str | None:
    """What losing ``word`` would lose when that is catastrophic: /, home, a system folder,
    (with ``project``) the project or a folder holding it."""
    if word.dynamic:
        return None
    for candidate in brace_expand(word.text):
        globbed = bool(GLOB_CHARS.search(candidate))
        base = candidate
        if globbed:
            prefix = GLOB_CHARS.split(candidate, 1)[0]
            base = os.path.dirname(prefix) if "/" in prefix else "."
        path = workspace.resolve(base, cwd)
        if path is None:
            continue
        if not str(path).strip("/"):
            return "the root folder /"
        if path == workspace.home:
            return "your home folder"
        if str(path) in SYSTEM_DIRS:
            return f"the system folder {path}"
        if project and not globbed and (path == workspace.root or path in workspace.root.parents):
            return "the project folder" if path == workspace.root else (
                f"{path}, which holds the project")
    return None


def _disk_write(part: Part, name: str, operands: list[Word]) -> str | None:
    for redirect in part.redirects:
        if redirect.writes and redirect.target and _DISK.match(redirect.target.text):
            return f"overwrites the device {redirect.target.text}"
    if name == "dd":
        for word in part.command[1:]:
            if word.text.startswith("of=") and _DISK.match(word.text[3:]):
                return f"overwrites the device {word.text[3:]}"
    if name in ("tee", "cp", "shred", "wipefs", "mkswap", "blkdiscard", "sgdisk"):
        for word in operands:
            if _DISK.match(word.text):
                return f"overwrites the device {word.text}"
    return None


def _line_end(script: str, start: int) -> int:
    newline = script.find("\n", start)
    return newline if newline >= 0 else len(script)


def _fed_from_network(part: Part, analysis: ShellAnalysis) -> bool:
    """Code that comes from a download: ``curl … | sh``, ``sh <(curl …)``,
    ``bash -c "$(curl …)"``, ``eval "$(wget -qO- …)"``."""
    if part.stdin_code and part.pipe is not None:
        stages = analysis.pipeline(part)
        if any(p.name in DOWNLOADERS for p in stages if p.pipe and p.pipe[1] < part.pipe[1]):
            return True
    return any(p.name in DOWNLOADERS for word in part.code for p in word.inner)
