"""What the model is asked in planning mode: to refine the person's requirements into
numbered, testable ones, and to write the commit message of the implemented plan; and how
its answers are read."""

from __future__ import annotations

import re
from pathlib import Path

from ...personas import Persona

READ_ONLY_TOOLS = ("read_file", "read_many_files", "ls", "glob_files", "grep", "code_search")
"""What the refiner and the commit writer may use: looking at the project, never changing it."""

SUBJECT_LIMIT = 72
"""The longest commit subject line."""

REFINER_PROMPT = """You are the planner. The person wrote new requirements for this project
in their own words; you turn them into requirements a developer can implement and a reviewer
can check, one by one. You may look at the project (read files, list, search) to use its
real names and conventions; you never change anything.

Answer with the refined requirements only, as Markdown, nothing before or after:
- a `# ` title line naming the change;
- a numbered list of requirements, each one specific and testable (what is true when it is
  done: behaviour, files, commands, error cases), in the person's intent — do not add
  features they did not ask for; where they were vague, choose the simplest reading and say
  so in the requirement;
- optionally a short `## Out of scope` list.
"""

COMMIT_PROMPT = """You write git commit messages. Given the requirements that were just
implemented and the files that changed, answer with the commit message only (no code fence,
no preamble): a subject line of at most 72 characters in the imperative mood that says what
the user of the project gets, a blank line, then a body of short lines (wrapped at 72
characters) saying what changed and why. Do not list every file.
"""


def refiner_persona() -> Persona:
    """The refiner's role: its instructions and its read-only tools."""
    return Persona(name="planner", description="Refines the person's requirements into "
                   "numbered, testable ones", prompt=REFINER_PROMPT, path=Path(__file__),
                   source="bundled", tools=READ_ONLY_TOOLS)


def commit_writer_persona() -> Persona:
    """The commit message writer's role."""
    return Persona(name="committer", description="Writes the commit message of an "
                   "implemented plan", prompt=COMMIT_PROMPT, path=Path(__file__),
                   source="bundled", tools=READ_ONLY_TOOLS)


def refine_prompt(requirements: str) -> str:
    """What the refiner is asked."""
    return ("Refine these new requirements into numbered, testable requirements.\n\n"
            f"<new_requirements>\n{requirements}\n</new_requirements>")


def commit_prompt(requirements: str, changed: list[str], stat: str) -> str:
    """What the commit writer is asked: the requirements, the changed files and the diff's
    summary (``git diff --stat``)."""
    files = "\n".join(changed) or "(none)"
    return ("Write the commit message for this change.\n\n"
            f"<requirements>\n{requirements}\n</requirements>\n\n"
            f"<changed_files>\n{files}\n</changed_files>\n\n"
            f"<diff_stat>\n{stat.strip() or '(none)'}\n</diff_stat>")


_FENCE = re.compile(r"^\s*```[\w-]*\n(.*?)\n```\s*$", re.DOTALL)


def unfenced(answer: str) -> str:
    """``answer`` without a code fence wrapped around all of it, stripped."""
    text = answer.strip()
    fenced = _FENCE.match(text)
    return fenced.group(1).strip() if fenced else text


def refined_requirements(answer: str) -> str:
    """The refiner's answer as the file's text (one trailing newline)."""
    return unfenced(answer) + "\n"


def commit_message(answer: str, requirements: str) -> str:
    """The commit message from the writer's answer: a subject of at most
    :data:`SUBJECT_LIMIT` characters (cut at a word), a blank line and the body. An empty
    answer gives a subject from the requirements' title."""
    lines = unfenced(answer).splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        title = next((line.lstrip("# ").strip() for line in requirements.splitlines()
                      if line.strip()), "")
        lines = [f"Implement the plan: {title}" if title else "Implement the planned "
                 "requirements"]
    subject = lines[0].strip().removeprefix("Subject:").strip().strip("`*")
    rest = lines[1:]
    if len(subject) > SUBJECT_LIMIT:
        cut = subject[:SUBJECT_LIMIT + 1].rsplit(" ", 1)[0]
        cut = cut if 0 < len(cut) <= SUBJECT_LIMIT else subject[:SUBJECT_LIMIT]
        rest = [f"…{subject[len(cut):].strip()}", *rest]
        subject = cut.rstrip()
    body = "\n".join(rest).strip()
    return f"{subject}\n\n{body}\n" if body else f"{subject}\n"
