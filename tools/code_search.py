"""The code_search tool: syntax-aware search with tree-sitter queries over the project's files.

Parse trees and each file's matches stay in memory between calls (``SYNTAX_CACHE``, see
``syntax_cache``), keyed by the file's path, size and modification time, so searching again
costs a ``stat`` per file. Languages and query errors live in ``source_languages``.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field
from tree_sitter import Parser, Query, QueryCursor, QueryError, Tree

from ..core.text.text_files import BINARY_SAMPLE_BYTES
from .base import Invocation, OutputCallback, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from .file_walk import SKIP_DIRS, VCS_AND_CACHE_DIRS, git_ls_files, walk_files
from .files import display_path
from .names import ToolName
from .source_languages import (
    COMMON_LANGUAGES,
    SourceLanguage,
    describe_query_error,
    find_language,
    supported_languages,
)
from .syntax_cache import SYNTAX_CACHE, FileKey, Match, SyntaxCache

SOURCE_SKIP_DIRS = frozenset(SKIP_DIRS) | VCS_AND_CACHE_DIRS | {"target"}
"""Folders never searched, whatever .gitignore says: grep's, plus other version control,
build output and tool caches."""
MAX_FILE_BYTES = 4 * 1024 * 1024
"""Larger files (generated or minified code, mostly) are skipped."""
MAX_TEXT_CHARS = 200
"""Characters of a match's first line shown before it is cut."""
GIT_TIMEOUT_S = 30.0
"""How long listing a folder's files with git may take before the folder is walked instead."""


# --------------------------------------------------------------------------- searching


@dataclass(slots=True)
class SearchJob:
    """One search, validated: its compiled query and the paths to look in."""

    name: str
    language: SourceLanguage
    query_text: str
    query: Query
    roots: list[Path]
    context_lines: int
    max_matches: int


@dataclass(slots=True)
class SearchOutcome:
    """What one search found."""

    job: SearchJob
    files: list[tuple[Path, tuple[Match, ...]]] = field(default_factory=list)
    match_count: int = 0
    files_total: int = 0
    files_searched: int = 0
    files_matched: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    truncated: bool = False
    error: str | None = None


def list_source_files(roots: list[Path], wanted: Callable[[Path], bool]) -> list[Path]:
    """Files under ``roots`` that ``wanted`` accepts, sorted; files named directly always count.

    Folders are listed with ``git ls-files`` (so .gitignore is respected) when they are in a
    git work tree, else walked; ``SOURCE_SKIP_DIRS`` are left out either way.
    """
    found: set[Path] = set()
    for root in roots:
        if not root.is_dir():
            found.add(root)
            continue
        listed = git_ls_files(root, "--cached", "--others", "--exclude-standard",
                              timeout=GIT_TIMEOUT_S) or []
        # --cached lists files deleted from the work tree but not yet from the index
        listed = [rel for rel in listed if os.path.lexists(root / rel)]
        for rel in listed if listed else walk_files(root, SOURCE_SKIP_DIRS):
            path = root / rel
            if wanted(path) and SOURCE_SKIP_DIRS.isdisjoint(rel.split("/")):
                found.add(path)
    return sorted(found)


def run_search(job: SearchJob, cancelled: threading.Event,
               cache: SyntaxCache = SYNTAX_CACHE) -> SearchOutcome:
    """Run one search to the end, or until ``max_matches`` is passed or ``cancelled`` is set.

    Blocking: call it in a worker thread.
    """
    outcome = SearchOutcome(job)
    files = list_source_files(job.roots, job.language.matches)
    outcome.files_total = len(files)
    parser: Parser | None = None
    for path in files:
        if cancelled.is_set():
            break
        try:
            st = path.stat()
        except OSError:
            outcome.skipped["unreadable"] += 1
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        if st.st_size > MAX_FILE_BYTES:
            outcome.skipped[f"over {MAX_FILE_BYTES // (1024 * 1024)} MB"] += 1
            continue
        key: FileKey = (str(path), st.st_size, st.st_mtime_ns, job.language.name)
        matches = cache.matches(key, job.query_text)
        if matches is None:
            parsed = cache.tree(key)
            if parsed is None:
                parser = parser or job.language.parser()
                parsed = _parse(path, parser, outcome)
                if parsed is None:
                    continue
                cache.store_tree(key, *parsed)
            matches = _query(job.query, *parsed)
            cache.store_matches(key, job.query_text, matches)
        outcome.files_searched += 1
        if not matches:
            continue
        outcome.files_matched += 1
        room = job.max_matches - outcome.match_count
        outcome.files.append((path, matches[:room]))
        outcome.match_count += min(len(matches), room)
        if len(matches) > room:
            outcome.truncated = True
            break
    return outcome


def _parse(path: Path, parser: Parser, outcome: SearchOutcome) -> tuple[Tree, bytes] | None:
    """The file's tree and bytes, or None (counted in ``outcome.skipped``)."""
    try:
        source = path.read_bytes()
    except OSError:
        outcome.skipped["unreadable"] += 1
        return None
    if b"\0" in source[:BINARY_SAMPLE_BYTES]:  # cheaper than is_binary; code has no NUL
        outcome.skipped["binary"] += 1
        return None
    try:
        return parser.parse(source), source
    except Exception:  # tree-sitter recovers from syntax errors; this is a parser failure
        outcome.skipped["could not parse"] += 1
        return None


def _query(query: Query, tree: Tree, source: bytes) -> tuple[Match, ...]:
    """Every captured node of ``query`` in ``tree``, in source order."""
    found = [(node.start_byte, -node.end_byte, name, node)
             for name, nodes in QueryCursor(query).captures(tree.root_node).items()
             for node in nodes]
    found.sort(key=lambda item: item[:3])
    matches = []
    for start, _, name, node in found:
        row, byte_col = node.start_point
        line_start = start - byte_col
        newline = source.find(b"\n", start, start + 4 * MAX_TEXT_CHARS)
        end = min(node.end_byte, newline if newline >= 0 else start + 4 * MAX_TEXT_CHARS)
        text = source[start:end].decode("utf-8", "replace").rstrip("\r")
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS] + "…"
        column = len(source[line_start:start].decode("utf-8", "replace")) + 1
        matches.append(Match(row + 1, column, name, text))
    return tuple(matches)


# --------------------------------------------------------------------------- the tool


class SearchSpec(ToolParams):
    """One search of a code_search call."""

    name: str = Field(description="A label for this search; results are grouped under it.")
    query: str = Field(
        description="A tree-sitter query (S-expression). Capture each node to report with "
                    "@name, e.g. `(function_definition name: (identifier) @name)` (python) or "
                    "`(function_item name: (identifier) @name)` (rust). Predicates such as "
                    "`(#eq? @name \"main\")` and `(#match? @name \"^test_\")` work.")
    language: str = Field(
        description="Language of the files to search: rust, python, javascript, typescript, "
                    "tsx, go, java, c, cpp, haskell, scheme, racket, or another "
                    "tree-sitter-language-pack name (ruby, csharp, kotlin, bash, …).")
    paths: list[str] | None = Field(
        default=None,
        description="Files or folders to search, relative to the project folder (default: "
                    "the project folder). Folders are searched for the language's file "
                    "extensions, respecting .gitignore.")
    context_lines: int = Field(
        default=0, ge=0, le=20, description="Lines of source shown before and after each match.")


class CodeSearchParams(ToolParams):
    """Arguments of code_search."""

    searches: list[SearchSpec] = Field(min_length=1, description="The searches to run.")
    max_concurrency: int = Field(
        default=4, ge=1, le=16, description="How many searches run at the same time.")
    max_matches_per_search: int = Field(
        default=500, ge=1, le=100_000,
        description="A search stops after this many matches and says so.")


class CodeSearchTool(Tool):
    """Searches source files with tree-sitter queries, so matches follow syntax, not text."""

    name = ToolName.CODE_SEARCH
    kind = ToolKind.READ
    description = (
        "Syntax-aware code search: run tree-sitter queries (S-expressions) over the project's "
        "source files and get every captured node as `path:line:col: capture=@name first line "
        "of the node`, grouped by search. Use it to find definitions, calls or patterns that "
        "grep cannot tell apart (e.g. functions with a given decorator, calls inside loops). "
        "Several searches run in one call. A bad query comes back with the line and column "
        "of the mistake."
    )
    Params = CodeSearchParams

    def create_invocation(self, params: CodeSearchParams, ctx: ToolContext) -> CodeSearchInvocation:
        """Make the invocation."""
        return CodeSearchInvocation(self, params, ctx)


class CodeSearchInvocation(Invocation[CodeSearchParams]):
    """One code_search call."""

    def describe(self) -> str:
        """E.g. ``code_search: functions, classes``."""
        return "code_search: " + ", ".join(s.name for s in self.params.searches)

    def locations(self) -> list[Path]:
        """The files and folders searched."""
        return sorted({root for spec in self.params.searches for root in self._roots(spec)})

    def _roots(self, spec: SearchSpec) -> list[Path]:
        return [self.ctx.resolve(p) for p in spec.paths] if spec.paths else [self.ctx.workdir]

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Validate every search, then run them in worker threads, a few at a time."""
        jobs: list[SearchJob] = []
        problems: list[str] = []
        for spec in self.params.searches:
            job = self._job(spec)
            if isinstance(job, str):
                problems.append(f"- search {spec.name!r}: {job}")
            else:
                jobs.append(job)
        if problems:
            return ToolResult.failure(
                "code_search did not run:\n" + "\n".join(problems)
                + "\nFix these searches and call code_search again.")
        started = time.perf_counter()
        SYNTAX_CACHE.begin()
        cancelled = threading.Event()
        gate = asyncio.Semaphore(self.params.max_concurrency)

        async def one(job: SearchJob) -> SearchOutcome:
            async with gate:
                try:
                    return await asyncio.to_thread(run_search, job, cancelled)
                except Exception as exc:  # a bug must not take the other searches down
                    return SearchOutcome(job, error=f"{type(exc).__name__}: {exc}")

        try:
            outcomes = await asyncio.gather(*(one(job) for job in jobs))
        except BaseException:
            cancelled.set()  # worker threads cannot be interrupted; they stop at the next file
            raise
        return ToolResult(self._render(outcomes, time.perf_counter() - started))

    def _job(self, spec: SearchSpec) -> SearchJob | str:
        """The runnable search, or what is wrong with it."""
        language = find_language(spec.language)
        if language is None:
            others = [n for n in supported_languages() if n not in COMMON_LANGUAGES]
            return (f"unknown language {spec.language!r}. Supported: "
                    f"{', '.join(COMMON_LANGUAGES)}; also {', '.join(others)}")
        roots = self._roots(spec)
        missing = [p for p in roots if not p.exists()]
        if missing:
            return (f"path not found: {display_path(self.ctx, missing[0])}; pass existing "
                    "files or folders, relative to the project folder")
        try:
            query = Query(language.grammar, spec.query)
        except QueryError as exc:
            return describe_query_error(spec.query, str(exc), language)
        if query.capture_count == 0:
            return ("the query captures nothing, so there is nothing to report; put @name "
                    "after each node to show, e.g. `(function_definition) @def`")
        return SearchJob(spec.name, language, spec.query, query, roots, spec.context_lines,
                         self.params.max_matches_per_search)

    def _render(self, outcomes: list[SearchOutcome], elapsed: float) -> str:
        total = sum(o.match_count for o in outcomes)
        header = [f"code_search: {total:,} match{'es' * (total != 1)} in {len(outcomes)} "
                  f"search{'es' * (len(outcomes) != 1)} ({elapsed:.2f} s)"]
        header += [f"- {summary_line(o)}" for o in outcomes]
        parts = ["\n".join(header)]
        lines_cache: dict[Path, list[str]] = {}
        limit = self.ctx.output_limit if self.ctx.output_limit > 0 else sys.maxsize
        size = len(parts[0])
        for o in outcomes:
            body = [f"=== {o.job.name} ({o.job.language.name}) ==="]
            if o.error:
                body.append(f"search failed: {o.error}")
            for path, matches in o.files:
                if size > limit:  # _cap cuts here; rendering the rest would be wasted
                    break
                shown = display_path(self.ctx, path)
                for match in matches:
                    line = (f"{shown}:{match.line}:{match.column}: capture=@{match.capture} "
                            f"{match.text}")
                    body.append(line)
                    size += len(line) + 1
                    if o.job.context_lines:
                        around = _context(path, match.line, o.job.context_lines, lines_cache)
                        body.extend(around)
                        size += sum(len(x) + 1 for x in around)
            if o.truncated:
                body.append(
                    f"[stopped at {o.job.max_matches:,} matches (max_matches_per_search) after "
                    f"{o.files_searched:,} of {o.files_total:,} files; narrow `paths` or the "
                    "query, or raise max_matches_per_search]")
            parts.append("\n".join(body))
        return _cap("\n\n".join(parts), self.ctx.output_limit)


def summary_line(o: SearchOutcome) -> str:
    """E.g. ``functions (python): 12 matches in 3 of 10 files; 1 skipped (binary: 1)``."""
    n = o.match_count
    text = (f"{o.job.name} ({o.job.language.name}): {n:,}{'+' if o.truncated else ''} "
            f"match{'es' * (n != 1)} in {o.files_matched:,} of {o.files_searched:,} "
            f"file{'s' * (o.files_searched != 1)}")
    if o.skipped:
        reasons = ", ".join(f"{why}: {count}" for why, count in sorted(o.skipped.items()))
        text += f"; {o.skipped.total()} skipped ({reasons})"
    if o.truncated:
        text += " (stopped early)"
    if o.error:
        text += " (failed)"
    return text


def _context(path: Path, line: int, around: int, cache: dict[Path, list[str]]) -> list[str]:
    """Numbered source lines around ``line``, the match's own marked with ``>``."""
    lines = cache.get(path)
    if lines is None:
        try:
            lines = path.read_bytes().decode("utf-8", "replace").splitlines()
        except OSError:
            lines = []
        cache[path] = lines
    first, last = max(line - around, 1), min(line + around, len(lines))
    out = []
    for n in range(first, last + 1):
        text = lines[n - 1]
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS] + "…"
        out.append(f"{'>' if n == line else ' '}{n:>6}  {text}")
    return out


def _cap(text: str, limit: int) -> str:
    """``text`` cut at a line boundary near ``limit`` characters, with a note."""
    if limit <= 0 or len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    cut = cut if cut > 0 else limit
    return (f"{text[:cut]}\n[output cut at {cut:,} characters; the counts above are complete. "
            "Lower max_matches_per_search or context_lines, or narrow `paths`]")



