"""Reading a batch's results file: each task's outcome, the totals and percentiles, and the
comparison of two runs task by task (``agent-tui batch report``).

Results files are read defensively: a line written by an older agent-tui may lack fields
(a missing ``passed`` is an ungraded task, a missing ``wall_time`` falls back to
``duration``). When a file holds several lines for one task (a rerun, ``--retry-failed``),
the last one wins.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SPREAD_FIELDS = ("cost", "wall_time", "model_calls", "tokens")
"""The per-task quantities whose percentiles a report gives."""


class ResultsError(Exception):
    """A results file cannot be read; the message names the file (and line) and what to do."""


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """One task's last result line, its fields read defensively.

    Attributes:
        id: The task's id.
        status: ``done``, ``failed``, ``timeout``… as the batch wrote it.
        passed: The check's verdict; None when the task was not graded.
        cost: Its cost in dollars, when the provider's prices are known.
        wall_time: Seconds it took (``wall_time``, else the older ``duration``).
        model_calls: Model calls it made.
        tokens: Its total tokens.
        session_id: Its recorded session, for ``agent-tui replay``.
        folder: The folder it ran in.
        error: What went wrong, if anything.
        line: The line of the results file it came from.
        data: The whole result line.
    """

    id: str
    status: str
    passed: bool | None
    cost: float | None
    wall_time: float | None
    model_calls: int | None
    tokens: int | None
    session_id: str | None
    folder: str | None
    error: str
    line: int
    data: dict[str, Any] = field(repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """Whether it went well: it passed its check, or, ungraded, it is ``done``."""
        return self.passed is True or (self.passed is None and self.status == "done")

    @property
    def outcome(self) -> str:
        """``pass`` or ``fail`` for a graded task, else its status."""
        if self.passed is not None:
            return "pass" if self.passed else "fail"
        return self.status

    def quantity(self, name: str) -> float | None:
        """One of :data:`SPREAD_FIELDS`."""
        value: float | None = getattr(self, name)
        return value

    @classmethod
    def from_result(cls, data: dict[str, Any], line: int) -> TaskOutcome:
        """The outcome a result line tells."""
        tokens = data.get("tokens")
        total = tokens.get("total_tokens") if isinstance(tokens, dict) else tokens
        passed = data.get("passed")
        wall = _number(data.get("wall_time"))
        session = data.get("session_id")
        folder = data.get("folder")
        return cls(
            id=str(data["id"]),
            status=str(data.get("status") or "unknown"),
            passed=passed if isinstance(passed, bool) else None,
            cost=_number(data.get("cost")),
            wall_time=wall if wall is not None else _number(data.get("duration")),
            model_calls=_whole(data.get("model_calls", data.get("turns"))),
            tokens=_whole(total),
            session_id=str(session) if session else None,
            folder=str(folder) if folder else None,
            error=str(data.get("error") or ""),
            line=line,
            data=data,
        )


@dataclass(frozen=True, slots=True)
class Spread:
    """Percentiles of one quantity over the tasks that have it (nearest rank)."""

    p50: float
    p90: float
    max: float
    count: int


@dataclass(frozen=True, slots=True)
class BatchSummary:
    """The totals of one results file.

    Attributes:
        tasks: Tasks with a result.
        by_status: How many tasks ended in each status.
        graded: Tasks a check graded.
        passed: Graded tasks that passed.
        cost: Total cost of the tasks whose cost is known.
        costed: How many tasks have a known cost.
        wall_time: Sum of the tasks' wall times (seconds).
        model_calls: Sum of their model calls.
        tokens: Sum of their tokens.
        spreads: Percentiles of cost, wall time, model calls and tokens.
        ok: Tasks that went well (passed, or ungraded and ``done``).
    """

    tasks: int
    by_status: dict[str, int]
    graded: int
    passed: int
    cost: float
    costed: int
    wall_time: float
    model_calls: int
    tokens: int
    spreads: dict[str, Spread | None]
    ok: int

    @property
    def pass_rate(self) -> float | None:
        """Passed over graded, or None when no task was graded."""
        return self.passed / self.graded if self.graded else None

    @property
    def not_ok(self) -> int:
        """Tasks that failed their check or did not end as ``done``."""
        return self.tasks - self.ok


@dataclass(frozen=True, slots=True)
class BatchResults:
    """A results file read: the last outcome of each task, in the order tasks first appear.

    Attributes:
        path: The file.
        outcomes: Each task's outcome by id.
        torn_lines: Lines a crash left half-written (skipped; the batch reruns those tasks).
    """

    path: Path
    outcomes: dict[str, TaskOutcome]
    torn_lines: list[int]

    def summary(self) -> BatchSummary:
        """The file's totals and percentiles."""
        return summarize(list(self.outcomes.values()))


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two results files task by task: ``before`` (the baseline) and ``after``.

    Attributes:
        before: The baseline run.
        after: The run being reported.
        pass_to_fail: Tasks that went well before and whose check fails now.
        fail_to_pass: Tasks that did not go well before and do now.
        newly_failing: Tasks that went well before and now end without a verdict
            (failed, timed out, setup or check broke, over budget).
        only_before: Tasks the baseline has and this run does not.
        only_after: Tasks this run has and the baseline does not.
    """

    before: BatchResults
    after: BatchResults
    pass_to_fail: list[str]
    fail_to_pass: list[str]
    newly_failing: list[str]
    only_before: list[str]
    only_after: list[str]

    @property
    def flipped(self) -> int:
        """How many tasks changed between going well and not."""
        return len(self.pass_to_fail) + len(self.fail_to_pass) + len(self.newly_failing)


def read_results(path: Path) -> BatchResults:
    """Read the results file at ``path``; for a task with several lines the last wins.

    A line cut short at its end (a batch killed mid-write) is skipped and listed in
    ``torn_lines``, as the batch itself skips it.

    Raises:
        ResultsError: the file cannot be read, or a line is not a result (not JSON, not an
            object, no ``id``); the message names the file and line.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(
            f"{path}: no such file; pass the results file a batch wrote "
            "(by default TASKS.results.jsonl beside the tasks file)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ResultsError(f"{path}: cannot be read ({why})") from None
    outcomes: dict[str, TaskOutcome] = {}
    torn: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except ValueError as exc:
            if _cut_short(line, exc):
                torn.append(number)  # a crash mid-write: the batch runs the task again
                continue
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc).partition(":")[0]
            raise ResultsError(
                f"{where}: not a result line (not JSON: {why}); a results file "
                "has one JSON object per line, as agent-tui batch writes it: "
                "delete or fix that line"
            ) from None
        if not isinstance(data, dict) or "id" not in data:
            raise ResultsError(
                f"{where}: not a result line (a result is a JSON object with an "
                '"id"); delete or fix that line'
            )
        outcome = TaskOutcome.from_result(data, number)
        outcomes.pop(outcome.id, None)  # the last line wins, in the place of its last run
        outcomes[outcome.id] = outcome
    return BatchResults(path, outcomes, torn)


def summarize(outcomes: list[TaskOutcome]) -> BatchSummary:
    """The totals and percentiles of ``outcomes``."""
    by_status = Counter(o.status for o in outcomes)
    graded = [o for o in outcomes if o.passed is not None]
    costs = [o.cost for o in outcomes if o.cost is not None]
    return BatchSummary(
        tasks=len(outcomes),
        by_status=dict(by_status.most_common()),
        graded=len(graded),
        passed=sum(1 for o in graded if o.passed),
        cost=sum(costs),
        costed=len(costs),
        wall_time=sum(o.wall_time or 0.0 for o in outcomes),
        model_calls=sum(o.model_calls or 0 for o in outcomes),
        tokens=sum(o.tokens or 0 for o in outcomes),
        spreads={
            name: spread([v for o in outcomes if (v := o.quantity(name)) is not None])
            for name in SPREAD_FIELDS
        },
        ok=sum(1 for o in outcomes if o.ok),
    )


def spread(values: list[float]) -> Spread | None:
    """The p50, p90 and max of ``values`` by nearest rank (each one a value that occurred),
    or None when there are none."""
    if not values:
        return None
    ordered = sorted(values)

    def rank(percent: int) -> float:
        return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]

    return Spread(rank(50), rank(90), ordered[-1], len(ordered))


def compare(before: BatchResults, after: BatchResults) -> Comparison:
    """Which tasks flipped from the ``before`` run (the baseline) to the ``after`` one."""
    pass_to_fail, fail_to_pass, newly_failing = [], [], []
    for task_id, now in after.outcomes.items():
        then = before.outcomes.get(task_id)
        if then is None or then.ok == now.ok:
            continue
        if now.ok:
            fail_to_pass.append(task_id)
        elif now.passed is False:
            pass_to_fail.append(task_id)
        else:
            newly_failing.append(task_id)
    return Comparison(
        before,
        after,
        pass_to_fail,
        fail_to_pass,
        newly_failing,
        only_before=[i for i in before.outcomes if i not in after.outcomes],
        only_after=[i for i in after.outcomes if i not in before.outcomes],
    )


def _cut_short(line: str, error: ValueError) -> bool:
    """Whether ``line`` is the start of a JSON object that ends too early: its error is at
    its very end, or in a string that never closes."""
    return (
        isinstance(error, json.JSONDecodeError)
        and line.lstrip().startswith("{")
        and (error.pos >= len(line.rstrip()) or error.msg.startswith("Unterminated string"))
    )


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _whole(value: Any) -> int | None:
    number = _number(value)
    return None if number is None else int(number)
