"""Runs a command for real in a throwaway copy of the oracle's project and says what it did.

The run goes through agent-tui's own preview (bubblewrap over scratch copies of the project,
the fake home and the outside folder; the rest of ``/`` read-only, ``/tmp`` private, no
network). Inside, the command runs without capabilities (bwrap keeps root's otherwise) and,
where strace is installed, under strace, so a write the read-only root refused shows up
even when the command hides its error.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass

from agent_tui.core.safety.preview import CommandPreview, preview_command

from .project import OracleProject

TIMEOUT_S = 8.0
"""Long enough for any read-only command on the small project."""

_MARK = "@@oracle-erofs@@"
# The marker is spelt with an escape so that it never appears in a command line (ps prints
# those).
_FAILED_WRITES = "sed -un '/EROFS/s/^/@@oracle-\\x65rofs@@ /p'"


@dataclass(frozen=True, slots=True)
class Effect:
    """What running one command did.

    Attributes:
        command: The command as judged.
        changes: Files created, modified or deleted (``kind path``).
        refused_writes: Writes the read-only root refused (strace lines), or what the
            command printed about them.
        left_running: Processes still running after the command exited.
        timed_out: It did not finish within :data:`TIMEOUT_S`.
        output: What it printed (without the strace lines).
        traced: Whether strace watched the run.
    """

    command: str
    changes: tuple[str, ...]
    refused_writes: tuple[str, ...]
    left_running: tuple[str, ...]
    timed_out: bool
    output: str
    traced: bool

    @property
    def harmless(self) -> bool:
        """Nothing changed, nothing was refused, nothing is left running."""
        return not (self.changes or self.refused_writes or self.left_running)

    def describe(self) -> str:
        """The effects, one per line, for a failure message."""
        lines = [f"changed: {c}" for c in self.changes]
        lines += [f"tried to write: {w}" for w in self.refused_writes]
        lines += [f"left running: {p}" for p in self.left_running]
        if self.timed_out:
            lines.append(f"did not finish within {TIMEOUT_S:g}s")
        return "\n".join(lines) or "no effect"


CACHE_WRITES = ("/var/cache/man/",)
"""Folders whose writes are a program's own cache, rebuilt by the system, not a change of
anything the person owns: man-db writes formatted pages to /var/cache/man when it may (as
root, where man-db is installed)."""


def strace_available() -> bool:
    """Whether runs are traced (CI installs strace; without it the output is the witness)."""
    return shutil.which("strace") is not None


def run_command(command: str, project: OracleProject) -> Effect:
    """Run ``command`` in a fresh copy of ``project`` and report its effect."""
    traced = strace_available()
    effect = _run(command, project, traced)
    if effect.timed_out and traced:
        # strace waits for background children; run untraced to see what was left behind.
        effect = _run(command, project, False)
    return effect


def _run(command: str, project: OracleProject, traced: bool) -> Effect:
    inner = f"bash -c {shlex.quote(command)}"
    if traced:
        inner = (f"strace -f -qq -e trace=%file -e status=failed -e signal=none "
                 f"-o {shlex.quote('|' + _FAILED_WRITES)} -- {inner}")
    wrapped = f"exec setpriv --bounding-set=-all --no-new-privs -- {inner}"
    preview = preview_command(wrapped, project.root, project.root, timeout_s=TIMEOUT_S,
                              env=project.env(), watch=[project.home, project.outside])
    return _effect(command, preview, traced)


def _effect(command: str, preview: CommandPreview, traced: bool) -> Effect:
    refused: list[str] = []
    output: list[str] = []
    for line in preview.output.splitlines():
        if _MARK in line:
            attempt = line.split(_MARK, 1)[1].strip()
            if not any(f'"{cache}' in attempt for cache in CACHE_WRITES):
                refused.append(attempt)
        else:
            output.append(line)
            if "Read-only file system" in line and not traced:
                refused.append(line.strip())
    return Effect(command=command,
                  changes=tuple(f"{c.kind} {c.path}" for c in preview.changes),
                  refused_writes=tuple(refused), left_running=preview.left_running,
                  timed_out=preview.timed_out, output="\n".join(output), traced=traced)
