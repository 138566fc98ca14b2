"""Widgets of the workbench: conversation, prompt, panels, tool log and diff view."""
