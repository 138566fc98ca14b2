"""agent-tui: a terminal workbench for an AI coding agent."""

__version__ = "0.1.0"
