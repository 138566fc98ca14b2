"""Markdown files with a YAML front matter block: skills, custom commands, personas.

```
---
name: review-diff
description: Review the staged diff before a commit.
---
The body, in Markdown.
```

A malformed file is reported with its path and the line at fault, so the person can fix it
while the rest of the files load.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

FENCE = "---"


class FrontmatterError(Exception):
    """A file's front matter is malformed.

    Attributes:
        path: The file.
        line: The 1-based line at fault (0 when the whole file is at fault).
        problem: What is wrong, in a sentence.
    """

    def __init__(self, path: Path, line: int, problem: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True, slots=True)
class MarkdownDocument:
    """A Markdown file split into its front matter and its body.

    Attributes:
        path: The file.
        meta: The front matter's mapping ({} when the file has none).
        body: The text after the front matter.
        body_line: The 1-based line the body starts on.
    """

    path: Path
    meta: dict[str, Any]
    body: str
    body_line: int

    def text(self, key: str, *, required: bool = False, default: str = "") -> str:
        """The string value of ``key``, stripped.

        Raises:
            FrontmatterError: it is missing though required, or not a string.
        """
        value = self.meta.get(key)
        if value is None:
            if required:
                raise FrontmatterError(self.path, 1, f"the front matter has no `{key}`; "
                                       f"add a line `{key}: …` between the --- lines")
            return default
        if not isinstance(value, str | int | float):
            raise FrontmatterError(self.path, 1, f"`{key}` must be text, not {_kind(value)}")
        return str(value).strip()

    def names(self, key: str) -> tuple[str, ...]:
        """A list of names under ``key``: a YAML list, or one string of names separated by
        commas or spaces outside parentheses (``allowed-tools: read_file, shell(git log:*)``);
        () when absent.

        Raises:
            FrontmatterError: the value is neither.
        """
        value = self.meta.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            return tuple(_split_names(value))
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(item.strip() for item in value if item.strip())
        raise FrontmatterError(self.path, 1, f"`{key}` must be a list of names, "
                               f"not {_kind(value)}")


def parse_markdown(path: Path, text: str) -> MarkdownDocument:
    """Split ``text`` (the content of ``path``) into front matter and body.

    A file that does not start with ``---`` has no front matter: all of it is the body.

    Raises:
        FrontmatterError: the block is not closed, is not YAML, or is not a mapping.
    """
    import yaml

    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != FENCE:
        return MarkdownDocument(path, {}, text, 1)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == FENCE), None)
    if end is None:
        raise FrontmatterError(path, 1, "the front matter opened with --- is never closed; "
                               "add a line --- after it")
    block = "".join(lines[1:end])
    try:
        meta = _load_yaml(yaml, block) if block.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None and mark.line >= end - 1:
            # Found only at the block's end (an unclosed bracket): where it opened says more.
            mark = getattr(exc, "context_mark", None) or mark
        line = mark.line + 2 if mark is not None else 1  # +1 for 1-based, +1 for the fence
        problem = getattr(exc, "problem", None) or str(exc)
        raise FrontmatterError(path, line, f"the front matter is not valid YAML ({problem})"
                               ) from None
    if not isinstance(meta, dict):
        raise FrontmatterError(path, 2, "the front matter must be `key: value` lines, "
                               f"not {_kind(meta)}")
    return MarkdownDocument(path, {str(k): v for k, v in meta.items()},
                            "".join(lines[end + 1:]), end + 2)


def _load_yaml(yaml: Any, block: str) -> Any:
    """The block's value: libyaml's loader when it is there (discovery reads every skill at
    start-up, where the pure-Python parser's cost adds up), the pure-Python one when libyaml
    rejects it, whose error says where."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return yaml.load(block, Loader=fast)  # noqa: S506 - a safe loader
        except yaml.YAMLError:
            pass  # parsed again below, for a message with the line
    return yaml.safe_load(block)


def read_markdown(path: Path) -> MarkdownDocument:
    """Read and split a Markdown file.

    Raises:
        FrontmatterError: it cannot be read as UTF-8 text, or its front matter is malformed.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise FrontmatterError(path, 0, "not UTF-8 text; save it as UTF-8") from None
    except OSError as exc:
        raise FrontmatterError(path, 0, f"cannot be read ({exc.strerror or exc})") from None
    return parse_markdown(path, text)


def _split_names(text: str) -> list[str]:
    names: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in ", \t\n" and depth == 0:
            if current:
                names.append("".join(current))
                current = []
            continue
        depth += (char == "(") - (char == ")")
        current.append(char)
    if current:
        names.append("".join(current))
    return names


def _kind(value: object) -> str:
    return {dict: "a mapping", list: "a list", bool: "true/false"}.get(
        type(value), type(value).__name__)
