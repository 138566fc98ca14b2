"""The workbench's slash commands and their one-line help."""

from __future__ import annotations

SLASH_COMMANDS: dict[str, str] = {
    "/help": "Show the keys and slash commands",
    "/model": "Switch the model: /model NAME",
    "/mode": "Set the approval mode: /mode default|auto-edit|plan|yolo",
    "/clear": "Clear the conversation and start afresh",
    "/new": "Start a new session",
    "/sessions": "Browse sessions: search, resume, fork, delete, export (Ctrl+R)",
    "/context": "Inspect the context: every item and its tokens; pin, dehydrate, drop",
    "/fork": "Go on in a copy of this session: /fork [TURN] keeps turns up to TURN",
    "/undo": "Put back the files of the last turn that changed some",
    "/rewind": "Go back to before a turn: the conversation, the files or both",
    "/diff": "Review the changes hunk by hunk, accept or reject: /diff [TURN] (F7)",
    "/export": "Write the session as Markdown: /export [FILE]",
    "/theme": "Switch the theme: /theme NAME",
    "/net": "Let tools reach the network, or not: /net on|off",
    "/ps": "List background processes; /ps stop NAME stops one",
    "/quit": "Quit agent-tui",
}
