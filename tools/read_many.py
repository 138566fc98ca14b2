"""The read_many_files tool: several text files at once, found by path, folder or glob.

In a git repository only the files git would show are considered (``git ls-files`` with the
standard ignores), so build output and vendored folders stay out; a file named outright is
read even when ignored. Binary files, images and files over the size cap are skipped and
listed with the reason; the file and byte caps leave files out with a note saying which.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from ..core.text.glob_patterns import PathMatcher, glob_regex, has_magic, split_fixed, unescape
from ..core.text.text_files import BINARY_SAMPLE_BYTES, decode_text, is_binary
from .base import (
    Invocation,
    OutputCallback,
    Tool,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .file_walk import SKIP_DIRS, VCS_AND_CACHE_DIRS, git_ls_files, walk_files
from .fileio import split_lines
from .files import display_path, number_line
from .images import sniff_image
from .names import ToolName
from .syntax_check import syntax_checker

DEFAULT_MAX_FILES = 50
DEFAULT_MAX_TOTAL_BYTES = 400_000
DEFAULT_MAX_FILE_BYTES = 100_000
GIT_TIMEOUT_S = 10.0
"""How long ``git ls-files`` may take before the folder is walked without it."""
UNLISTED_SHOWN = 20
"""Names listed at most per note (skipped, left out)."""
_SKIPPED_DIRS = frozenset(SKIP_DIRS) | VCS_AND_CACHE_DIRS | {"venv"}
"""Folders walked past outside git repositories: grep's, plus other version control, virtual
environments and tool caches."""


def _excluded(relative: str, patterns: list[str]) -> bool:
    """Whether an exclude glob matches the path or a folder it is in; a glob without ``/``
    matches a name at any depth (``tests``, ``*.min.js``)."""
    for pattern in patterns:
        pattern = pattern.strip("/")
        if pattern and PathMatcher.parse(pattern, by_name="/" not in pattern).matches_within(
                relative):
            return True
    return False


def _git_files(directory: Path) -> set[Path] | None:
    """The files git shows under ``directory`` (tracked and untracked, ignores applied).

    None when ``directory`` is not in a git work tree or git is unavailable.
    """
    listed = git_ls_files(directory, "--cached", "--others", "--exclude-standard",
                          timeout=GIT_TIMEOUT_S)
    return None if listed is None else {directory / name for name in listed}


def _walk(base: Path) -> list[Path]:
    """Every file under ``base``, skipping version-control and cache folders."""
    return [base / name for name in walk_files(base, _SKIPPED_DIRS)]


@dataclass(slots=True)
class _Selection:
    """The files a call matched, in order, and notes on what was not used."""

    files: list[Path] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


def select_files(ctx: ToolContext, patterns: list[str], exclude: list[str]) -> _Selection:
    """Expand paths, folders and globs (relative to the project) into files, in order."""
    selection = _Selection()
    seen: set[Path] = set()
    listed = _git_files(ctx.workdir)
    for pattern in patterns:
        matches = _expand(ctx, pattern, listed)
        matches = [m for m in matches if not _excluded(display_path(ctx, m), exclude)]
        if not matches:
            selection.unmatched.append(pattern)
        for match in matches:
            if match not in seen:
                seen.add(match)
                selection.files.append(match)
    return selection


def _expand(ctx: ToolContext, pattern: str, listed: set[Path] | None) -> list[Path]:
    """The files one path, folder or glob names."""
    if not has_magic(pattern):
        path = ctx.resolve(unescape(pattern))
        if path.is_file():
            return [path]
        if not path.is_dir():
            return []
        return _files_under(path, listed, ctx.workdir)
    folder, rest = split_fixed(str(ctx.resolve(pattern)))
    base = Path(folder)
    if not base.is_dir():
        return []
    regex = glob_regex(rest)
    return [f for f in _files_under(base, listed, ctx.workdir)
            if regex.fullmatch(f.relative_to(base).as_posix())]


def _files_under(base: Path, listed: set[Path] | None, workdir: Path) -> list[Path]:
    """Files under ``base``; within the project's git work tree, only those git shows."""
    if listed is not None and base.is_relative_to(workdir):
        return sorted(f for f in listed if f.is_relative_to(base) and f.is_file())
    return _walk(base)


# --------------------------------------------------------------------------- the tool


class ReadManyFilesParams(ToolParams):
    """Arguments of read_many_files."""

    paths: list[str] = Field(
        min_length=1,
        description="Files, folders or globs relative to the project folder, e.g. "
                    "`src/app.py`, `docs`, `src/**/*.py`, `**/*.{ts,tsx}` (glob_files' "
                    "globs: `*` and `?` stay within one folder, `**/` spans folders, "
                    "`[abc]` and `{a,b}` choose; `\\[` names a literal `[`).")
    exclude: list[str] = Field(
        default_factory=list,
        description="Globs of files to leave out; a glob without `/` (e.g. `*.min.js`, "
                    "`tests`) matches a name at any depth, and a glob that matches a "
                    "folder leaves out everything in it.")
    max_files: int = Field(
        default=DEFAULT_MAX_FILES, ge=1, le=500, description="Files read at most.")
    max_total_bytes: int = Field(
        default=DEFAULT_MAX_TOTAL_BYTES, ge=1, le=2_000_000,
        description="Bytes read at most over all files.")
    max_file_bytes: int = Field(
        default=DEFAULT_MAX_FILE_BYTES, ge=1, le=1_000_000,
        description="Larger files are skipped (read them with read_file).")


class ReadManyFilesTool(Tool):
    """Reads several text files at once, each under a ``--- path ---`` header."""

    name = ToolName.READ_MANY_FILES
    kind = ToolKind.READ
    description = (
        "Read several text files in one call: give files, folders or globs (e.g. "
        "`src/**/*.py`). Each file comes under a `--- path ---` header with numbered lines "
        "like read_file's. In a git repository .gitignore'd files are left out; binary "
        "files, images and files over max_file_bytes are skipped and listed; caps on the "
        "number of files and total bytes say what was left out. Use read_file for one "
        "file or for pages of a large one."
    )
    Params = ReadManyFilesParams

    def create_invocation(self, params: ReadManyFilesParams,
                          ctx: ToolContext) -> ReadManyFilesInvocation:
        """Make the invocation."""
        return ReadManyFilesInvocation(self, params, ctx)


class ReadManyFilesInvocation(Invocation[ReadManyFilesParams]):
    """One read_many_files call."""

    def describe(self) -> str:
        """E.g. ``read_many_files src/**/*.py, README.md``."""
        return "read_many_files " + ", ".join(self.params.paths)

    def locations(self) -> list[Path]:
        """The paths named, resolved against the project folder: globs as given, a plain
        path with its escapes removed (the file it reads)."""
        return [self.ctx.resolve(p if has_magic(p) else unescape(p)) for p in self.params.paths]

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Find and read the files in a worker thread."""
        return await asyncio.to_thread(self.read)

    def read(self) -> ToolResult:
        """Find and read the files synchronously."""
        p, ctx = self.params, self.ctx
        selection = select_files(ctx, p.paths, p.exclude)
        if not selection.files:
            return ToolResult.failure(
                f"no files match {', '.join(p.paths)}"
                + (f" (after excluding {', '.join(p.exclude)})" if p.exclude else "")
                + ". Paths are relative to the project folder; in a git repository "
                "ignored files are left out. List files with the shell tool, e.g. "
                "`git ls-files` or `ls`")
        sections: list[str] = []
        skipped: list[str] = []
        left_out: list[str] = []
        total = 0
        for path in selection.files:
            shown = display_path(ctx, path)
            if len(sections) >= p.max_files:
                left_out.append(f"{shown} (max_files={p.max_files} reached)")
                continue
            try:
                st = path.stat()
                size = st.st_size
                if size > p.max_file_bytes:
                    skipped.append(f"{shown}: {size:,} bytes, over max_file_bytes="
                                   f"{p.max_file_bytes:,}; read it with read_file")
                    continue
                if total + size > p.max_total_bytes:
                    left_out.append(f"{shown} ({size:,} bytes; max_total_bytes="
                                    f"{p.max_total_bytes:,} reached)")
                    continue
                data = path.read_bytes()
            except OSError as exc:
                skipped.append(f"{shown}: cannot read ({exc.strerror or exc})")
                continue
            if sniff_image(data[:12]):
                skipped.append(f"{shown}: an image; look at it with read_image")
                continue
            if is_binary(data[:BINARY_SAMPLE_BYTES]):
                skipped.append(f"{shown}: binary ({len(data):,} bytes)")
                continue
            total += len(data)
            ctx.reads.record(path, data, st)
            syntax_checker.warm(path, data)
            lines = split_lines(decode_text(data).text)
            body = "\n".join(number_line(n, line) for n, line in enumerate(lines, start=1))
            sections.append(f"--- {shown} ---\n{body or '(empty file)'}")
        summary = (f"[read_many_files: {len(sections)} file(s), {total:,} bytes; "
                   f"{len(skipped)} skipped, {len(left_out)} left out by the caps]")
        parts = [summary, *sections]
        if skipped:
            parts.append("Skipped:\n" + _bullets(skipped))
        if left_out:
            parts.append("Left out (raise max_files/max_total_bytes, or read them in another "
                         "call):\n" + _bullets(left_out))
        if selection.unmatched:
            parts.append("Matched nothing: " + ", ".join(selection.unmatched))
        if not sections:
            return ToolResult(llm_content="Error: no file could be read.\n" + "\n".join(parts),
                              error="no file could be read: " + "; ".join(skipped + left_out))
        return ToolResult("\n".join(parts))


def _bullets(items: list[str]) -> str:
    """Items as ``- item`` lines, at most ``UNLISTED_SHOWN`` then a count of the rest."""
    lines = [f"- {item}" for item in items[:UNLISTED_SHOWN]]
    if len(items) > UNLISTED_SHOWN:
        lines.append(f"- ... and {len(items) - UNLISTED_SHOWN} more")
    return "\n".join(lines)
