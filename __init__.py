"""agent-tui: a full-screen terminal workbench for an AI coding agent.

The repository root is this package's folder: core/ is ``agent_tui.core``, tui/ is ``agent_tui.tui``
and so on, so every relative import inside the package resolves to a file in the repository.
"""
