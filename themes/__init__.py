"""Textual themes and stylesheets of agent-tui."""
