"""What one simple command does: read-only or not, and which files it reads and writes.

``access`` knows the read-only allowlist (ls, cat, grep, git status…) and the options that
take a command off it (``sed -i``, ``find -delete``, ``sort -o``…). Options are read the way
each program's parser reads them, from its complete option table (``sort --out=x`` is
``sort --output=x``); an option the table does not know takes the command off the list.
The commands refused in every mode are :mod:`.hard_denials`'.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from .awk_programs import awk_options_problem, awk_program_problem, read_awk_command
from .git_commands import git_access
from .option_tables import TABLES
from .path_listings import names_problem
from .read_only_programs import JQ_LONG, JQ_SHORT, SPECS
from .shell_options import ParsedOptions, parse_options
from .shell_parts import Access, Part, Word, path_like
from .shell_wrappers import WRAPPERS
from .workspace import Workspace

_RISKY_VARIABLES = re.compile(
    # the shell itself: startup files, prompts it expands, how it finds and globs
    r"^(PATH|BASH_ENV|ENV|BASH_\w+|ZDOTDIR|INPUTRC|IFS|PS[0-4]|PROMPT_COMMAND|SHELLOPTS"
    r"|BASHOPTS|CDPATH|GLOBIGNORE|EXECIGNORE|HOME|SHELL"
    # the dynamic loader and the C library's data files (gconv modules are shared objects)
    r"|LD_\w+|DYLD_\w+|GCONV_PATH|LOCPATH|NLSPATH|GLIBC_TUNABLES|TZDIR|TERMINFO\w*|TERMCAP"
    # where programs find their configuration: git, rg, less, fd, man, file, gpg, curl…
    r"|XDG_\w+|GIT_\w+|RIPGREP_CONFIG_PATH|LESS\w*|MAN\w*|GROFF\w*|MAGIC|GNUPGHOME"
    r"|GREP_OPTIONS|TAR_OPTIONS|CURL_HOME|WGETRC|MAKEFILES|MAKEFLAGS"
    # programs they start and languages' code paths
    r"|\w*PAGER|EDITOR|VISUAL|BROWSER|AWK\w*|PYTHON\w*|NODE_OPTIONS|NODE_PATH|PERL\w*"
    r"|RUBY\w*|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|(?i:npm_config_\w+))$")
"""Variables that make a later command run another program, load code or read another
configuration (``PATH``, ``LD_PRELOAD``, ``XDG_CONFIG_HOME`` for git, ``RIPGREP_CONFIG_PATH``…).
``LANG``, ``LC_*``, ``TZ``, ``COLUMNS``, ``NO_COLOR``, ``TERM`` and the like stay harmless."""

_SPECIAL = frozenset({"find", "sed", "git", "ps", "jq", "awk", "gawk", "mawk", "nawk"})
"""Programs judged by their own parser below."""

_FIND_FORBIDDEN = {"-exec": "runs a command for each file", "-execdir": "runs a command for "
                   "each file", "-ok": "runs a command for each file", "-okdir": "runs a "
                   "command for each file", "-delete": "deletes files", "-fprint": "writes a "
                   "file", "-fprint0": "writes a file", "-fprintf": "writes a file",
                   "-fls": "writes a file"}
_SEARCHERS = frozenset({"rg", "ag", "ack", "fd", "fdfind"})
"""Programs that search folders recursively by default."""
_GREPS = frozenset({"grep", "egrep", "fgrep"})
_LESS_COMMAND = re.compile(r"\+\+?(\d*[gGFpP%]?|[/?].*)")
"""The ``less +cmd`` start commands that only move or search (``+G``, ``+/TODO``, ``+42``);
others can run a shell (``+!cmd``), pipe (``+|``), save a file (``+s``) or open another."""
_PS_TAKES = "OoptUkq"
"""BSD-style ``ps`` letters that take a value (``ps o pid``, ``ps p 42``)."""


def searched_folders(part: Part, reads: list[Path | None]) -> list[Path]:
    """The folders whose every file ``part`` reads: ``grep -r``, ``rg``, ``fd`` and
    ``git grep``.

    ``reads`` are the real paths the part names (see :func:`access`); a recursive grep
    without any searches the folder it runs in.
    """
    name, argv = part.name, part.argv
    if part.input_paths is not None:  # it reads files from anywhere under these folders
        return [p for p in reads if p is not None and p.is_dir()]
    if name == "git" and argv[1:2] == ("grep",):
        return [part.cwd] if part.cwd is not None else []
    greps = name in _GREPS and _grep_recursive(part.command)
    if not greps and name not in _SEARCHERS:
        return []
    if greps and not reads:
        return [part.cwd] if part.cwd is not None else []
    return [p for p in reads if p is not None and p.is_dir()]


def risky_assignments(part: Part) -> list[str]:
    """The variables set for ``part`` that can make it run another program, load code or
    read another configuration (``PATH``, ``LD_PRELOAD``, ``GIT_*``, ``XDG_CONFIG_HOME``…)."""
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
    if "/" in part.command[0].text and not _is_system_program(part.command[0].text, name,
                                                               part.cwd, workspace):
        return Access(False, f"runs {part.command[0].text}, which is not the system's {name}",
                      touches=path_like(part.command, part.cwd))
    result = _access(part, name, workspace)
    if result.read_only and part.fed is not None and (
            why := names_problem(part.fed, part.cwd, workspace)):
        return Access(False, why, touches=result.reads)
    if unsafe and (result.read_only or name in ("export", "declare", "typeset", "readonly")):
        return Access(False, f"sets {unsafe[0]}, which can change what later commands run",
                      touches=result.touches)
    return result


def _is_system_program(written: str, name: str, cwd: Path | None,
                       workspace: Workspace) -> bool:
    """Whether a program named by its path (``/bin/ls``) is the one ``name`` finds on PATH:
    ``./bin/ls`` in the project is some other program that only shares the name."""
    path = workspace.resolve(written, cwd)
    found = _on_path(name)
    return path is not None and found is not None and path == found


@lru_cache(maxsize=256)
def _on_path(name: str) -> Path | None:
    found = shutil.which(name)
    return Path(os.path.realpath(found)) if found else None


def _access(part: Part, name: str, workspace: Workspace) -> Access:
    command = part.command
    if part.from_input and name in WRAPPERS:  # `xargs env`, `xargs xargs`: run their input
        giver = part.wrappers[-1] if part.wrappers else "xargs"
        return Access(False, f"{name} runs the command it is given, and {giver} gives it one "
                             "only known at run time")
    if name in _SPECIAL:
        return _special_fed(part, name, workspace) if part.from_input else _special(
            part, name, workspace)
    spec = SPECS.get(name)
    if spec is None:
        return Access(False, f"{name} is not on the read-only list",
                      touches=path_like(command[1:], part.cwd))
    table = TABLES.get(name)
    if table is None:  # echo, test, bash builtins: their words are text, not options
        return Access(True)
    parsed = parse_options(command, 0, table)
    if parsed.unknown:
        return Access(False, f"{name} has an option agent-tui does not know: "
                             f"{parsed.unknown[0]}", touches=path_like(command[1:], part.cwd))
    for option in spec.forbidden:
        if option in parsed.found:
            return Access(False, f"{name} {option} is not read-only",
                          touches=path_like(command[1:], part.cwd))
    if (parsed.dynamic or (part.from_input and part.input_paths is None)) and (
            spec.forbidden or spec.reads or spec.lists):
        return Access(False, f"a word in {name}'s options is only known at run time, and "
                             "could be an option that writes, runs or reads")
    operands = [w for w in parsed.operands if w.text != "-"]
    arriving = [Word(f"(arguments {part.wrappers[-1] if part.wrappers else name} reads at "
                     "run time)", dynamic=True)] if part.from_input else []
    if why := _program_problem(name, parsed, operands + arriving):
        return Access(False, why, touches=path_like(command[1:], part.cwd))
    reads = [w for option in (*spec.reads, *spec.lists) for w in parsed.values(option)]
    if name == "file":  # -m takes a colon-separated list of magic files
        reads = [Word(piece) if not w.dynamic else w for w in reads
                 for piece in (w.text.split(":") if not w.dynamic else [w.text])]
    if any(parsed.has(option) for option in spec.lists):
        reads.append(Word(f"(the files {name} reads from a list)", dynamic=True))
    reads.extend(_program_reads(name, parsed, operands))
    if spec.paths == "none":
        return Access(True, reads=tuple(reads))
    if name == "less" or name == "more":
        operands = [w for w in operands if not w.text.startswith("+")]
    elif name == "strings":
        operands = [Word(w.text[1:]) if w.text.startswith("@") and not w.dynamic else w
                    for w in operands]
    if spec.paths == "pattern" and operands and not parsed.has(*spec.pattern_options):
        operands.pop(0)
    if name == "uniq" and (len(operands) > 1 or arriving):  # xargs may give it two names
        return Access(False, "uniq INPUT OUTPUT writes OUTPUT",
                      writes=tuple((operands + arriving)[1:2]))
    if not operands and spec.folder:
        operands = [Word(".")]  # also what it reads when xargs gets no names
    if part.input_paths is not None:  # `find src | xargs cat`: files in src
        operands.extend(part.input_paths)
    else:  # `xargs cat`: the files arrive at run time
        operands.extend(arriving)
    return Access(True, reads=(*operands, *reads))


def _program_problem(name: str, parsed: ParsedOptions, operands: list[Word]) -> str | None:
    """What takes a program with options of its own kind off the list."""
    if name == "date":
        if parsed.has("-s", "--set"):
            return "date --set changes the clock"
        if any(not w.text.startswith("+") for w in operands):
            return "date MMDDhhmm[[CC]YY][.ss] sets the clock"
    elif name == "hostname" and operands:
        return "hostname NAME renames the machine"
    elif name == "env" and any("=" not in w.text or w.dynamic for w in operands):
        return "env runs a command"
    elif name == "less":
        if start := next((w for w in operands if w.text.startswith("+")
                          and (w.dynamic or not _LESS_COMMAND.fullmatch(w.text))), None):
            return (f"less {start.text} runs a less command at start, which can run "
                    "programs or write files")
    return None


def _program_reads(name: str, parsed: ParsedOptions, operands: list[Word]) -> list[Word]:
    """Files a program reads beyond its options' values: ``man``'s local pages and what
    they include."""
    if name == "man":
        local = parsed.has("-l", "--local-file")
        pages = [w for w in operands if local or "/" in w.text or w.dynamic]
        if pages:  # a page's `.so` request includes any file, read as the page is shown
            return [*pages, Word("(files the manual page includes)", dynamic=True)]
    return []


def _grep_recursive(command: tuple[Word, ...]) -> bool:
    """Whether a grep reads whole folders: ``-r``, ``-R``, ``--recursive`` and its
    abbreviations, ``-d recurse`` (whose value grep also takes abbreviated)."""
    parsed = parse_options(command, 0, TABLES["grep"])
    directories = parsed.value("-d", "--directories")
    return parsed.has("-r", "-R", "--recursive", "--dereference-recursive") or (
        directories is not None and len(directories.text) >= 3
        and "recurse".startswith(directories.text))


def _special_fed(part: Part, name: str, workspace: Workspace) -> Access:
    """``… | xargs sed -n p``: arguments xargs reads at run time could be options (``sed -i``,
    ``find -delete``, ``git diff --output``) or, with no program written, the program; only
    a lister's names (see :mod:`.path_listings`) are known to be neither."""
    giver = part.wrappers[-1] if part.wrappers else "xargs"
    if part.input_paths is None or name in ("git", "ps"):
        return Access(False, f"{giver} gives {name} arguments only known at run time, which "
                             "could be options that write files or run programs")
    if name in ("sed", "jq") and not _has_program(part, name):
        return Access(False, f"the first name {giver} gives {name} would be its program")
    result = _special(part, name, workspace)
    if not result.read_only:
        return result
    return replace(result, reads=(*result.reads, *part.input_paths))


def _has_program(part: Part, name: str) -> bool:
    """Whether ``sed`` or ``jq`` is given its script or filter in the written command."""
    if name == "sed":
        parsed = parse_options(part.command, 0, TABLES["sed"])
        return bool(parsed.operands or parsed.has("-e", "--expression", "-f", "--file"))
    return any(not w.text.startswith("-") for w in part.command[1:])


def _special(part: Part, name: str, workspace: Workspace) -> Access:
    command = part.command
    if name == "find":
        return _find(command)
    if name == "sed":
        return _sed(command)
    if name == "git":
        return git_access(part, workspace)
    if name == "ps":
        return _ps(command)
    if name == "jq":
        return _jq(command)
    if why := awk_options_problem(part.argv):
        return Access(False, why, touches=path_like(command[1:], part.cwd))
    awk = read_awk_command(part.argv)
    if any(w.dynamic for w in command[1:awk.files]):
        return Access(False, "a word in awk's options is only known at run time")
    if awk.program is None and not awk.sources:
        return Access(False, "awk has no program agent-tui can read")
    if awk.program is not None:
        if command[awk.program].dynamic:
            return Access(False, "the awk program is only known at run time")
        if why := awk_program_problem(command[awk.program].text):
            return Access(False, why)
    operands = [w for w in command[awk.files:]
                if w.dynamic or not re.match(r"[A-Za-z_]\w*=", w.text)]
    return Access(True, reads=tuple(w for w in operands if w.text != "-"))



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
    table = TABLES["sed"]
    parsed = parse_options(command, 0, table)
    files = tuple(parsed.operands)
    if parsed.unknown:
        return Access(False, f"sed has an option agent-tui does not know: {parsed.unknown[0]}",
                      touches=files)
    if parsed.has("-i"):
        return Access(False, "sed -i edits files in place", touches=files)
    if parsed.has("--in-place"):
        return Access(False, "sed --in-place edits files", touches=files)
    if option := next((o for o in ("-f", "--file") if parsed.has(o)), None):
        return Access(False, f"sed {option} runs a script from a file")
    if parsed.dynamic:
        return Access(False, "a word in sed's options is only known at run time")
    operands = [w for w in parsed.operands if w.text != "-"]
    scripts = [*parsed.values("-e"), *parsed.values("--expression")]
    if not scripts and operands:
        scripts.append(operands.pop(0))
    for script in scripts:
        if script.dynamic:
            return Access(False, "the sed script is only known at run time")
        if not sed_script_is_safe(script.text):
            return Access(False, "the sed script writes files or runs commands (w, e, r)")
    return Access(True, reads=tuple(operands))


def _ps(command: tuple[Word, ...]) -> Access:
    """``ps``: read-only unless it prints other processes' environments (BSD ``e``)."""
    parsed = parse_options(command, 0, TABLES["ps"])
    if parsed.unknown:
        return Access(False, f"ps has an option agent-tui does not know: {parsed.unknown[0]}")
    if parsed.dynamic or any(w.dynamic for w in parsed.operands):
        return Access(False, "a word of ps is only known at run time, and could make it print "
                             "other processes' environments")
    formats = [v.text for o in ("-o", "-O", "--format") for v in parsed.values(o)]
    expect = False
    for word in parsed.operands:  # BSD-style options: letters without a dash
        if expect:
            formats.append(word.text)
            expect = False
            continue
        for pos, letter in enumerate(word.text):
            if letter == "e":
                return Access(False, "ps e prints other processes' environments, keys "
                                     "included")
            if letter in _PS_TAKES:
                rest = word.text[pos + 1:]
                formats.append(rest) if rest else None
                expect = not rest
                break
    if any(re.search(r"\benv", f) for f in formats):
        return Access(False, "ps with an environment column prints other processes' "
                             "environments, keys included")
    return Access(True)


def _jq(command: tuple[Word, ...]) -> Access:
    """``jq``: never writes; reads its input files, ``-f`` program files, ``--slurpfile``
    and ``--rawfile`` files and ``-L`` module folders."""
    reads: list[Word] = []
    program: Word | None = None
    from_file = strings = False
    index = 1
    while index < len(command):
        word, text = command[index], command[index].text
        index += 1
        if text == "--":
            reads.extend(command[index:] if not strings else ())
            break
        if word.dynamic and text.startswith(("$", '"', "'", "-")):
            return Access(False, "a word of jq is only known at run time")
        if text.startswith("--"):
            name = text[2:]
            takes = JQ_LONG.get(name)
            if takes is None:
                return Access(False, f"jq has an option agent-tui does not know: {text}")
            values = command[index:index + takes]
            index += takes
            if name in ("slurpfile", "rawfile", "argfile") and len(values) == 2:
                reads.append(values[1])
            elif name in ("from-file",):
                from_file = True
            elif name in ("args", "jsonargs"):
                strings = True
            elif name == "indent":
                pass
            continue
        if text.startswith("-") and len(text) > 1:
            for letter in text[1:]:
                if letter not in JQ_SHORT:
                    return Access(False, f"jq has an option agent-tui does not know: -{letter}")
                from_file = from_file or letter == "f"
            if "L" in text[1:] and index < len(command):
                reads.append(command[index])
                index += 1
            continue
        if program is None and not from_file:
            program = word
        elif not strings:
            reads.append(word)
    if program is not None:
        if program.dynamic:
            return Access(False, "the jq program is only known at run time")
        if re.search(r"\b(import|include)\b", program.text):
            return Access(False, "the jq program loads modules (import, include), which "
                                 "agent-tui does not follow")
    return Access(True, reads=tuple(w for w in reads if w.text != "-"))




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


def _line_end(script: str, start: int) -> int:
    newline = script.find("\n", start)
    return newline if newline >= 0 else len(script)
