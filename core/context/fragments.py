"""Dehydrated context: tool results that thinning took out of the context, one file each.

``ContextManager`` saves a large old tool result here and leaves a
``[DEHYDRATED CONTEXT: fragment <id>, …]`` stub in its place; the ``rehydrate`` tool loads
it back by that id.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..text.text_files import atomic_write_text

_FRAGMENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True, slots=True)
class Fragment:
    """A tool result taken out of the context.

    Attributes:
        id: The id the stub names; the file is ``<id>.json``.
        content: The tool result exactly as the model saw it.
        tool_call_id: The call it answered (several, comma-separated, for a text-protocol
            results message).
        tool_name: The tool that produced it (several, comma-separated, likewise).
        tokens: What it cost in the context.
    """

    id: str
    content: str
    tool_call_id: str
    tool_name: str
    tokens: int


class FragmentStore:
    """The fragment files of one session, one JSON file per fragment."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, fragment_id: str) -> Path:
        """The file of ``fragment_id``."""
        return self.directory / f"{fragment_id}.json"

    def save(self, fragment: Fragment) -> Path:
        """Write a fragment atomically (blocking); the folder is made on first use."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.path(fragment.id)
        atomic_write_text(path, json.dumps(asdict(fragment), ensure_ascii=False))
        return path

    def load(self, fragment_id: str) -> Fragment | None:
        """The fragment called ``fragment_id``, or None when there is no such (valid) file."""
        if not _FRAGMENT_ID.match(fragment_id):
            return None
        try:
            data = json.loads(self.path(fragment_id).read_text(encoding="utf-8"))
            return Fragment(**data)
        except (OSError, ValueError, TypeError):
            return None

    def ids(self) -> list[str]:
        """Ids of the stored fragments, oldest file first."""
        try:
            files = [p for p in self.directory.iterdir() if p.suffix == ".json"]
        except OSError:
            return []
        return [p.stem for p in sorted(files, key=lambda p: (p.stat().st_mtime_ns, p.name))]
