"""What the agent keeps and learns: the instructions it is given (AGENTS.md), the project's
memory file (``remember``) and key–value memories found by hybrid search (``memory_*``).

- :mod:`.instructions` — which AGENTS.md / CLAUDE.md / GEMINI.md files are loaded.
- :mod:`.notes` — ``remember``: Markdown merged into ``.agent-tui/memory.md``.
- :mod:`.store` — SQLite with FTS5 and vectors; 30 % keyword, 70 % meaning.
- :mod:`.embeddings` — litellm's embedding models, or a local one.
- :mod:`.project` — one project's view: its scope and the person's.
"""

from __future__ import annotations

from .instructions import InstructionFile, Instructions, load_instructions
from .notes import Remembered, read_project_notes, remember
from .project import USER_SCOPE, ProjectMemory, open_project_memory
from .store import Found, Memory, MemoryStore, MemoryStoreError, SearchResults

__all__ = ["USER_SCOPE", "Found", "InstructionFile", "Instructions", "Memory", "MemoryStore",
           "MemoryStoreError", "ProjectMemory", "Remembered", "SearchResults",
           "load_instructions", "open_project_memory", "read_project_notes", "remember"]
