"""Planning mode (g3's planner): the person writes requirements in
``<project>/agent-tui-plan/new_requirements.md``; the model refines them into numbered,
testable ones for the person to approve or edit; the approved ones become
``current_requirements.md``, which the coach-player pair (:mod:`..autonomous`) implements;
then the files are archived with timestamps and the change is committed with a generated
message, through the approval path like any command that writes to ``.git``.

:mod:`.files` knows the plan's files and stages, :mod:`.prompts` what the model is asked,
:mod:`.git` the commit. The command-line flow is ``tui/cli/planning_run.py``.
"""

from .files import (
    PLAN_DIR,
    PlanFiles,
    Stage,
    approve,
    archive_file,
    archived_path,
    finish,
    read_baseline,
    requirements_text,
    stage,
    stamp,
    write_atomic,
    write_template,
)
from .git import (
    changed_since,
    commit_command,
    diff_stat,
    git_root,
    head_commit,
    run_command,
    worktree_state,
)
from .prompts import (
    SUBJECT_LIMIT,
    commit_message,
    commit_prompt,
    commit_writer_persona,
    refine_prompt,
    refined_requirements,
    refiner_persona,
)

__all__ = [
    "PLAN_DIR",
    "SUBJECT_LIMIT",
    "PlanFiles",
    "Stage",
    "approve",
    "archive_file",
    "archived_path",
    "changed_since",
    "commit_command",
    "commit_message",
    "commit_prompt",
    "commit_writer_persona",
    "diff_stat",
    "finish",
    "git_root",
    "head_commit",
    "read_baseline",
    "refine_prompt",
    "refined_requirements",
    "refiner_persona",
    "requirements_text",
    "run_command",
    "stage",
    "stamp",
    "worktree_state",
    "write_atomic",
    "write_template",
]
