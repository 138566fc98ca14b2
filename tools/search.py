"""The search tools: ls, glob_files and grep.

glob_files and grep list files the way ripgrep does (``.gitignore`` honoured in a git
repository, hidden files included, ``.git``, ``node_modules``, ``__pycache__`` and ``.venv``
skipped) and use ``rg`` when it is installed. Without it they fall back to ``git ls-files``
(or ``os.walk`` outside a repository) and Python's ``re``, and print exactly the same output.
The backends live in ``grep_engines`` and ``file_walk``; this module holds the tools and
lays out their results.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import AliasChoices, Field

from ..core.text.counts import counted
from .base import Invocation, OutputCallback, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from .file_walk import PathGlob, list_files_like_rg
from .files import display_path
from .grep_engines import (
    RG_COMMON_ARGS,
    Backend,
    Hit,
    decode_file,
    parse_rg,
    rg_files,
    rg_prefilter,
    ripgrep,
    run_process,
    search_lines,
)
from .names import ToolName

MAX_GLOB_RESULTS = 1_000
"""Paths glob_files returns at most."""
MAX_LS_ENTRIES = 1_000
"""Entries ls shows at most."""
MAX_MATCH_CHARS = 500
"""Characters of one line grep shows before it cuts the line."""



def _shown(text: str) -> str:
    """A path from the file system, printable (undecodable bytes become U+FFFD)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _dir_problem(path: Path, shown: str) -> str | None:
    """Why ``path`` cannot be searched as a folder, or None when it can."""
    if path.is_dir():
        return None
    if path.exists():
        return (f"{shown} is a file, not a folder; read it with read_file, or pass the folder "
                "that contains it")
    return f"folder not found: {shown}. Check the path; ls of its parent folder shows what exists"


# --------------------------------------------------------------------------- ls


class LsParams(ToolParams):
    """Arguments of ls."""

    path: str = Field(
        default=".", validation_alias=AliasChoices("path", "dir_path"),
        description="Folder to list, absolute or relative to the project folder "
                    "(default: the project folder).")
    ignore: list[str] | None = Field(
        default=None,
        description='Glob patterns of entry names to leave out, e.g. ["*.pyc", "dist"].')


class LsTool(Tool):
    """Lists the entries of one folder."""

    name = ToolName.LS
    kind = ToolKind.READ
    description = (
        "List the entries of one folder (not recursive): folders first, marked with a "
        "trailing `/`, then files with their sizes, each group sorted by name. `.git` is "
        "hidden. To find files by name across folders use glob_files; to search contents "
        "use grep."
    )
    Params = LsParams

    def create_invocation(self, params: LsParams, ctx: ToolContext) -> LsInvocation:
        """Make the invocation."""
        return LsInvocation(self, params, ctx)


class LsInvocation(Invocation[LsParams]):
    """One ls call."""

    @property
    def path(self) -> Path:
        """The folder, resolved against the project folder."""
        return self.ctx.resolve(self.params.path)

    def describe(self) -> str:
        """E.g. ``ls src``."""
        return f"ls {display_path(self.ctx, self.path)}"

    def locations(self) -> list[Path]:
        """The folder listed."""
        return [self.path]

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """List the folder in a worker thread."""
        return await asyncio.to_thread(self._list)

    def _list(self) -> ToolResult:
        path, shown = self.path, display_path(self.ctx, self.path)
        problem = _dir_problem(path, shown)
        if problem:
            return ToolResult.failure(problem)
        ignore = self.params.ignore or []
        dirs: list[str] = []
        files: list[str] = []
        left_out = 0
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as exc:
            return ToolResult.failure(f"cannot list {shown}: {exc.strerror or exc}")
        for entry in entries:
            if entry.name == ".git":
                continue
            if any(fnmatch.fnmatchcase(entry.name, pattern) for pattern in ignore):
                left_out += 1
                continue
            name = _shown(entry.name)
            try:
                if entry.is_dir():
                    dirs.append(f"{name}/")
                else:
                    files.append(f"{name}  {entry.stat().st_size:,} bytes")
            except OSError:
                files.append(f"{name}  (broken link or unreadable)")
        rows = dirs + files
        head = f"{shown}: {counted(len(dirs), 'folder')}, {counted(len(files), 'file')}"
        if left_out:
            head += f" ({left_out:,} left out by ignore)"
        if not rows:
            return ToolResult(f"{head}; the folder is empty" if not left_out else head)
        body = "\n".join([head, *rows[:MAX_LS_ENTRIES]])
        if len(rows) > MAX_LS_ENTRIES:
            body += (f"\n[... {len(rows) - MAX_LS_ENTRIES:,} more entries not shown; use "
                     "glob_files to find what you need]")
        return ToolResult(body)


# --------------------------------------------------------------------------- glob_files


class GlobFilesParams(ToolParams):
    """Arguments of glob_files."""

    pattern: str = Field(
        description="Glob matched against paths relative to dir: `*` and `?` stay within "
                    "one folder, `**` crosses folders, `{a,b}` alternates, e.g. `**/*.py`, "
                    "`src/**/*.{ts,tsx}`, `*.md` (top level only).")
    dir: str | None = Field(
        default=None, validation_alias=AliasChoices("dir", "path"),
        description="Folder to search in, absolute or relative to the project folder "
                    "(default: the project folder).")


class _SearchTool(Tool):
    """A tool that searches with rg when it can.

    Args:
        backend: ``"rg"`` or ``"python"`` to force one (tests and benchmarks run both);
            None uses rg when it is installed.
    """

    def __init__(self, backend: Backend | None = None) -> None:
        self.backend = backend

    def rg(self) -> str | None:
        """The rg to run, or None to search in Python."""
        return ripgrep() if self.backend != "python" else None


class GlobFilesTool(_SearchTool):
    """Finds files whose paths match a glob."""

    name = ToolName.GLOB_FILES
    kind = ToolKind.READ
    description = (
        "Find files (not folders) whose paths match a glob pattern. Returns paths relative "
        "to the searched folder, one per line, sorted by path, at most "
        f"{MAX_GLOB_RESULTS:,}. Files ignored by .gitignore and the folders .git, "
        "node_modules, __pycache__ and .venv are left out; hidden files are included."
    )
    Params = GlobFilesParams

    def create_invocation(self, params: GlobFilesParams, ctx: ToolContext) -> GlobFilesInvocation:
        """Make the invocation."""
        return GlobFilesInvocation(self, params, ctx)


class GlobFilesInvocation(Invocation[GlobFilesParams]):
    """One glob_files call."""

    @property
    def root(self) -> Path:
        """The folder searched."""
        return self.ctx.resolve(self.params.dir) if self.params.dir else self.ctx.workdir

    def describe(self) -> str:
        """E.g. ``glob_files **/*.py in src``."""
        return f"glob_files {self.params.pattern} in {display_path(self.ctx, self.root)}"

    def locations(self) -> list[Path]:
        """The folder searched."""
        return [self.root]

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """List the files with rg or, without it, git/os.walk; filter them by the glob."""
        root, shown = self.root, display_path(self.ctx, self.root)
        problem = _dir_problem(root, shown)
        if problem:
            return ToolResult.failure(problem)
        pattern = self.params.pattern.strip().removeprefix("./")
        if not pattern:
            return ToolResult.failure("pattern is empty; pass a glob such as `**/*.py`")
        glob = PathGlob.parse(pattern, anchored=True)
        rg = self.tool.rg() if isinstance(self.tool, _SearchTool) else ripgrep()
        try:
            if rg:
                paths = await rg_files(rg, root, rg_prefilter(pattern, anchored=True),
                                        self.ctx.env)
            else:
                paths = await asyncio.to_thread(list_files_like_rg, root, self.ctx.env)
        except OSError as exc:
            return ToolResult.failure(f"cannot list the files of {shown}: {exc}")
        found = [_shown(p) for p in paths if glob.keeps(p)]
        if not found:
            return ToolResult(f"No files match `{pattern}` in {shown} (files ignored by "
                              ".gitignore are left out).")
        lines = [f"{counted(len(found), 'file')} matching `{pattern}` in {shown} (paths "
                 "relative to it, sorted by path):", *found[:MAX_GLOB_RESULTS]]
        if len(found) > MAX_GLOB_RESULTS:
            lines.append(f"[... and {len(found) - MAX_GLOB_RESULTS:,} more files not shown; "
                         "narrow the pattern or the folder]")
        return ToolResult("\n".join(lines))


# --------------------------------------------------------------------------- grep


class GrepParams(ToolParams):
    """Arguments of grep."""

    pattern: str = Field(
        description="Regular expression (Python `re` syntax) searched line by line, e.g. "
                    r"`def \w+_test`, `TODO|FIXME`. Escape `( [ { . * + ?` to match them.")
    path: str = Field(
        default=".",
        description="Folder or file to search, absolute or relative to the project folder "
                    "(default: the project folder).")
    glob: str | None = Field(
        default=None, validation_alias=AliasChoices("glob", "include"),
        description="Only search files matching this glob: `*.py` or `*.{ts,tsx}` match "
                    "names at any depth, `src/**/*.py` matches paths; `!*.min.js` excludes.")
    context: int = Field(
        default=0, ge=0, le=10, description="Lines shown before and after each match, 0-10.")
    max_results: int = Field(
        default=200, ge=1, le=2_000, description="Matching lines shown at most (default 200).")
    case_sensitive: bool = Field(
        default=True, description="Match case exactly (default true).")


class GrepTool(_SearchTool):
    """Searches file contents for a regular expression."""

    name = ToolName.GREP
    kind = ToolKind.READ
    description = (
        "Search file contents for a regular expression, line by line. Matching lines are "
        "printed as `path:42: text`, context lines as `path-41- text`, with `--` between "
        "separate groups; paths relative to the project folder. Files ignored by .gitignore, "
        "binary files and the folders .git, node_modules, __pycache__ and .venv are skipped."
    )
    Params = GrepParams

    def create_invocation(self, params: GrepParams, ctx: ToolContext) -> GrepInvocation:
        """Make the invocation."""
        return GrepInvocation(self, params, ctx)


class GrepInvocation(Invocation[GrepParams]):
    """One grep call."""

    @property
    def path(self) -> Path:
        """The folder or file searched."""
        return self.ctx.resolve(self.params.path)

    def describe(self) -> str:
        """E.g. ``grep "def main" in src (*.py)``."""
        p = self.params
        where = f" ({p.glob})" if p.glob else ""
        return f'grep "{p.pattern}" in {display_path(self.ctx, self.path)}{where}'

    def locations(self) -> list[Path]:
        """The folder or file searched."""
        return [self.path]

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Search with rg or, without it (or for a regex rg rejects), with Python's ``re``."""
        p, target = self.params, self.path
        shown = display_path(self.ctx, target)
        if not p.pattern:
            return ToolResult.failure("pattern is empty; pass the regular expression to find")
        flags = re.MULTILINE | (0 if p.case_sensitive else re.IGNORECASE)
        try:
            regex = re.compile(p.pattern, flags)
        except re.error as exc:
            return ToolResult.failure(
                f"invalid regular expression {p.pattern!r}: {exc}. Fix it, or escape special "
                r"characters with a backslash (e.g. `foo\(` to find `foo(`)")
        if not target.exists():
            return ToolResult.failure(
                f"path not found: {shown}. Check the path; ls of its parent folder shows "
                "what exists")
        is_file = not target.is_dir()
        root = target.parent if is_file else target
        if is_file and decode_file(target) is None:
            return ToolResult(f"No matches for `{p.pattern}` in {shown}: it is a binary file "
                              "(or unreadable, or over 64 MiB) and grep searches text only.")
        rg = self.tool.rg() if isinstance(self.tool, _SearchTool) else ripgrep()
        hits: dict[str, list[Hit]] | None = None
        if rg:
            searched = await self._rg(rg, root, target.name if is_file else ".")
            if isinstance(searched, ToolResult):
                return searched
            hits = searched
        if hits is None:  # no rg, or a regex only Python's re understands
            hits = await asyncio.to_thread(self._python, regex, root, target, is_file)
        prefix = display_path(self.ctx, root)
        prefix = "" if prefix == "." else prefix.rstrip("/") + "/"
        return _grep_result(hits, prefix, p, shown, self.ctx.output_limit)

    async def _rg(self, rg: str, root: Path,
                  target: str) -> dict[str, list[Hit]] | ToolResult | None:
        """Search with rg; None when rg rejects the regex (Rust syntax differs from re)."""
        p = self.params
        try:
            code, out, err = await run_process(rg_grep_command(rg, p, target), root, self.ctx.env)
        except OSError as exc:
            return ToolResult.failure(f"cannot run rg in {root}: {exc.strerror or exc}")
        message = err.decode(errors="replace").strip()
        if code == 2 and "regex" in message.lower():
            return None
        if code not in (0, 1) and not out:
            return ToolResult.failure(f"rg failed: {message or f'exit code {code}'}")
        found = await asyncio.to_thread(parse_rg, out)
        if p.glob and target == ".":
            glob = PathGlob.parse(p.glob)
            found = {path: hits for path, hits in found.items() if glob.keeps(path)}
        return found

    def _python(self, regex: re.Pattern[str], root: Path, target: Path,
                is_file: bool) -> dict[str, list[Hit]]:
        """The fallback search (blocking)."""
        if is_file:
            paths = [target.name]
        else:
            paths = list_files_like_rg(root, self.ctx.env)
            if self.params.glob:
                glob = PathGlob.parse(self.params.glob)
                paths = [path for path in paths if glob.keeps(path)]
        found: dict[str, list[Hit]] = {}
        for rel in paths:
            text = decode_file(root / rel)
            if text is None or not regex.search(text):
                continue
            hits = search_lines(regex, text, self.params.context)
            if hits:
                found[rel] = hits
        return found


def rg_grep_command(rg: str, p: GrepParams, target: str) -> list[str]:
    """The rg command grep runs for ``p`` on ``target`` (relative to its working folder)."""
    return [rg, *RG_COMMON_ARGS, "--null", "--line-number", "--with-filename", "--no-heading",
            "--color=never", f"--context={p.context}",
            "--case-sensitive" if p.case_sensitive else "--ignore-case",
            *rg_prefilter(p.glob), "--regexp", p.pattern, "--", target]


@dataclass(slots=True)
class _GrepOutput:
    """grep's result lines, kept under ``limit`` characters."""

    limit: int
    lines: list[str]
    used: int = 0
    cut: bool = False

    def add(self, line: str) -> bool:
        """Append ``line`` unless it would pass the limit (then ``cut`` is set)."""
        if self.used + len(line) + 1 > self.limit:
            self.cut = True
            return False
        self.lines.append(line)
        self.used += len(line) + 1
        return True


def _grep_result(hits: dict[str, list[Hit]], prefix: str, p: GrepParams, shown: str,
                 limit: int) -> ToolResult:
    """Lay out the hits of either backend, identically."""
    total = sum(1 for file_hits in hits.values() for _, match, _ in file_hits if match)
    if not total:
        where = f" (files matching {p.glob})" if p.glob else ""
        hint = "; the search is case-sensitive, set case_sensitive=false to ignore case" \
            if p.case_sensitive else ""
        return ToolResult(f"No matches for `{p.pattern}` in {shown}{where}{hint}.")
    out = _GrepOutput(limit=max(limit - 300, 1_000), lines=[])
    shown_matches = 0
    for name in sorted(hits):
        path = _shown(prefix + name)
        previous: int | None = None
        cutoff: int | None = None  # after the last shown match: its trailing context only
        for number, match, text in hits[name]:
            if cutoff is not None and (match or number > cutoff):
                break
            if p.context and ((previous is None and out.lines)
                              or (previous is not None and number > previous + 1)):
                if not out.add("--"):
                    break
            text = text.removesuffix("\r")
            if len(text) > MAX_MATCH_CHARS:
                text = f"{text[:MAX_MATCH_CHARS]} [... {len(text):,} characters in the line]"
            if not out.add(f"{path}:{number}: {text}" if match else f"{path}-{number}- {text}"):
                break
            previous = number
            if match:
                shown_matches += 1
                if shown_matches == p.max_results:
                    cutoff = number + p.context
        if cutoff is not None or out.cut:
            break
    summary = f"{counted(total, 'match')} in {counted(len(hits), 'file')}"
    if shown_matches < total:
        why = (f"the output reached {out.limit:,} characters" if out.cut
               else f"max_results={p.max_results}")
        summary += (f"; showing the first {shown_matches:,} ({why}). Narrow the pattern, path "
                    "or glob" + (", or raise max_results" if not out.cut else ""))
    return ToolResult("\n".join([*out.lines, f"[{summary}]"]))
