"""The syntax check after every edit: did the change add a syntax error?

A file whose language tree-sitter knows (by its extension or name) is parsed before and after
an edit; an ERROR or MISSING node in the new tree that the old tree did not have (at the same
place, once the edit's shift is taken into account) is an error the edit added. Errors the
file already had are not blamed on the edit.

An incremental re-parse costs a small part of a full parse of a long file. So the tree of
each file is kept (a few files, least recently used go), keyed by the
hash of its bytes: it is parsed in the background when a read tool reads the file, the tree
after an edit comes from an incremental re-parse of the tree before it, and that tree serves
the next edit of the file. The approval's check and the write's check of one call share one
result.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from tree_sitter import Node, Parser, Point, Tree

from .source_languages import LANGUAGE_EXTENSIONS, LANGUAGE_FILENAMES, find_language

MAX_CHECK_BYTES = 4 * 1024 * 1024
"""Files larger than this are not checked (their parse would cost more than the edit)."""
KEPT_TREES = 16
"""Parse trees kept (one per file version); the least recently used go first."""
REPORTED_ERRORS = 3
"""Added errors described one by one; more are counted."""
SNIPPET_CHARS = 40
"""Characters of source quoted for an error."""
LINE_CHARS = 100
"""Characters of an error's line quoted beside it."""

_LANGUAGE_OF_SUFFIX: dict[str, str] = {}
for _language, _suffixes in LANGUAGE_EXTENSIONS.items():
    for _suffix in _suffixes:
        _LANGUAGE_OF_SUFFIX.setdefault(_suffix, _language)  # `.h` stays C, listed first
_LANGUAGE_OF_NAME = {name: language for language, names in LANGUAGE_FILENAMES.items()
                     for name in names}


def language_of(path: Path) -> str | None:
    """The tree-sitter language a file is written in, by its name, or None."""
    return _LANGUAGE_OF_NAME.get(path.name) or _LANGUAGE_OF_SUFFIX.get(path.suffix.lower())


@dataclass(frozen=True, slots=True)
class SyntaxError_:
    """One ERROR or MISSING node: where it starts, what it is, and the line it is on."""

    kind: str  # "ERROR" or the missing token's type
    missing: bool
    start_byte: int
    end_byte: int
    line: int  # 1-based
    column: int  # 1-based, in bytes
    parent: str
    snippet: str
    source_line: str  # stripped, at most LINE_CHARS

    def sentence(self) -> str:
        """E.g. ``line 12, column 9: missing ")" in argument_list; the line reads "f(a, b"``."""
        where = f"line {self.line}, column {self.column}"
        if self.missing:
            what = f'{where}: missing "{self.kind}" in {self.parent}'
        else:
            what = f'{where}: syntax error in {self.parent} near "{self.snippet}"'
        if self.source_line and self.source_line != self.snippet:
            what += f'; the line reads "{self.source_line}"'
        return what


@dataclass(frozen=True, slots=True)
class SyntaxReport:
    """What an edit did to a file's syntax.

    Attributes:
        language: The tree-sitter language the file was parsed as.
        added: The errors the edit added, in file order.
        before: How many errors the file had before the edit.
        after: How many it has after.
    """

    language: str
    added: tuple[SyntaxError_, ...]
    before: int
    after: int

    def sentences(self, shown: str) -> list[str]:
        """One warning naming the file and the first errors (empty when nothing was added)."""
        if not self.added:
            return []
        described = "; ".join(e.sentence() for e in self.added[:REPORTED_ERRORS])
        more = len(self.added) - REPORTED_ERRORS
        tail = f"; and {more} more" if more > 0 else ""
        noun = "a syntax error" if len(self.added) == 1 else f"{len(self.added)} syntax errors"
        already = (f" (the file already had {self.before} before it)" if self.before else "")
        return [f"this edit adds {noun} to {shown} ({self.language}){already}: "
                f"{described}{tail}"]


class SyntaxChecker:
    """Parse trees of the files being edited, and the check of one edit against them.

    Thread-safe: tools run in worker threads; each thread has its own parsers.
    """

    def __init__(self, kept: int = KEPT_TREES) -> None:
        self._kept = kept
        self._lock = threading.Lock()
        self._trees: OrderedDict[tuple[str, str], Future[Tree | None]] = OrderedDict()
        self._reports: OrderedDict[tuple[str, str, str], SyntaxReport | None] = OrderedDict()
        self._local = threading.local()
        self._pool: ThreadPoolExecutor | None = None
        self.full_parses = 0
        """Full parses done (incremental re-parses are not counted): for tests."""

    def clear(self) -> None:
        """Forget every tree and result (the next check of each file parses it whole)."""
        with self._lock:
            self._trees.clear()
            self._reports.clear()

    def has_tree(self, path: Path, data: bytes, timeout: float | None = None) -> bool:
        """Whether the tree of this content of ``path`` is kept, once a background parse of
        it has ended (waiting at most ``timeout`` seconds)."""
        with self._lock:
            found = self._trees.get((str(path), _digest(data)))
        if found is None:
            return False
        try:
            return found.result(timeout) is not None
        except TimeoutError:
            return False

    def warm(self, path: Path, data: bytes) -> None:
        """Parse ``data`` (the content of ``path`` a tool just read) in the background, so
        that a later edit of it finds its tree ready."""
        language = language_of(path)
        if language is None or len(data) > MAX_CHECK_BYTES:
            return
        key = (str(path), _digest(data))
        with self._lock:
            if key in self._trees:
                return
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="agent-tui-syntax")
            self._remember(key, self._pool.submit(self._parse_full, language, data))

    def check(self, path: Path, before: bytes | None, after: bytes) -> SyntaxReport | None:
        """Whether changing ``path`` from ``before`` (None: a new file) to ``after`` adds a
        syntax error; None when the file's language is unknown, it is too large, or its
        grammar cannot be loaded."""
        language = language_of(path)
        if language is None or max(len(before or b""), len(after)) > MAX_CHECK_BYTES:
            return None
        before_hash, after_hash = _digest(before or b""), _digest(after)
        report_key = (str(path), before_hash, after_hash)
        with self._lock:
            if report_key in self._reports:
                self._reports.move_to_end(report_key)
                return self._reports[report_key]
        report = self._check(path, language, before, after, before_hash, after_hash)
        with self._lock:
            self._reports[report_key] = report
            while len(self._reports) > self._kept:
                self._reports.popitem(last=False)
        return report

    # -- internals ---------------------------------------------------------------------

    def _check(self, path: Path, language: str, before: bytes | None, after: bytes,
               before_hash: str, after_hash: str) -> SyntaxReport | None:
        old_tree = self._tree(path, language, before, before_hash) if before else None
        if before and old_tree is None:
            return None
        if old_tree is not None and before is not None:
            new_tree = self._reparse(language, old_tree, before, after)
        else:
            new_tree = self._parse_full(language, after)
        if new_tree is None:
            return None
        with self._lock:
            self._remember((str(path), after_hash), _done(new_tree))
        after_errors = list(_errors(new_tree, after)) if new_tree.root_node.has_error else []
        if not after_errors:
            before_count = len(list(_errors(old_tree, before or b""))) \
                if old_tree is not None and old_tree.root_node.has_error else 0
            return SyntaxReport(language, (), before_count, 0)
        old_errors = list(_errors(old_tree, before or b"")) if old_tree is not None else []
        start, old_end, new_end = _edited_span(before or b"", after)
        shift = new_end - old_end
        known = {(e.kind, e.start_byte if e.start_byte < start else e.start_byte + shift)
                 for e in old_errors if e.start_byte < start or e.start_byte >= old_end}
        # Inside the edited bytes positions cannot be matched; an error of a kind the old
        # text there already had (as many times) is the same error, left as it was.
        inside = Counter(e.kind for e in old_errors if start <= e.start_byte < old_end)
        added_errors: list[SyntaxError_] = []
        for error in after_errors:
            if (error.kind, error.start_byte) in known:
                continue
            if start <= error.start_byte < new_end and inside[error.kind] > 0:
                inside[error.kind] -= 1
                continue
            added_errors.append(_at_edit(error, start, after))
        added = tuple(added_errors)
        return SyntaxReport(language, added, len(old_errors), len(after_errors))

    def _tree(self, path: Path, language: str, data: bytes, digest: str) -> Tree | None:
        with self._lock:
            found = self._trees.get((str(path), digest))
            if found is not None:
                self._trees.move_to_end((str(path), digest))
        if found is not None:
            return found.result()
        tree = self._parse_full(language, data)
        with self._lock:
            self._remember((str(path), digest), _done(tree))
        return tree

    def _remember(self, key: tuple[str, str], tree: Future[Tree | None]) -> None:
        self._trees[key] = tree
        self._trees.move_to_end(key)
        while len(self._trees) > self._kept:
            self._trees.popitem(last=False)

    def _parser(self, language: str) -> Parser | None:
        parsers: dict[str, Parser | None] = self._local.__dict__.setdefault("parsers", {})
        if language not in parsers:
            found = find_language(language)
            try:
                parsers[language] = found.parser() if found is not None else None
            except Exception:  # noqa: BLE001 - a grammar the pack lists but cannot load
                parsers[language] = None
        return parsers[language]

    def _parse_full(self, language: str, data: bytes) -> Tree | None:
        parser = self._parser(language)
        if parser is None:
            return None
        self.full_parses += 1
        return parser.parse(data)

    def _reparse(self, language: str, old: Tree, before: bytes, after: bytes) -> Tree | None:
        parser = self._parser(language)
        if parser is None:
            return None
        start, old_end, new_end = _edited_span(before, after)
        edited = old.copy()  # the cached tree stays as it was, for another edit of that text
        edited.edit(start_byte=start, old_end_byte=old_end, new_end_byte=new_end,
                    start_point=_point(before, start), old_end_point=_point(before, old_end),
                    new_end_point=_point(after, new_end))
        return parser.parse(after, edited)


syntax_checker = SyntaxChecker()
"""The checker every edit tool shares (trees are keyed by path and content)."""


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _done(tree: Tree | None) -> Future[Tree | None]:
    future: Future[Tree | None] = Future()
    future.set_result(tree)
    return future


def _point(data: bytes, offset: int) -> Point:
    row = data.count(b"\n", 0, offset)
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Point(row, offset - line_start)


def _edited_span(before: bytes, after: bytes) -> tuple[int, int, int]:
    """(start, old end, new end) of the one byte range in which ``before`` and ``after``
    differ: their common prefix and suffix, found by halving (slice comparisons run in C)."""
    limit = min(len(before), len(after))
    low, high = 0, limit  # the common prefix is at least low and at most high bytes
    while low < high:
        middle = (low + high + 1) // 2
        if before[low:middle] == after[low:middle]:
            low = middle
        else:
            high = middle - 1
    prefix = low
    low, high = 0, limit - prefix
    while low < high:
        middle = (low + high + 1) // 2
        if before[len(before) - middle:len(before) - low] == \
                after[len(after) - middle:len(after) - low]:
            low = middle
        else:
            high = middle - 1
    suffix = low
    return prefix, len(before) - suffix, len(after) - suffix


def _errors(tree: Tree, source: bytes) -> Iterator[SyntaxError_]:
    """The tree's ERROR and MISSING nodes, outermost first, in file order."""
    stack: list[Node] = [tree.root_node]
    found: list[SyntaxError_] = []
    while stack:
        node = stack.pop()
        if node.is_missing or node.type == "ERROR":
            found.append(_describe(node, source))
            if node.type == "ERROR":
                continue  # its inside is the same error
        if node.has_error:
            stack.extend(reversed(node.children))
    yield from sorted(found, key=lambda e: e.start_byte)


def _describe(node: Node, source: bytes) -> SyntaxError_:
    row, column = node.start_point
    parent = node.parent.type if node.parent is not None else "the file"
    line = _line_at(source, node.start_byte)
    if node.is_missing:
        return SyntaxError_(node.type, True, node.start_byte, node.end_byte, row + 1, column + 1,
                            parent, "", line)
    text = source[node.start_byte:min(node.end_byte, node.start_byte + 4 * SNIPPET_CHARS)]
    lines = [line.strip() for line in text.decode("utf-8", "replace").splitlines()]
    snippet = next((line for line in lines if line), "")[:SNIPPET_CHARS]
    return SyntaxError_("ERROR", False, node.start_byte, node.end_byte, row + 1, column + 1,
                        "the file" if parent == "module" else parent, snippet, line)


def _line_at(source: bytes, offset: int) -> str:
    """The line of ``source`` that holds byte ``offset``, stripped and shortened."""
    start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    line = source[start:end if end != -1 else len(source)].decode("utf-8", "replace").strip()
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 1] + "…"


def _at_edit(error: SyntaxError_, start: int, source: bytes) -> SyntaxError_:
    """An ERROR that tree-sitter's recovery began before the edited bytes and that covers
    them, pointed at the edit: the line the edit changed says more than the line where the
    parser's recovery happened to start."""
    if error.missing or not error.start_byte < start < error.end_byte:
        return error
    point = _point(source, start)
    line_end = source.find(b"\n", start)
    rest = source[start:line_end if line_end != -1 else len(source)]
    snippet = rest.decode("utf-8", "replace").strip()[:SNIPPET_CHARS]
    return replace(error, start_byte=start, line=point.row + 1, column=point.column + 1,
                   snippet=snippet or error.snippet, source_line=_line_at(source, start))


def syntax_guard(settings: object) -> str:
    """The run's ``edit_syntax_guard``: ``warn`` (also without settings), ``refuse``, ``off``."""
    return getattr(settings, "edit_syntax_guard", "warn") or "warn"


@dataclass(frozen=True, slots=True)
class EditSyntax:
    """The syntax check's verdict on one edit, in the words the edit tools need.

    Attributes:
        warnings: One sentence naming the file and the errors the edit added (empty: none,
            or the check was off or could not run); for ``ToolResult.warnings`` and the
            approval's ``Confirmation.warnings``.
        refused: The edit adds errors and ``edit_syntax_guard = "refuse"``: do not write it.
        fixed: The file had syntax errors and has none after the edit.
        kept: The syntax errors the file still has, all of them there before the edit
            (the edit added none); said in the result, so the model knows the file's state.
    """

    warnings: list[str]
    refused: bool = False
    fixed: bool = False
    kept: int = 0

    def refusal(self) -> str:
        """The failure message of an edit that is not written."""
        return (f"nothing was written: {'; '.join(self.warnings)}. The person set "
                'edit_syntax_guard = "refuse", so edits that add syntax errors are not '
                "written. Fix the new text (balance brackets and quotes, keep the "
                "indentation) and redo the edit; read the file again if you are unsure of "
                "its content")

    def result_text(self, text: str) -> str:
        """A written edit's result text with the warnings (or the fix) after it."""
        if self.fixed:
            return text + "\nThe file has no syntax errors now."
        if self.kept:
            errors = "a syntax error" if self.kept == 1 else f"{self.kept} syntax errors"
            return text + (f"\nNote: the file still has {errors} it had before this "
                           "edit; the edit added none.")
        return text + "".join(
            f"\nWarning: {w}. Fix it with another edit unless it is intended."
            for w in self.warnings)


def check_edit(settings: object, path: Path, shown: str, before: bytes | None,
               after: bytes) -> EditSyntax:
    """What changing ``path`` (shown to people as ``shown``) from ``before`` (None: a new
    file) to ``after`` does to its syntax, under the run's ``edit_syntax_guard``. Never
    raises: a check that fails leaves the edit as it would be without it."""
    guard = syntax_guard(settings)
    if guard == "off":
        return EditSyntax([])
    try:
        report = syntax_checker.check(path, before, after)
    except Exception:  # noqa: BLE001 - the check is advice; the edit goes on without it
        return EditSyntax([])
    if report is None:
        return EditSyntax([])
    warnings = report.sentences(shown)
    return EditSyntax(warnings, refused=bool(warnings) and guard == "refuse",
                      fixed=report.before > 0 and report.after == 0,
                      kept=report.after if not warnings else 0)
