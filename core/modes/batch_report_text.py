"""A batch's report as text for a terminal, and as one JSON object (``--json``).

Everything that came from a results file goes through :func:`visible` before it is printed:
ids, statuses and errors may hold anything.
"""

from __future__ import annotations

from typing import Any

from ..text.counts import counted
from ..text.visible_text import visible
from .batch_report import BatchResults, BatchSummary, Comparison, Spread, TaskOutcome

SPREAD_NAMES = {
    "cost": "cost",
    "wall_time": "time",
    "model_calls": "model calls",
    "tokens": "tokens",
}
"""How the report names each quantity it gives percentiles of."""


def money(value: float | None) -> str:
    """``$0.0123``, or ``—`` when unknown."""
    return "—" if value is None else f"${value:.4f}"


def duration(seconds: float | None) -> str:
    """``31.2 s``, ``2m 05s``, ``1h 02m``, or ``—`` when unknown."""
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def amount(name: str, value: float | None) -> str:
    """A value of the quantity ``name`` (one of ``SPREAD_NAMES``) as the report writes it."""
    if value is None:
        return "—"
    if name == "cost":
        return money(value)
    if name == "wall_time":
        return duration(value)
    return f"{round(value):,}"


def pass_rate(summary: BatchSummary) -> str:
    """``3 of 4 graded (75.0%)``, or what to do when nothing was graded."""
    rate = summary.pass_rate
    if rate is None:
        return 'no graded tasks (a task\'s "check" command grades it)'
    return f"{summary.passed} of {summary.graded} graded ({rate:.1%})"


def failed(summary: BatchSummary) -> str:
    """``1 of 4 (…)``: the tasks the batch counts as failed."""
    return f"{summary.not_ok} of {summary.tasks} (a status other than done, or a failed check)"


def format_report(results: BatchResults) -> str:
    """The report of one results file: totals, percentiles and the per-task table."""
    summary = results.summary()
    statuses = " · ".join(f"{visible(status)} {n}" for status, n in summary.by_status.items())
    lines = [
        f"{visible(str(results.path))}: {counted(summary.tasks, 'task')}",
        f"  status    {statuses or '—'}",
        f"  failed    {failed(summary)}",
        f"  passed    {pass_rate(summary)}",
        f"  cost      {money(summary.cost)} total"
        + (
            f" ({summary.costed} of {summary.tasks} tasks priced)"
            if summary.costed < summary.tasks
            else ""
        ),
        f"  time      {duration(summary.wall_time)} total (the tasks' wall times added up)",
    ]
    if results.torn_lines:
        lines.append(
            f"  skipped   {counted(len(results.torn_lines), 'line')} cut short by a "
            f"crash (line {', '.join(map(str, results.torn_lines))}); running the "
            "batch again reruns those tasks"
        )
    lines += [
        "",
        *_table(
            ["", "p50", "p90", "max"],
            [
                [SPREAD_NAMES[name], *_spread_cells(name, summary.spreads[name])]
                for name in SPREAD_NAMES
            ],
            indent="  ",
        ),
    ]
    lines += [
        "",
        *_table(
            ["id", "status", "passed", "cost", "time", "model calls", "session"],
            [_task_row(o) for o in results.outcomes.values()],
        ),
    ]
    return "\n".join(lines)


def format_comparison(comparison: Comparison) -> str:
    """The comparison of two results files: the tasks that flipped, the totals side by side."""
    before, after = comparison.before, comparison.after
    b_name, a_name = visible(str(before.path)), visible(str(after.path))
    lines = [f"Compared with {b_name} (before) → {a_name} (after):"]
    for label, ids in (
        ("pass → fail", comparison.pass_to_fail),
        ("fail → pass", comparison.fail_to_pass),
        ("newly failing", comparison.newly_failing),
        (f"only in {b_name}", comparison.only_before),
        (f"only in {a_name}", comparison.only_after),
    ):
        lines.append(
            f"  {label} ({len(ids)})" + (": " + ", ".join(map(visible, ids)) if ids else "")
        )
    old, new = before.summary(), after.summary()
    rows = [
        ["tasks", f"{old.tasks:,}", f"{new.tasks:,}", _delta(new.tasks - old.tasks)],
        ["went well", f"{old.ok:,}", f"{new.ok:,}", _delta(new.ok - old.ok)],
        [
            "pass rate",
            _rate(old),
            _rate(new),
            _delta((new.pass_rate - old.pass_rate) * 100, " pts", 1)
            if new.pass_rate is not None and old.pass_rate is not None
            else "—",
        ],
        ["cost", money(old.cost), money(new.cost), _delta(new.cost - old.cost, "$", 4)],
        [
            "time",
            duration(old.wall_time),
            duration(new.wall_time),
            _delta(new.wall_time - old.wall_time, " s", 1),
        ],
        [
            "model calls",
            f"{old.model_calls:,}",
            f"{new.model_calls:,}",
            _delta(new.model_calls - old.model_calls),
        ],
        ["tokens", f"{old.tokens:,}", f"{new.tokens:,}", _delta(new.tokens - old.tokens)],
    ]
    for status in sorted(set(old.by_status) | set(new.by_status)):
        was, now = old.by_status.get(status, 0), new.by_status.get(status, 0)
        rows.append([visible(status), f"{was:,}", f"{now:,}", _delta(now - was)])
    lines += ["", *_table(["", "before", "after", "change"], rows, indent="  ")]
    return "\n".join(lines)


def report_json(results: BatchResults, comparison: Comparison | None = None) -> dict[str, Any]:
    """The report as one JSON object: ``summary``, ``tasks`` and (with a baseline)
    ``comparison``."""
    report: dict[str, Any] = {
        "file": str(results.path),
        "summary": summary_json(results.summary()),
        "tasks": [
            {
                "id": o.id,
                "status": o.status,
                "passed": o.passed,
                "cost": o.cost,
                "wall_time": o.wall_time,
                "model_calls": o.model_calls,
                "tokens": o.tokens,
                "session_id": o.session_id,
                "folder": o.folder,
                "error": o.error or None,
            }
            for o in results.outcomes.values()
        ],
        "torn_lines": results.torn_lines,
    }
    if comparison is not None:
        report["comparison"] = {
            "before": str(comparison.before.path),
            "before_summary": summary_json(comparison.before.summary()),
            "pass_to_fail": comparison.pass_to_fail,
            "fail_to_pass": comparison.fail_to_pass,
            "newly_failing": comparison.newly_failing,
            "only_before": comparison.only_before,
            "only_after": comparison.only_after,
        }
    return report


def summary_json(summary: BatchSummary) -> dict[str, Any]:
    """A summary's fields for ``--json``."""
    return {
        "tasks": summary.tasks,
        "by_status": summary.by_status,
        "graded": summary.graded,
        "passed": summary.passed,
        "pass_rate": summary.pass_rate,
        "ok": summary.ok,
        "failed": summary.not_ok,
        "cost": round(summary.cost, 6),
        "costed": summary.costed,
        "wall_time": round(summary.wall_time, 3),
        "model_calls": summary.model_calls,
        "tokens": summary.tokens,
        "percentiles": {
            name: None
            if s is None
            else {"p50": s.p50, "p90": s.p90, "max": s.max, "count": s.count}
            for name, s in summary.spreads.items()
        },
    }


def passed_word(outcome: TaskOutcome) -> str:
    """``yes``, ``no``, or ``—`` when not graded."""
    return "—" if outcome.passed is None else ("yes" if outcome.passed else "no")


def _task_row(outcome: TaskOutcome) -> list[str]:
    calls = "—" if outcome.model_calls is None else f"{outcome.model_calls:,}"
    return [
        visible(outcome.id),
        visible(outcome.status),
        passed_word(outcome),
        money(outcome.cost),
        duration(outcome.wall_time),
        calls,
        visible(outcome.session_id or "—"),
    ]


def _spread_cells(name: str, spread: Spread | None) -> list[str]:
    if spread is None:
        return ["—", "—", "—"]
    return [amount(name, spread.p50), amount(name, spread.p90), amount(name, spread.max)]


def _rate(summary: BatchSummary) -> str:
    return "—" if summary.pass_rate is None else f"{summary.pass_rate:.1%}"


def _delta(value: float, unit: str = "", places: int = 0) -> str:
    if round(value, places) == 0:
        return "="
    sign = "+" if value > 0 else "-"
    number = f"{abs(value):,.{places}f}"
    return f"{sign}${number}" if unit == "$" else f"{sign}{number}{unit}"


def _table(header: list[str], rows: list[list[str]], indent: str = "") -> list[str]:
    """Columns padded to their widest cell; the first column left-aligned, the others too
    (ids and words read best that way, and numbers are short)."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [
        indent
        + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
