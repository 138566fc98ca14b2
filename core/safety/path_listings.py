"""Commands that list the project's paths, and whether ``xargs`` passes those paths on intact.

``find src -name '*.py' | xargs wc -l`` reads the files ``find`` lists, so it is judged as
``wc -l`` reading the files in ``src``, on one condition: every name ``xargs`` gets is one
of those paths. xargs splits its input at blanks and reads quotes and backslashes (or, with
``-0``, takes each NUL-terminated name whole), and it passes a word starting with ``-`` on
as an option. So :func:`listing_of` reads what a lister prints (``find``, ``fd``,
``git ls-files``, ``rg -l``/``--files``, ``grep -rl``, ``ls``), and :func:`names_problem`
looks at the names it can list there now: a blank, quote or backslash where xargs splits at
blanks, a newline where it splits at lines, a name that would be an option, a symbolic link
that leads out of the project. Any of those, or a listing too big to look through, and the
command asks as before.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from .git_index import IndexUnreadable, index_paths
from .git_repository import find_repository, repository_findings
from .option_tables import TABLES
from .shell_options import parse_options
from .shell_parts import FedNames, Listing, Part, Word
from .workspace import Workspace

MAX_LISTED = 20_000
"""How many paths agent-tui looks through for names xargs would misread."""

_FIND_PRINTS = frozenset({"-print", "-print0", "-prune", "-quit"})
"""find's actions that print names (or print nothing); every other action asks."""
_FIND_ACTIONS = frozenset(
    {
        "-delete",
        "-exec",
        "-execdir",
        "-fls",
        "-fprint",
        "-fprint0",
        "-fprintf",
        "-ls",
        "-ok",
        "-okdir",
        "-printf",
        "-follow",
        "-files0-from",
    }
)
"""find's actions that run, write or print more than names, and its options that follow
links or read the start folders from a file."""

_GREP_KEEPS = frozenset(
    "-l --files-with-matches -L --files-without-match -r --recursive -d --directories -i -y "
    "--ignore-case --no-ignore-case -w --word-regexp -x --line-regexp -v --invert-match -E "
    "-F -G -P --extended-regexp --fixed-strings --basic-regexp --perl-regexp -e --regexp -f "
    "--file --include --exclude --exclude-dir --exclude-from -Z --null -z --null-data -s "
    "--no-messages -q --quiet --silent -I -a --text --binary-files -U --binary -H "
    "--with-filename -h --no-filename -m --max-count -D --devices".split()
)
_RG_KEEPS = frozenset(
    "-l --files-with-matches --files-without-match --files -0 --null -i --ignore-case -S "
    "--smart-case -s --case-sensitive -w --word-regexp -x --line-regexp -v --invert-match -F "
    "--fixed-strings --no-fixed-strings -e --regexp -f --file -g --glob --iglob "
    "--glob-case-insensitive -t --type -T --type-not --type-add --type-clear -. --hidden "
    "--no-hidden --no-ignore --no-ignore-dot --no-ignore-exclude --no-ignore-files "
    "--no-ignore-global --no-ignore-parent --no-ignore-vcs --ignore-file -u --unrestricted "
    "-d --max-depth --max-filesize -m --max-count --sort --sortr -j --threads -U "
    "--multiline --multiline-dotall -P --pcre2 --engine -a --text --binary --no-binary "
    "--no-require-git --one-file-system --no-messages --no-ignore-messages -E --encoding "
    "--no-config --crlf --null-data --no-unicode --unicode".split()
)
_FD_KEEPS = frozenset(
    "-0 --print0 -H --hidden -I --no-ignore -u --unrestricted -s --case-sensitive -i "
    "--ignore-case -g --glob --regex -F --fixed-strings -e --extension -t --type -E "
    "--exclude -d --max-depth --min-depth --exact-depth -p --full-path "
    "--strip-cwd-prefix -S --size --changed-within --changed-before --newer --older "
    "--change-newer-than --change-older-than --changed-after -o --owner --prune "
    "--max-results --search-path --no-ignore-vcs --no-ignore-parent --ignore-file "
    "--one-file-system --and -j --threads".split()
)
_LS_KEEPS = frozenset(
    "-1 -A --almost-all -r --reverse -t -S -X -v -U -c -u "
    "--group-directories-first --sort --time".split()
)
_GIT_LS_FILES_FLAGS = frozenset("zcomdi")
_GIT_LS_FILES_LONG = frozenset(
    "--cached --others --modified --deleted --ignored --exclude-standard --directory "
    "--no-empty-directory --error-unmatch --exclude --exclude-from "
    "--exclude-per-directory".split()
)
_LISTS_WITHOUT_GIT = ("git ls-files", "rg", "fd", "fdfind")
"""Listers that never list inside a ``.git`` folder."""


def listing_of(part: Part) -> Listing | None:
    """What ``part`` prints when it only lists paths, one per name; None for anything else
    (or a lister whose options print more than names)."""
    if any(w.dynamic for w in part.command):
        return None
    name, argv = part.name, part.argv
    if name == "find":
        return _find(part.command)
    if name == "git" and argv[1:2] == ("ls-files",):
        return _git_ls_files(argv[2:])
    if name in ("grep", "egrep", "fgrep"):
        return _searcher(
            part,
            name,
            _GREP_KEEPS,
            ("-l", "--files-with-matches", "-L", "--files-without-match"),
            "-Z",
            "--null",
        )
    if name == "rg":
        return _searcher(
            part,
            name,
            _RG_KEEPS,
            ("-l", "--files-with-matches", "--files", "--files-without-match"),
            "-0",
            "--null",
        )
    if name in ("fd", "fdfind"):
        return _fd(part, name)
    if name == "ls":
        return _ls(part)
    return None


def _find(command: tuple[Word, ...]) -> Listing | None:
    argv = [w.text for w in command]
    index = 1
    while index < len(argv) and (argv[index] in ("-H", "-P", "-D") or argv[index].startswith("-O")):
        index += 2 if argv[index] == "-D" else 1
    if index < len(argv) and argv[index] == "-L":
        return None
    roots: list[Word] = []
    while index < len(argv) and not argv[index].startswith(("-", "(", "!", ")")):
        roots.append(command[index])
        index += 1
    expression = set(argv[index:])
    if expression & _FIND_ACTIONS or {"-print", "-print0"} <= expression:
        return None
    return Listing("find", tuple(roots) or (Word("."),), nul="-print0" in expression)


def _git_ls_files(args: tuple[str, ...]) -> Listing | None:
    nul = False
    index = 0
    pathspecs: list[str] = []
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            pathspecs.extend(args[index:])
            break
        if arg in ("-x", "-X"):
            index += 1
        elif arg.startswith("--"):
            if arg.split("=", 1)[0] not in _GIT_LS_FILES_LONG:
                return None
        elif arg.startswith("-") and len(arg) > 1:
            if not set(arg[1:]) <= _GIT_LS_FILES_FLAGS:
                return None
            nul = nul or "z" in arg
        else:
            pathspecs.append(arg)
    for spec in pathspecs:  # `:/` and `..` list paths above the folder, printed with ../
        if spec.startswith((":", "/")) or ".." in spec.split("/"):
            return None
    return Listing("git ls-files", (Word("."),), nul=nul, prefixed=False, from_index=True)


def _searcher(
    part: Part, name: str, keeps: frozenset[str], lists: tuple[str, ...], *nul_options: str
) -> Listing | None:
    """``grep -rl`` and ``rg -l``/``--files``: only the names of the files they search."""
    parsed = parse_options(part.command, 0, TABLES[name])
    options = {option for option, _ in parsed.given}
    if parsed.unknown or parsed.dynamic or not options <= keeps or not options & set(lists):
        return None
    operands = list(parsed.operands)
    if not parsed.has("-e", "--regexp", "-f", "--file", "--files") and operands:
        operands.pop(0)  # the pattern
    if name != "rg":
        directories = parsed.value("-d", "--directories")
        recursive = parsed.has("-r", "--recursive") or (
            directories is not None and "recurse".startswith(directories.text)
        )
        if not recursive and not operands:
            return None  # it reads its input and prints "(standard input)"
    nul = parsed.has(*nul_options)
    if not operands:  # it searches its folder and prints names without ./
        return Listing(name, (Word("."),), nul=nul, prefixed=False)
    return Listing(name, tuple(operands), nul=nul)


def _fd(part: Part, name: str) -> Listing | None:
    parsed = parse_options(part.command, 0, TABLES[name])
    options = {option for option, _ in parsed.given}
    if parsed.unknown or parsed.dynamic or not options <= _FD_KEEPS:
        return None
    operands = list(parsed.operands)
    roots = list(parsed.values("--search-path"))
    if not roots and operands:
        roots = operands[1:]
    return Listing(
        name,
        tuple(roots) or (Word("."),),
        nul=parsed.has("-0", "--print0"),
        prefixed=bool(roots) and not parsed.has("--strip-cwd-prefix"),
    )


def _ls(part: Part) -> Listing | None:
    parsed = parse_options(part.command, 0, TABLES["ls"])
    options = {option for option, _ in parsed.given}
    if parsed.unknown or parsed.dynamic or not options <= _LS_KEEPS or len(parsed.operands) > 1:
        return None
    return Listing("ls", tuple(parsed.operands) or (Word("."),), prefixed=False, recursive=False)


# -- the names a listing can print --------------------------------------------------------


def names_problem(fed: FedNames, cwd: Path | None, workspace: Workspace) -> str | None:
    """Why xargs may not get exactly the paths ``fed.listing`` lists from ``cwd``, as they
    are now, or None when every name passes intact and stays in the project."""
    listing = fed.listing
    if cwd is None:
        return "the folder it runs in is only known at run time"
    for root in listing.roots:
        real = workspace.resolve(root.text, cwd)
        if real is None or not workspace.inside(real):
            return f"{listing.program} lists paths in {root.text}, outside the project"
        if why := _name_problem(root.text, fed, first=True):
            return why
    listed: Iterable[tuple[str, Path | None]] = _listed(listing, cwd)
    if listing.from_index:
        names = _index_names(cwd)
        if isinstance(names, str):
            return names
        listed = itertools.chain(listed, ((name, None) for name in names))
    for count, (shown, path) in enumerate(listed, start=1):
        if count > MAX_LISTED:
            return (
                f"{listing.program} lists more than {MAX_LISTED:,} paths, more than "
                "agent-tui looks through for names xargs would misread"
            )
        if why := _name_problem(shown, fed, first=not listing.prefixed):
            return why
        if path is not None and os.path.islink(path):
            target = Path(os.path.realpath(path))
            if not workspace.inside(target):
                return (
                    f"{listing.program} lists {shown}, a symbolic link to {target}, "
                    "outside the project"
                )
    return None


def _name_problem(name: str, fed: FedNames, *, first: bool) -> str | None:
    """Why xargs would not pass ``name`` on as one argument that is not an option."""
    program = fed.listing.program
    if first and name.startswith("-"):
        return f"{program} lists {name!r}, which xargs would pass on as an option"
    if fed.separator == "nul":
        return None
    if "\n" in name:
        return (
            f"{program} lists {name!r}, whose newline xargs would split at; list the "
            "names NUL-separated and use xargs -0"
        )
    if fed.separator == "blank" and any(c.isspace() or c in "'\"\\" for c in name):
        return (
            f"{program} lists {name!r}, which xargs would split at its blanks or unquote; "
            "list the names NUL-separated and use xargs -0"
        )
    return None


def _listed(listing: Listing, cwd: Path) -> Iterator[tuple[str, Path | None]]:
    """Each name the listing can print from the folder (as printed), with its path."""
    skip_git = listing.program in _LISTS_WITHOUT_GIT
    for root in listing.roots:
        start = Path(os.path.join(cwd, os.path.expanduser(root.text)))
        if not listing.recursive:
            for entry in _entries(start):
                yield entry.name, cwd / entry.name
            continue
        shown_root = "" if not listing.prefixed else root.text.rstrip("/") + "/"
        yield from ((shown_root + rel, start / rel) for rel in _walk(start, skip_git))


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return list(found)
    except OSError:
        return []


def _walk(start: Path, skip_git: bool) -> Iterator[str]:
    """The paths below ``start`` relative to it, symbolic links not followed."""
    stack = [""]
    while stack:
        rel = stack.pop()
        for entry in _entries(start / rel if rel else start):
            if skip_git and entry.name == ".git":
                continue
            path = f"{rel}/{entry.name}" if rel else entry.name
            yield path
            if entry.is_dir(follow_symlinks=False):
                stack.append(path)


def _index_names(cwd: Path) -> list[str] | str:
    """The tracked paths below ``cwd`` relative to it, as ``git ls-files`` prints them, or
    why they cannot be read."""
    git_dir = find_repository(cwd)
    if git_dir is None:
        return []  # git ls-files fails outside a repository
    if git_dir.name != ".git" or repository_findings([git_dir]).worktrees:
        return (
            f"git ls-files lists the paths of the repository at {git_dir}, whose working "
            "tree agent-tui does not look through"
        )
    prefix = os.path.relpath(cwd, git_dir.parent)
    prefix = "" if prefix == "." else prefix + "/"
    try:
        config = (git_dir / "config").read_text(errors="replace").lower()
        names = index_paths(git_dir, 32 if "sha256" in config else 20)
    except (OSError, IndexUnreadable) as error:
        return f"git ls-files lists the paths of an index agent-tui cannot read ({error})"
    return [name[len(prefix) :] for name in names if name.startswith(prefix)]
