"""Aider's loop: after a turn's edits, ``lint_command`` and ``test_command`` run and their
failures go back to the model until they pass or ``fix_attempts`` runs out; at the end of
the turn ``auto_commit`` commits the files it changed with a message the model writes.

Which files a turn changed is its checkpoints' answer (:mod:`.changes.checkpoints`), so
these need checkpoints; without them they say once why they cannot run. The commands are
the person's own (``lint_command`` and ``test_command`` are trust-gated, as hooks are): they
run in the project folder with the environment commands get, without the approval or the
sandbox the model's own commands pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .changes.auto_commit import AutoCommitError, ProjectRepo
from .changes.checkpoints import CheckpointError, FileChange, checkpoints_off
from .changes.commit_message import cleaned, message_request, plain_message
from .events import AutoCommitted, CheckRan, ErrorEvent, EventSink
from .providers.base import ProviderError

if TYPE_CHECKING:
    from .calls.checkpoint import TurnCheckpoints
    from .config import Settings
    from .providers.base import Message, Provider

OUTPUT_SHOWN = 20_000
"""Characters of a check's output kept for the person (its end)."""

OUTPUT_FOR_MODEL = 4_000
"""Characters of a failed check's output the model reads (its end)."""


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """How one run of a check command ended."""

    exit_code: int | None
    output: str
    duration: float

    @property
    def passed(self) -> bool:
        """It exited with 0."""
        return self.exit_code == 0


class AfterTurn:
    """The checks after a turn's edits and the commit at its end, for one agent.

    Args:
        workdir: The project folder.
        settings: The agent's settings as they are now (they may change between turns).
        checkpoints: The agent's turn checkpoints (which files the turn changed).
        provider: The session's provider as it is now (it writes the commit message).
        env: The environment commands run with.
        emit: Where the steps are reported.
    """

    def __init__(
        self,
        workdir: Path,
        settings: Callable[[], Settings],
        checkpoints: TurnCheckpoints,
        provider: Callable[[], Provider],
        env: Mapping[str, str] | None,
        emit: EventSink,
    ) -> None:
        self.workdir = workdir
        self._settings = settings
        self._checkpoints = checkpoints
        self._provider = provider
        self._env = env
        self._emit = emit
        self._attempts = 0
        self._current = ""  # the id of the check running
        self._told: set[str] = set()

    def start_run(self) -> None:
        """A new prompt: its fix attempts start from none."""
        self._attempts = 0

    # -- lint and test -----------------------------------------------------------------

    async def fix_needed(self, messages: list[Message]) -> bool:
        """The model answered: run the checks if the turn changed files; when one fails
        and attempts are left, tell the model (a message appended to ``messages``) and
        return True to let it fix that."""
        settings = self._settings()
        commands = [
            (kind, command.strip())
            for kind, command in (("lint", settings.lint_command), ("test", settings.test_command))
            if command.strip()
        ]
        if not commands:
            return False
        paths = await self._changed_paths("lint_command and test_command")
        if not paths:
            return False
        existing = [p for p in paths if os.path.lexists(self.workdir / p)]
        for kind, template in commands:
            if "{files}" in template and not existing:
                continue  # the turn only deleted files: nothing to lint
            command = template.replace("{files}", shlex.join(existing))
            outcome = await self._run_check(kind, command, settings.check_timeout)
            if outcome.passed:
                continue
            left = settings.fix_attempts - self._attempts
            feedback = failure_feedback(kind, command, outcome, left - 1) if left > 0 else ""
            self._report(kind, command, outcome, feedback)
            if not feedback:
                if settings.fix_attempts == 0:
                    return False  # the person wants the failures shown, not fixed
                self._emit(
                    ErrorEvent(
                        f"{kind}_command still fails (exit {outcome.exit_code}) after "
                        f"{settings.fix_attempts} attempt(s) to fix it (fix_attempts); the turn "
                        "ends with the failure shown. Ask the model to go on, or fix it yourself."
                    )
                )
                return False
            self._attempts += 1
            messages.append({"role": "user", "content": feedback})
            return True
        return False

    async def _run_check(self, kind: str, command: str, timeout: float) -> CheckOutcome:
        self._current = f"check-{uuid.uuid4().hex[:12]}"
        self._emit(CheckRan(self._current, kind, command, "running"))
        try:
            outcome = await run_command(command, self.workdir, self._env, timeout)
        except asyncio.CancelledError:
            self._emit(CheckRan(self._current, kind, command, "failed", None, "cancelled"))
            raise
        if outcome.passed:
            self._report(kind, command, outcome, "")
        return outcome

    def _report(self, kind: str, command: str, outcome: CheckOutcome, feedback: str) -> None:
        self._emit(
            CheckRan(
                self._current,
                kind,
                command,
                "passed" if outcome.passed else "failed",
                outcome.exit_code,
                outcome.output[-OUTPUT_SHOWN:],
                round(outcome.duration, 3),
                feedback,
            )
        )

    # -- the commit --------------------------------------------------------------------

    async def commit(self, prompt: str) -> None:
        """At the end of a turn that ended well: commit the files it changed, when
        ``auto_commit`` is on and the project is in a git repository."""
        if not self._settings().auto_commit:
            return
        checkpoints = self._checkpoints.checkpoints
        turn = self._checkpoints.turn
        paths = await self._changed_paths("auto_commit")
        if not paths or checkpoints is None:
            return
        repo = await asyncio.to_thread(ProjectRepo.find, self.workdir)
        if repo is None:
            self._say_once(
                "repo",
                f"auto_commit is on, but {self.workdir} is not in a git "
                "repository, so nothing is committed. Run `git init` there to have "
                "each turn committed, or turn auto_commit off.",
            )
            return
        try:
            busy = await asyncio.to_thread(repo.busy)
            if busy is not None:
                self._emit(
                    ErrorEvent(
                        f"auto_commit: {busy} is in progress in the repository, so turn {turn} "
                        "was not committed. Finish or abort it; the files stay as they are."
                    )
                )
                return
            changes = await asyncio.to_thread(checkpoints.changes, turn)
            plan = await asyncio.to_thread(repo.plan, changes)
            if not plan.files:
                if plan.left_out:
                    self._emit(
                        ErrorEvent(
                            f"auto_commit: turn {turn} changed only files you had changed or "
                            f"staged before it ({', '.join(plan.left_out)}), so nothing was "
                            "committed; commit them yourself."
                        )
                    )
                return
            committed = [c for c in changes if c.path in plan.files]
            message = await self._message(prompt, turn, committed)
            commit = await asyncio.to_thread(
                repo.commit,
                plan.files,
                message,
                f"agent-tui: auto-commit of turn {turn}: {message.splitlines()[0]}",
            )
        except (AutoCommitError, CheckpointError) as exc:
            self._emit(
                ErrorEvent(
                    f"auto_commit could not commit turn {turn}: {exc}. The "
                    "files are changed but not committed; commit them yourself "
                    "(F7 reviews them first)."
                )
            )
            return
        if commit is not None:
            self._emit(AutoCommitted(turn, commit, message, plan.files, plan.left_out))

    async def _message(self, prompt: str, turn: int, changes: list[FileChange]) -> str:
        """The model's commit message for ``changes``; a plain one if it cannot write it."""
        try:
            reply = await self._provider().complete(
                message_request(prompt, changes), None, lambda _text: None
            )
        except ProviderError:
            reply = None
        message = cleaned(reply.text) if reply is not None else ""
        return message or plain_message(turn, [c.path for c in changes])

    # -- both --------------------------------------------------------------------------

    async def _changed_paths(self, what: str) -> list[str]:
        """The files the running turn changed so far ([] when none, or unknown)."""
        checkpoints = self._checkpoints.checkpoints
        if checkpoints is None:
            if self._checkpoints.turn_changed:
                why = checkpoints_off(self.workdir) or "Checkpoints are off."
                self._say_once(
                    "off",
                    f"{what} need the checkpoints to know which files a "
                    f"turn changed, so they do not run. {why}",
                )
            return []
        if not self._checkpoints.turn_changed:
            return []
        try:
            return await asyncio.to_thread(checkpoints.changed_paths, self._checkpoints.turn)
        except CheckpointError as exc:
            self._emit(ErrorEvent(f"{what}: could not tell which files the turn changed: {exc}"))
            return []

    def _say_once(self, key: str, text: str) -> None:
        if key not in self._told:
            self._told.add(key)
            self._emit(ErrorEvent(text))


def failure_feedback(kind: str, command: str, outcome: CheckOutcome, left: int) -> str:
    """What the model is told of a failed check, to fix it."""
    output = outcome.output[-OUTPUT_FOR_MODEL:].rstrip() or "(no output)"
    ended = f"exit {outcome.exit_code}" if outcome.exit_code is not None else "it did not finish"
    again = (
        f"it runs again after your fix ({left} more attempt{'s' if left != 1 else ''} "
        "after this one)"
        if left > 0
        else "this is the last attempt"
    )
    return (
        f"The project's {kind} command failed after your changes ({ended}):\n"
        f"$ {command}\n{output}\n\nFix what it reports; {again}."
    )


async def run_command(
    command: str, cwd: Path, env: Mapping[str, str] | None, timeout: float,
    limit_name: str = "check_timeout",
) -> CheckOutcome:
    """Run ``command`` with ``bash -c`` in its own process group, stdout and stderr
    together; the group is killed past ``timeout`` (the output then ends by naming
    ``limit_name``, the setting that gave it) or when the awaiting task is cancelled."""
    started = time.monotonic()
    # A file, not a pipe: what the command leaves running in the background cannot keep
    # us waiting for the end of its output.
    with tempfile.TemporaryFile() as out:
        try:
            proc = await asyncio.create_subprocess_exec(
                "bash",
                "-c",
                command,
                cwd=cwd,
                env=None if env is None else dict(env),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
        except OSError as exc:
            return CheckOutcome(None, f"could not start: {exc}", 0.0)
        note = ""
        try:
            async with asyncio.timeout(timeout):
                exit_code: int | None = await proc.wait()
        except TimeoutError:
            await _kill_group(proc)
            exit_code, note = None, f"\n[killed after {timeout:g} s: {limit_name}]"
        except BaseException:
            await _kill_group(proc)
            raise
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - OUTPUT_SHOWN))
        output = out.read().decode("utf-8", errors="replace")
    return CheckOutcome(exit_code, output + note, time.monotonic() - started)


async def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    await proc.wait()
