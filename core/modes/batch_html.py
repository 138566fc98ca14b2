"""A batch's report as one self-contained HTML page (``agent-tui batch report --html``).

The page needs nothing from the network: its CSS and its one small script (sorting the
table, copying a replay command) are inline, the scatter plot is inline SVG, and a
Content-Security-Policy lets only that script (by its hash) run, so a task id or an error
that slipped through escaping still could not. Everything from the results file is escaped.

A page cannot start a program, so each task shows the exact command that replays its
session, with a button that copies it, and links the session's log when it is on this disk.
"""

from __future__ import annotations

import base64
import hashlib
import shlex
from html import escape
from pathlib import Path

from ..sessions.log import log_path
from ..text.counts import counted
from .batch_report import BatchResults, Comparison, TaskOutcome
from .batch_report_text import (
    SPREAD_NAMES,
    amount,
    duration,
    failed,
    money,
    pass_rate,
    passed_word,
)

PLOT_WIDTH, PLOT_HEIGHT, PLOT_MARGIN, PLOT_LEFT = 640, 320, 48, 80
"""The scatter plot's size in SVG units, and the room its axes' labels take (more on the
left, where the cost is written)."""

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1d2433;background:#fbfbfd}
h1{font-size:1.3rem;margin:0 0 1rem}h2{font-size:1.05rem;margin:1.6rem 0 .6rem}
table{border-collapse:collapse;background:#fff}
th,td{padding:.3rem .6rem;border-bottom:1px solid #e3e6ee;text-align:left;vertical-align:top}
th{background:#eef1f7;position:sticky;top:0}
#tasks th{cursor:pointer;user-select:none}#tasks th:hover{background:#dfe5f2}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pass{color:#17803d}.fail{color:#c62828}.done{color:#44506a}.error{color:#b45309}
circle.pass{fill:#22a352}circle.fail{fill:#d93636}circle.done{fill:#7b88a8}
circle.error{fill:#e08a00}circle{stroke:#fff;stroke-width:1;opacity:.85}
code{background:#f1f3f8;padding:.1rem .3rem;border-radius:3px;white-space:pre-wrap;
overflow-wrap:anywhere}
button.copy{margin-left:.4rem;font-size:.8rem;cursor:pointer}
details pre{white-space:pre-wrap;max-width:48rem;margin:.3rem 0}
.legend span{margin-right:1rem}.axis{font-size:11px;fill:#5b6478}
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem;margin:0}dt{color:#5b6478}
"""

_SCRIPT = """
document.querySelectorAll("button.copy").forEach(function (button) {
  button.addEventListener("click", function () {
    var code = button.previousElementSibling;
    function selectIt() {
      var range = document.createRange();
      range.selectNodeContents(code);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = "selected: press Ctrl+C";
    }
    if (navigator.clipboard) {
      navigator.clipboard.writeText(code.textContent).then(function () {
        button.textContent = "copied";
      }, selectIt);
    } else {
      selectIt();
    }
  });
});
document.querySelectorAll("#tasks th").forEach(function (th, column) {
  th.addEventListener("click", function () {
    var body = th.closest("table").tBodies[0];
    var down = th.dataset.order !== "up";
    th.dataset.order = down ? "up" : "down";
    var rows = Array.prototype.slice.call(body.rows);
    function key(row) { return row.cells[column].dataset.sort || row.cells[column].textContent; }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b), nx = parseFloat(x), ny = parseFloat(y);
      var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return down ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
// Says the script ran: the page's policy allowed it (a test reads it).
document.body.dataset.sortable = "yes";
"""


def render_html(results: BatchResults, comparison: Comparison | None = None) -> str:
    """The whole page for ``results`` (and the comparison with a baseline, if any)."""
    script_hash = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    policy = (
        f"default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{script_hash}'; img-src data:"
    )
    title = f"agent-tui batch report: {results.path.name}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        _summary(results),
    ]
    if comparison is not None:
        parts.append(_comparison(comparison))
    parts += [
        _scatter(list(results.outcomes.values())),
        _tasks(results),
        f"<script>{_SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts) + "\n"


def replay_command(outcome: TaskOutcome) -> str | None:
    """The shell command that replays the task's session, or None when it has none."""
    if not outcome.session_id:
        return None
    replay = f"agent-tui replay {shlex.quote(outcome.session_id)}"
    return f"cd {shlex.quote(outcome.folder)} && {replay}" if outcome.folder else replay


def session_log(outcome: TaskOutcome) -> Path | None:
    """The task's session log when it is on this disk: the result's ``session_log``, else
    where this machine's agent-tui keeps the session."""
    named = outcome.data.get("session_log")
    candidates = [Path(str(named))] if named else []
    if outcome.session_id:
        candidates.append(log_path(outcome.session_id))
    return next((path for path in candidates if path.is_file()), None)


def _kind(outcome: TaskOutcome) -> str:
    """The CSS class of its colour: pass, fail, done (ungraded) or error."""
    return outcome.outcome if outcome.outcome in ("pass", "fail", "done") else "error"


def _summary(results: BatchResults) -> str:
    summary = results.summary()
    statuses = " · ".join(f"{escape(s)} {n}" for s, n in summary.by_status.items())
    rows = [
        ("results file", escape(str(results.path))),
        ("tasks", f"{summary.tasks:,}"),
        ("status", statuses or "—"),
        ("failed", escape(failed(summary))),
        ("passed", escape(pass_rate(summary))),
        ("cost", f"{money(summary.cost)} total"),
        ("time", f"{duration(summary.wall_time)} total (the tasks' wall times added up)"),
    ]
    if results.torn_lines:
        rows.append(
            (
                "skipped",
                f"lines {', '.join(map(str, results.torn_lines))}, cut short "
                "by a crash (running the batch again reruns those tasks)",
            )
        )
    spread_rows = ""
    for key, name in SPREAD_NAMES.items():
        spread = summary.spreads[key]
        cells = "".join(
            f'<td class="num">{escape(amount(key, getattr(spread, p) if spread else None))}</td>'
            for p in ("p50", "p90", "max")
        )
        spread_rows += f"<tr><th>{name}</th>{cells}</tr>"
    return (
        "<h2>Summary</h2><dl>"
        + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
        + "</dl><h2>Percentiles</h2><table><thead><tr><th></th><th>p50</th><th>p90</th>"
        f"<th>max</th></tr></thead><tbody>{spread_rows}</tbody></table>"
    )


def _comparison(comparison: Comparison) -> str:
    before = escape(str(comparison.before.path))
    old, new = comparison.before.summary(), comparison.after.summary()
    items = "".join(
        f"<li><b>{label}</b> ({len(ids)})"
        + (": " + ", ".join(f"<code>{escape(i)}</code>" for i in ids) if ids else "")
        + "</li>"
        for label, ids in (
            ("pass → fail", comparison.pass_to_fail),
            ("fail → pass", comparison.fail_to_pass),
            ("newly failing", comparison.newly_failing),
            (f"only in {before}", comparison.only_before),
            ("only in this run", comparison.only_after),
        )
    )
    totals = "".join(
        f'<tr><th>{name}</th><td class="num">{a}</td><td class="num">{b}</td></tr>'
        for name, a, b in (
            ("tasks", f"{old.tasks:,}", f"{new.tasks:,}"),
            ("passed", escape(pass_rate(old)), escape(pass_rate(new))),
            ("cost", money(old.cost), money(new.cost)),
            ("time", duration(old.wall_time), duration(new.wall_time)),
            ("model calls", f"{old.model_calls:,}", f"{new.model_calls:,}"),
            ("tokens", f"{old.tokens:,}", f"{new.tokens:,}"),
        )
    )
    return (
        f"<h2>Compared with {before}</h2><ul>{items}</ul><table><thead><tr><th></th>"
        f"<th>before</th><th>this run</th></tr></thead><tbody>{totals}</tbody></table>"
    )


def _scatter(outcomes: list[TaskOutcome]) -> str:
    drawn = [o for o in outcomes if o.cost is not None and o.wall_time is not None]
    missing = len(outcomes) - len(drawn)
    note = (
        f"<p>{counted(missing, 'task')} without a known cost or time "
        f"{'is' if missing == 1 else 'are'} not drawn.</p>"
        if missing
        else ""
    )
    if not drawn:
        return f"<h2>Cost and time</h2>{note}"
    top_time = max(o.wall_time or 0.0 for o in drawn) or 1.0
    top_cost = max(o.cost or 0.0 for o in drawn) or 1.0
    inner_w, inner_h = PLOT_WIDTH - PLOT_LEFT - PLOT_MARGIN, PLOT_HEIGHT - 2 * PLOT_MARGIN
    dots = []
    for o in drawn:
        x = PLOT_LEFT + (o.wall_time or 0.0) / top_time * inner_w
        y = PLOT_HEIGHT - PLOT_MARGIN - (o.cost or 0.0) / top_cost * inner_h
        tip = (
            f"{o.id}: {o.outcome}, {money(o.cost)}, {duration(o.wall_time)}, "
            f"{o.model_calls or 0} model calls"
        )
        dots.append(
            f'<circle class="{_kind(o)}" cx="{x:.1f}" cy="{y:.1f}" r="5">'
            f"<title>{escape(tip)}</title></circle>"
        )
    left, bottom = PLOT_LEFT, PLOT_HEIGHT - PLOT_MARGIN
    axes = (
        f'<line x1="{left}" y1="{bottom}" x2="{PLOT_WIDTH - PLOT_MARGIN}" y2="{bottom}" '
        f'stroke="#8a93a8"/><line x1="{left}" y1="{PLOT_MARGIN}" x2="{left}" '
        f'y2="{bottom}" stroke="#8a93a8"/>'
        f'<text class="axis" x="{left}" y="{bottom + 16}">0</text>'
        f'<text class="axis" x="{PLOT_WIDTH - PLOT_MARGIN}" y="{bottom + 16}" '
        f'text-anchor="end">{escape(duration(top_time))}</text>'
        f'<text class="axis" x="{(left + PLOT_WIDTH - PLOT_MARGIN) / 2}" y="{bottom + 34}" text-anchor="middle">'
        "wall time</text>"
        f'<text class="axis" x="{left - 6}" y="{PLOT_MARGIN + 4}" text-anchor="end">'
        f"{escape(money(top_cost))}</text>"
        f'<text class="axis" x="{left - 6}" y="{bottom}" text-anchor="end">$0</text>'
        f'<text class="axis" x="12" y="{PLOT_HEIGHT / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {PLOT_HEIGHT / 2})">cost</text>'
    )
    legend = (
        '<p class="legend"><span class="pass">● passed</span><span class="fail">● '
        'failed its check</span><span class="done">● done, not graded</span>'
        '<span class="error">● did not finish (failed, timeout…)</span></p>'
    )
    return (
        f'<h2>Cost and time</h2><svg xmlns="http://www.w3.org/2000/svg" width="{PLOT_WIDTH}"'
        f' height="{PLOT_HEIGHT}" viewBox="0 0 {PLOT_WIDTH} {PLOT_HEIGHT}" role="img" '
        f'aria-label="cost against wall time, one dot per task">{axes}{"".join(dots)}'
        f"</svg>{legend}{note}"
    )


def _tasks(results: BatchResults) -> str:
    head = "".join(
        f"<th>{name}</th>"
        for name in ("id", "status", "passed", "cost", "time", "model calls", "tokens", "session")
    )
    rows = []
    for o in results.outcomes.values():
        cells = [
            f"<td>{escape(o.id)}</td>",
            f'<td class="{_kind(o)}">{escape(o.status)}'
            + (
                f"<details><summary>error</summary><pre>{escape(o.error)}</pre></details>"
                if o.error
                else ""
            )
            + "</td>",
            f'<td class="{_kind(o)}" data-sort="{_order(o)}">{passed_word(o)}</td>',
            _number_cell(money(o.cost), o.cost),
            _number_cell(duration(o.wall_time), o.wall_time),
            _number_cell("—" if o.model_calls is None else f"{o.model_calls:,}", o.model_calls),
            _number_cell("—" if o.tokens is None else f"{o.tokens:,}", o.tokens),
            f"<td>{_session(o)}</td>",
        ]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<h2>Tasks</h2><p>Click a heading to sort.</p><table id="tasks"><thead><tr>{head}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _session(outcome: TaskOutcome) -> str:
    command = replay_command(outcome)
    if command is None:
        return "—"
    html = f'<code>{escape(command)}</code><button class="copy" type="button">copy</button>'
    log = session_log(outcome)
    if log is not None:
        html += f' <a href="{escape(log.resolve().as_uri())}">log</a>'
    return html


def _number_cell(text: str, value: float | None) -> str:
    sort = "" if value is None else f' data-sort="{value}"'
    return f'<td class="num"{sort}>{escape(text)}</td>'


def _order(outcome: TaskOutcome) -> int:
    """Sorting the passed column: passed, ungraded, failed."""
    return {True: 0, None: 1, False: 2}[outcome.passed]
