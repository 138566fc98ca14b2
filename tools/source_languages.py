"""The languages code_search knows: tree-sitter grammars, the files written in each, and
readable query errors.

Grammars come from ``tree_sitter_language_pack``; this module maps a language name (or an
alias such as ``py``) to its grammar and file names, and turns tree-sitter's terse query
errors into a line, a caret and suggestions the model can act on.
"""

from __future__ import annotations

import difflib
import functools
import re
import typing
from dataclasses import dataclass
from pathlib import Path

from tree_sitter import Language, Parser
from tree_sitter_language_pack import SupportedLanguage, get_language, get_parser

LANGUAGE_EXTENSIONS: dict[str, tuple[str, ...]] = {
    "rust": (".rs",), "python": (".py", ".pyi"), "javascript": (".js", ".mjs", ".cjs", ".jsx"),
    "typescript": (".ts", ".mts", ".cts"), "tsx": (".tsx",), "go": (".go",), "java": (".java",),
    "c": (".c", ".h"), "cpp": (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h"),
    "haskell": (".hs", ".lhs"), "scheme": (".scm", ".ss", ".sld"), "racket": (".rkt",),
    "ruby": (".rb",), "php": (".php",), "csharp": (".cs",), "kotlin": (".kt", ".kts"),
    "swift": (".swift",), "scala": (".scala", ".sc"), "lua": (".lua",), "bash": (".sh", ".bash"),
    "zig": (".zig",), "elixir": (".ex", ".exs"), "erlang": (".erl", ".hrl"), "ocaml": (".ml",),
    "ocaml_interface": (".mli",), "julia": (".jl",), "dart": (".dart",),
    "clojure": (".clj", ".cljs", ".cljc"), "commonlisp": (".lisp", ".lsp", ".cl"),
    "elisp": (".el",), "html": (".html", ".htm"), "css": (".css",), "scss": (".scss",),
    "json": (".json",), "yaml": (".yaml", ".yml"), "toml": (".toml",), "sql": (".sql",),
    "markdown": (".md", ".markdown"), "r": (".r",), "perl": (".pl", ".pm"), "objc": (".m",),
    "hcl": (".hcl",), "terraform": (".tf", ".tfvars"), "nix": (".nix",), "vue": (".vue",),
    "svelte": (".svelte",), "fsharp": (".fs", ".fsx"), "groovy": (".groovy", ".gradle"),
    "powershell": (".ps1", ".psm1"), "solidity": (".sol",), "proto": (".proto",),
    "graphql": (".graphql", ".gql"), "cuda": (".cu", ".cuh"), "starlark": (".bzl", ".star"),
    "fortran": (".f90", ".f95", ".f03", ".f"), "purescript": (".purs",), "latex": (".tex",),
}
"""File extensions searched for each language; other pack languages use ``.<name>``."""
LANGUAGE_FILENAMES: dict[str, tuple[str, ...]] = {
    "dockerfile": ("Dockerfile",), "make": ("Makefile", "GNUmakefile", "makefile"),
    "cmake": ("CMakeLists.txt",), "starlark": ("BUILD", "BUILD.bazel", "WORKSPACE"),
}
"""Whole file names searched for languages whose files have no telling extension."""
LANGUAGE_ALIASES = {
    "py": "python", "rs": "rust", "js": "javascript", "jsx": "javascript", "ts": "typescript",
    "golang": "go", "c++": "cpp", "cxx": "cpp", "cs": "csharp", "c#": "csharp", "sh": "bash",
    "shell": "bash", "hs": "haskell", "rb": "ruby", "kt": "kotlin", "scm": "scheme",
    "rkt": "racket", "yml": "yaml", "md": "markdown", "lisp": "commonlisp", "ml": "ocaml",
    "emacs_lisp": "elisp", "objective_c": "objc", "c_sharp": "csharp",
}
COMMON_LANGUAGES = ("rust", "python", "javascript", "typescript", "tsx", "go", "java", "c", "cpp",
                    "haskell", "scheme", "racket")
"""Languages an unknown-language error names first."""


def supported_languages() -> list[str]:
    """Every language name the tree-sitter language pack offers."""
    return sorted(typing.get_args(SupportedLanguage))


@dataclass(frozen=True, slots=True)
class SourceLanguage:
    """A language to search: its pack name, grammar and the files that are written in it."""

    name: str
    grammar: Language
    extensions: tuple[str, ...]
    filenames: tuple[str, ...] = ()

    def matches(self, path: Path) -> bool:
        """True when ``path`` looks like a file of this language."""
        return path.suffix.lower() in self.extensions or path.name in self.filenames

    def parser(self) -> Parser:
        """A fresh parser (parsers are not shared between threads)."""
        return get_parser(self.name)  # type: ignore[arg-type]


def find_language(name: str) -> SourceLanguage | None:
    """The language called ``name`` (aliases such as ``py`` or ``c++`` accepted), or None."""
    key = name.strip().lower().replace("-", "_")
    key = LANGUAGE_ALIASES.get(key, key)
    if key not in typing.get_args(SupportedLanguage):
        return None
    try:
        grammar = get_language(key)  # type: ignore[arg-type]
    except Exception:  # the pack lists a few grammars it cannot load
        return None
    return SourceLanguage(key, grammar, LANGUAGE_EXTENSIONS.get(key, (f".{key}",)),
                          LANGUAGE_FILENAMES.get(key, ()))


@functools.cache
def _files_table() -> dict[str, str]:
    """Extension (lower case, with its dot) or whole file name -> the first language that
    claims it (``.h`` is C)."""
    table: dict[str, str] = {}
    for name, extensions in LANGUAGE_EXTENSIONS.items():
        for extension in extensions:
            table.setdefault(extension, name)
    for name, filenames in LANGUAGE_FILENAMES.items():
        for filename in filenames:
            table.setdefault(filename, name)
    return table


@functools.cache
def _cached_language(name: str) -> SourceLanguage | None:
    return find_language(name)


def language_of(path: Path) -> SourceLanguage | None:
    """The language ``path`` is written in, by its extension or whole name, or None."""
    table = _files_table()
    name = table.get(path.name) or table.get(path.suffix.lower())
    return _cached_language(name) if name else None


# --------------------------------------------------------------------------- query errors


_POSITION = re.compile(r" at row (\d+)(?:, column (\d+))?")
_NAMED = re.compile(r"^Invalid (node type|field name).*: (\S+)$")


def describe_query_error(query: str, message: str, language: SourceLanguage) -> str:
    """A tree-sitter query error as line and column (1-based), the line, a caret and a hint."""
    lines = query.splitlines() or [""]
    found = _POSITION.search(message)
    if found:
        row = int(found[1])
        column = int(found[2]) if found[2] is not None else None
        message = message[:found.start()] + message[found.end():]
    elif "EOF" in message:
        row, column = len(lines) - 1, len(lines[-1])  # unbalanced parentheses, mostly
        message += " (a parenthesis or bracket is not closed)"
    else:
        row, column = None, None
    where = "invalid query"
    if row is not None:
        where += f" at line {row + 1}" + (f", column {column + 1}" if column is not None else "")
    text = f"{where}: {message}"
    named = _NAMED.match(message)
    if named:
        text += _suggest(named[2], language.grammar, fields=named[1] == "field name")
    if row is not None and row < len(lines):
        text += f"\n    {lines[row]}"
        if column is not None:
            text += "\n    " + " " * column + "^"
    return text


def _suggest(name: str, grammar: Language, *, fields: bool) -> str:
    """``. Did you mean: a, b?`` from the grammar's node types or field names."""
    if fields:
        known = {grammar.field_name_for_id(i) for i in range(1, grammar.field_count + 1)}
    else:
        known = {grammar.node_kind_for_id(i) for i in range(grammar.node_kind_count)
                 if grammar.node_kind_is_named(i)}
    close = difflib.get_close_matches(name, sorted(k for k in known if k), n=5)
    return f". Did you mean: {', '.join(close)}?" if close else ""
