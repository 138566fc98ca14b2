"""The tags of the repository map: what each source file defines and which names it uses.

A file's tags come from tree-sitter: its definitions (classes, functions, methods, types…)
from a query per language, with the lines of the definitions around each one (a method's
class), and its references: every identifier that is not a definition's own name. They are
kept in :class:`TagsCache`, persisted as JSON and keyed by each file's size and modification
time, then by a hash of its content, so an unchanged file is never parsed twice.

The grammars and the file tables are the tools' (``tools/source_languages``): core/runtime
hands them in as a :class:`SourceGrammar` lookup.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Protocol

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from ..text.text_files import atomic_write_text

CACHE_VERSION = 1
"""Bump when the queries or the stored fields change: older caches are then ignored."""
MAX_FILE_BYTES = 1024 * 1024
"""Larger source files (generated or vendored, mostly) give no tags."""
MAX_LINE_CHARS = 100
"""Characters of a definition's line kept for the map."""
REFERENCE_KINDS = ("identifier", "type_identifier", "field_identifier", "property_identifier",
                   "constant", "namespace_identifier")
"""Node kinds that name something, in the grammars that have them."""

_JS = """
(function_declaration name: (identifier) @name) @def
(generator_function_declaration name: (identifier) @name) @def
(method_definition name: (property_identifier) @name) @def
(variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (class)]) @def
"""
_TS = _JS + """
(class_declaration name: (type_identifier) @name) @def
(abstract_class_declaration name: (type_identifier) @name) @def
(interface_declaration name: (type_identifier) @name) @def
(type_alias_declaration name: (type_identifier) @name) @def
(enum_declaration name: (identifier) @name) @def
(function_signature name: (identifier) @name) @def
(method_signature name: (property_identifier) @name) @def
(abstract_method_signature name: (property_identifier) @name) @def
(internal_module name: (identifier) @name) @def
"""
_C = """
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @def
(function_definition declarator: (pointer_declarator
  declarator: (function_declarator declarator: (identifier) @name))) @def
(declaration declarator: (function_declarator declarator: (identifier) @name)) @def
(struct_specifier name: (type_identifier) @name body: (_)) @def
(union_specifier name: (type_identifier) @name body: (_)) @def
(enum_specifier name: (type_identifier) @name body: (_)) @def
(type_definition declarator: (type_identifier) @name) @def
(preproc_function_def name: (identifier) @name) @def
"""
DEFINITION_QUERIES: dict[str, str] = {
    "python": """
(class_definition name: (identifier) @name) @def
(function_definition name: (identifier) @name) @def
(module (expression_statement (assignment left: (identifier) @name) @def))
""",
    "javascript": _JS + "(class_declaration name: (identifier) @name) @def\n",
    "typescript": _TS,
    "tsx": _TS,
    "go": """
(function_declaration name: (identifier) @name) @def
(method_declaration name: (field_identifier) @name) @def
(type_spec name: (type_identifier) @name) @def
(method_elem name: (field_identifier) @name) @def
""",
    "rust": """
(function_item name: (identifier) @name) @def
(function_signature_item name: (identifier) @name) @def
(struct_item name: (type_identifier) @name) @def
(enum_item name: (type_identifier) @name) @def
(union_item name: (type_identifier) @name) @def
(trait_item name: (type_identifier) @name) @def
(type_item name: (type_identifier) @name) @def
(mod_item name: (identifier) @name) @def
(macro_definition name: (identifier) @name) @def
(const_item name: (identifier) @name) @def
(static_item name: (identifier) @name) @def
(impl_item) @scope
""",
    "java": """
(class_declaration name: (identifier) @name) @def
(interface_declaration name: (identifier) @name) @def
(enum_declaration name: (identifier) @name) @def
(record_declaration name: (identifier) @name) @def
(annotation_type_declaration name: (identifier) @name) @def
(method_declaration name: (identifier) @name) @def
(constructor_declaration name: (identifier) @name) @def
""",
    "c": _C,
    "cpp": _C + """
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier name: (identifier) @name))) @def
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @def
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @def
(class_specifier name: (type_identifier) @name body: (_)) @def
(namespace_definition) @scope
""",
    "ruby": """
(class name: (constant) @name) @def
(module name: (constant) @name) @def
(method name: (identifier) @name) @def
(singleton_method name: (identifier) @name) @def
""",
    "csharp": """
(class_declaration name: (identifier) @name) @def
(interface_declaration name: (identifier) @name) @def
(struct_declaration name: (identifier) @name) @def
(enum_declaration name: (identifier) @name) @def
(record_declaration name: (identifier) @name) @def
(method_declaration name: (identifier) @name) @def
(constructor_declaration name: (identifier) @name) @def
(namespace_declaration) @scope
""",
}
"""Per language: each definition as ``@def`` with its name as ``@name``; ``@scope`` marks
nodes that define nothing themselves but whose first line frames the definitions inside
(a Rust ``impl``, a C++ namespace)."""


class SourceGrammar(Protocol):
    """A language the map can read: its pack name, grammar and a parser for it."""

    @property
    def name(self) -> str: ...

    @property
    def grammar(self) -> Language: ...

    def parser(self) -> Parser: ...


LanguageOf = Callable[[Path], SourceGrammar | None]
"""The language a file is written in (by its name), or None."""


class Definition(NamedTuple):
    """One name a file defines.

    Attributes:
        name: The name.
        line: Its definition's first line (0-based).
        scopes: The first lines of the definitions around it, outermost first.
    """

    name: str
    line: int
    scopes: tuple[int, ...] = ()


@dataclass(slots=True)
class FileTags:
    """What one version of a file defines and references.

    Attributes:
        size, mtime_ns, digest: The version (its stat, and a hash of its bytes).
        definitions: Its definitions in source order.
        references: How often it uses each name it does not define there itself.
        lines: The text of every line a definition or its scopes start on.
    """

    size: int
    mtime_ns: int
    digest: str
    definitions: list[Definition] = field(default_factory=list)
    references: dict[str, int] = field(default_factory=dict)
    lines: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Queries:
    definitions: Query
    references: Query | None


_QUERY_LOCK = threading.Lock()
_COMPILED: dict[str, _Queries] = {}


def has_tags(language: SourceGrammar) -> bool:
    """Whether the map knows the definitions of ``language``."""
    return language.name in DEFINITION_QUERIES


def _queries(language: SourceGrammar) -> _Queries:
    with _QUERY_LOCK:
        found = _COMPILED.get(language.name)
        if found is None:
            grammar = language.grammar
            kinds = [k for k in REFERENCE_KINDS if grammar.id_for_node_kind(k, True)]
            references = (Query(grammar, " ".join(f"({k}) @ref" for k in kinds))
                          if kinds else None)
            found = _Queries(Query(grammar, DEFINITION_QUERIES[language.name]), references)
            _COMPILED[language.name] = found
        return found


def extract_tags(source: bytes, language: SourceGrammar, parser: Parser) -> FileTags:
    """The tags of ``source`` (its version fields left for the caller to fill in)."""
    queries = _queries(language)
    root = parser.parse(source).root_node
    frames: dict[int, int] = {}  # start byte of a definition or scope -> its first line
    named: list[tuple[str, Node]] = []
    name_starts: set[int] = set()
    for _, captures in QueryCursor(queries.definitions).matches(root):
        node = captures.get("def", captures.get("scope", [None]))[0]
        if node is None:
            continue
        frames[node.start_byte] = node.start_point.row
        names = captures.get("name")
        if names:
            name_starts.add(names[0].start_byte)
            named.append((_text(source, names[0]), node))
    tags = FileTags(0, 0, "")
    lines = source.splitlines()
    for name, node in sorted(named, key=lambda item: item[1].start_byte):
        scopes = _scopes(node, frames)
        tags.definitions.append(Definition(name, node.start_point.row, scopes))
        for row in (node.start_point.row, *scopes):
            if row not in tags.lines and row < len(lines):
                tags.lines[row] = lines[row].decode("utf-8", "replace").rstrip()[:MAX_LINE_CHARS]
    if queries.references is not None:
        counts: Counter[bytes] = Counter()
        for nodes in QueryCursor(queries.references).captures(root).values():
            for node in nodes:
                start = node.start_byte
                if start not in name_starts:
                    counts[source[start:node.end_byte]] += 1
        tags.references = {name.decode("utf-8", "replace"): n for name, n in counts.items()}
    return tags


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _scopes(node: Node, frames: dict[int, int]) -> tuple[int, ...]:
    """The first lines of the definitions and scopes enclosing ``node``, outermost first."""
    rows: list[int] = []
    parent = node.parent
    while parent is not None:
        row = frames.get(parent.start_byte)
        if row is not None and row != node.start_point.row and (not rows or rows[-1] != row):
            rows.append(row)
        parent = parent.parent
    return tuple(reversed(rows))


@dataclass(frozen=True, slots=True)
class TagsStats:
    """What one :meth:`TagsCache.update` did: files parsed, reused, and gone."""

    parsed: int
    reused: int
    removed: int


class TagsCache:
    """The tags of a project's source files, persisted as JSON in ``path``.

    A file whose size and modification time are unchanged is reused as it is; one whose
    stat changed but whose bytes hash the same is reused too (a checkout, a touch); only
    the others are parsed. Not thread-safe: one refresh at a time (the map holds a lock).

    Args:
        root: The project folder; files are keyed by their path relative to it.
        path: The JSON file; None keeps the tags in memory only.
    """

    def __init__(self, root: Path, path: Path | None) -> None:
        self.root = root
        self.path = path
        self.files: dict[str, FileTags] = {}
        self.parses = 0
        """Files parsed since this cache was made (the tests count them)."""
        self._loaded = False
        self._dirty = False

    def update(self, files: list[Path], language_of: LanguageOf) -> TagsStats:
        """Bring the tags up to date with ``files`` (absolute paths under the root); files
        no longer listed are forgotten. Blocking: parses and reads files."""
        self._load()
        parsers: dict[str, Parser] = {}
        fresh: dict[str, FileTags] = {}
        parsed = reused = 0
        for path in files:
            language = language_of(path)
            if language is None or not has_tags(language):
                continue
            try:
                st = path.stat()
            except OSError:
                continue
            rel = path.relative_to(self.root).as_posix()
            old = self.files.get(rel)
            if old is not None and (old.size, old.mtime_ns) == (st.st_size, st.st_mtime_ns):
                fresh[rel] = old
                reused += 1
                continue
            tags = self._read(path, st, language, parsers, old)
            if tags is None:
                continue
            if tags is old:
                reused += 1
            else:
                parsed += 1
            fresh[rel] = tags
        removed = len(self.files.keys() - fresh.keys())
        self._dirty |= bool(parsed or removed) or fresh.keys() != self.files.keys()
        self.files = fresh
        return TagsStats(parsed, reused, removed)

    def _read(self, path: Path, st: os.stat_result, language: SourceGrammar,
              parsers: dict[str, Parser], old: FileTags | None) -> FileTags | None:
        if st.st_size > MAX_FILE_BYTES:
            return None
        try:
            source = path.read_bytes()
        except OSError:
            return None
        if b"\0" in source[:8192]:
            return None
        digest = hashlib.blake2b(source, digest_size=16).hexdigest()
        if old is not None and old.digest == digest:
            old.size, old.mtime_ns = st.st_size, st.st_mtime_ns
            self._dirty = True
            return old
        parser = parsers.get(language.name)
        if parser is None:
            parser = parsers[language.name] = language.parser()
        try:
            tags = extract_tags(source, language, parser)
        except Exception:  # a parser failure: the file is left out of the map
            return None
        self.parses += 1
        tags.size, tags.mtime_ns, tags.digest = st.st_size, st.st_mtime_ns, digest
        return tags

    def save(self) -> None:
        """Write the cache if it changed (blocking); a failure to write is not an error:
        the next session parses again."""
        if self.path is None or not self._dirty:
            return
        # Definitions are tuples and line numbers become strings: json writes them as is.
        data = {"version": CACHE_VERSION, "files": {
            rel: [t.size, t.mtime_ns, t.digest, t.definitions, t.references, t.lines]
            for rel, t in self.files.items()}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, json.dumps(data, ensure_ascii=False,
                                                    separators=(",", ":")))
        except OSError:
            return
        self._dirty = False

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self.path is None:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") != CACHE_VERSION:
                return
            self.files = {
                rel: FileTags(size, mtime, digest,
                              [Definition(n, line, tuple(scopes)) for n, line, scopes in defs],
                              refs, {int(k): v for k, v in lines.items()})
                for rel, (size, mtime, digest, defs, refs, lines) in data["files"].items()}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            self.files = {}  # unreadable or from another version: built again
