"""Skills embedded in agent-tui, each <name>/SKILL.md."""
