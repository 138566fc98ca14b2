"""Personas (``--agent NAME``, ``/agent NAME``): roles a session takes on, each a Markdown
file with a front matter (description, model, tools, approval mode) and a prompt.

:func:`load_personas` reads the bundled ones, the person's ``agents/`` folder and the
project's ``.agent-tui/agents/`` into a :class:`PersonaCatalog`; :func:`persona_changes`
says what taking one on changes in the settings; the knowledge adds the chosen one's
prompt to the system prompt and the agent limits its tools by it.
"""

from __future__ import annotations

from .loading import (
    PersonaCatalog,
    bundled_personas_folder,
    load_personas,
    persona_sources,
    read_persona,
)
from .persona import (
    CLAUDE_CODE_TOOLS,
    GRANTING_SOURCES,
    MODE_ORDER,
    SOURCES,
    Persona,
    PersonaChanges,
    persona_changes,
)

__all__ = ["CLAUDE_CODE_TOOLS", "GRANTING_SOURCES", "MODE_ORDER", "SOURCES", "Persona",
           "PersonaCatalog", "PersonaChanges", "bundled_personas_folder", "load_personas",
           "persona_changes", "persona_sources", "read_persona"]
