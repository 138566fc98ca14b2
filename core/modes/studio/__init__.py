"""Studio: many agent sessions at once, each in its own git worktree and branch.

A session starts from the project's HEAD in a worktree beside the project
(``PROJECT-studio/NAME``), works there (headless or in the workbench) without touching the
project's checkout, and is then accepted (merged, or rebased and fast-forwarded, onto the project's branch) or discarded
(worktree and branch removed). :mod:`.worktrees` does the git; :mod:`.registry` keeps what
is known of each session.
"""

from .registry import StudioSession, load, save, sessions, worktree_folder
from .worktrees import Change, Merged, StudioError, accept, changes, create, project_root, remove

__all__ = [
    "Change",
    "Merged",
    "StudioError",
    "StudioSession",
    "accept",
    "changes",
    "create",
    "load",
    "project_root",
    "remove",
    "save",
    "sessions",
    "worktree_folder",
]
