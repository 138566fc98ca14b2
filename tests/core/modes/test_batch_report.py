"""Reading a batch's results file for ``agent-tui batch report``: the last line of a task wins,
old lines lack fields, bad lines are errors naming the file and line; the totals, the
percentiles, the comparison of two runs, and the HTML page (escaped, self-contained)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest

from agent_tui.core.modes.batch_html import render_html, replay_command
from agent_tui.core.modes.batch_report import ResultsError, compare, read_results, spread
from agent_tui.core.modes.batch_report_text import (
    format_comparison,
    format_report,
    report_json,
)
from agent_tui.core.sessions.log import log_path


def write(path: Path, *lines: dict | str) -> Path:
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    )
    return path


def result(
    task_id: str,
    status: str = "done",
    passed: bool | None = None,
    cost: float = 0.01,
    wall: float = 10.0,
    calls: int = 2,
    tokens: int = 1000,
    **more,
) -> dict:
    line = {
        "id": task_id,
        "status": status,
        "cost": cost,
        "wall_time": wall,
        "duration": wall - 0.5,
        "model_calls": calls,
        "tokens": {"total_tokens": tokens},
        "session_id": f"s-{task_id}",
        "folder": "/work/project",
        **more,
    }
    if passed is not None:
        line["passed"] = passed
    return line


def test_the_last_line_of_a_task_wins_and_old_lines_lack_fields(tmp_path):
    path = write(
        tmp_path / "r.jsonl",
        result("a", "failed", error="provider down"),
        # an older agent-tui: no passed, no wall_time, turns instead of model_calls
        {
            "id": "old",
            "status": "done",
            "duration": 3.5,
            "turns": 4,
            "tokens": {"prompt_tokens": 9},
        },
        result("a", passed=True, cost=0.02),
    )
    results = read_results(path)
    assert list(results.outcomes) == ["old", "a"]
    a, old = results.outcomes["a"], results.outcomes["old"]
    assert (a.status, a.passed, a.cost, a.line) == ("done", True, 0.02, 3)
    assert old.passed is None and old.outcome == "done" and old.ok
    assert (old.wall_time, old.model_calls, old.tokens, old.cost) == (3.5, 4, None, None)
    summary = results.summary()
    assert (summary.tasks, summary.graded, summary.passed, summary.costed) == (2, 1, 1, 1)
    assert summary.by_status == {"done": 2}


def test_a_broken_line_is_an_error_naming_the_file_and_line(tmp_path):
    path = write(tmp_path / "r.jsonl", result("a"), "not json at all", result("b"))
    with pytest.raises(ResultsError, match=re.escape(f"{path}:2: not a result line (not JSON")):
        read_results(path)
    write(path, result("a"), '["a list"]')
    with pytest.raises(
        ResultsError,
        match=re.escape(f'{path}:2: not a result line (a result is a JSON object with an "id")'),
    ):
        read_results(path)
    with pytest.raises(
        ResultsError,
        match=re.escape(f"{tmp_path / 'none.jsonl'}: no such file; pass the results file"),
    ):
        read_results(tmp_path / "none.jsonl")


def test_a_line_cut_short_by_a_crash_is_skipped_and_told(tmp_path):
    path = write(tmp_path / "r.jsonl", result("a"), '{"id": "b", "stat', result("c"))
    results = read_results(path)
    assert list(results.outcomes) == ["a", "c"] and results.torn_lines == [2]
    assert "1 line cut short by a crash (line 2)" in format_report(results)


def test_percentiles_are_values_that_occurred_by_nearest_rank():
    found = spread([float(n) for n in range(10, 0, -1)])
    assert found is not None
    assert (found.p50, found.p90, found.max, found.count) == (5.0, 9.0, 10.0, 10)
    one = spread([7.0])
    assert one is not None and (one.p50, one.p90, one.max) == (7.0, 7.0, 7.0)
    assert spread([]) is None


def test_the_report_gives_pass_rate_totals_percentiles_and_a_row_per_task(tmp_path):
    path = write(
        tmp_path / "r.jsonl",
        result("t1", passed=True, cost=0.0100, wall=10.0, calls=2),
        result("t2", passed=False, cost=0.0300, wall=30.0, calls=6),
        result("t3", "timeout", cost=0.0050, wall=125.0, calls=3, error="ran out"),
        result("t4", passed=True, cost=0.0200, wall=20.0, calls=4),
    )
    text = format_report(read_results(path))
    assert "  status    done 3 · timeout 1" in text
    assert "  failed    2 of 4 (a status other than done, or a failed check)" in text
    assert "  passed    2 of 3 graded (66.7%)" in text
    assert "  cost      $0.0650 total" in text and "  time      3m 05s total" in text
    assert re.search(r"cost +\$0\.0100 +\$0\.0300 +\$0\.0300", text)
    assert re.search(r"time +20\.0 s +2m 05s +2m 05s", text)
    assert re.search(r"model calls +3 +6 +6", text)
    assert re.search(r"t2 +done +no +\$0\.0300 +30\.0 s +6 +s-t2", text)
    assert re.search(r"t3 +timeout +— +\$0\.0050 +2m 05s +3 +s-t3", text)
    data = report_json(read_results(path))
    assert data["summary"]["pass_rate"] == pytest.approx(2 / 3)
    assert data["summary"]["percentiles"]["wall_time"] == {
        "p50": 20.0,
        "p90": 125.0,
        "max": 125.0,
        "count": 4,
    }
    assert [t["id"] for t in data["tasks"]] == ["t1", "t2", "t3", "t4"]


def test_nothing_graded_says_how_to_grade(tmp_path):
    text = format_report(read_results(write(tmp_path / "r.jsonl", result("a"))))
    assert 'passed    no graded tasks (a task\'s "check" command grades it)' in text


def test_comparing_two_runs_lists_the_tasks_that_flipped(tmp_path):
    before = read_results(
        write(
            tmp_path / "before.jsonl",
            result("steady", passed=True),
            result("broke", passed=True),
            result("fixed", passed=False),
            result("crashed", passed=True),
            result("ungraded", cost=0.5),
            result("gone", passed=True),
        )
    )
    after = read_results(
        write(
            tmp_path / "after.jsonl",
            result("steady", passed=True),
            result("broke", passed=False),
            result("fixed", passed=True),
            result("crashed", "timeout"),
            result("ungraded", "failed", cost=0.25),
            result("new", passed=True),
        )
    )
    comparison = compare(before, after)
    assert comparison.pass_to_fail == ["broke"]
    assert comparison.fail_to_pass == ["fixed"]
    assert comparison.newly_failing == ["crashed", "ungraded"]
    assert (comparison.only_before, comparison.only_after) == (["gone"], ["new"])
    text = format_comparison(comparison)
    assert "  pass → fail (1): broke" in text and "  fail → pass (1): fixed" in text
    assert "  newly failing (2): crashed, ungraded" in text
    assert f"  only in {tmp_path / 'before.jsonl'} (1): gone" in text
    assert re.search(r"pass rate +80\.0% +75\.0% +-5\.0 pts", text)
    assert re.search(r"cost +\$0\.5500 +\$0\.3000 +-\$0\.2500", text)
    assert re.search(r"timeout +0 +1 +\+1", text)


def test_the_page_escapes_what_came_from_the_results_file(tmp_path):
    path = write(
        tmp_path / "r.jsonl",
        result("<script>alert(1)</script>", "failed", error="<img src=x onerror=1>"),
        result("ok", passed=True, folder="/work/my project"),
    )
    page = render_html(read_results(path))
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img" not in page and "&lt;img src=x onerror=1&gt;" in page
    assert page.count("<script>") == 1  # the page's own, and nothing else runs
    script = page.split("<script>")[1].split("</script>")[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src &#x27;sha256-{digest}&#x27;" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page
    assert "<code>cd &#x27;/work/my project&#x27; &amp;&amp; agent-tui replay s-ok</code>" in page


def test_the_page_has_a_dot_per_task_and_links_a_session_log_on_this_disk(tmp_path):
    write(tmp_path / "r.jsonl", result("here", passed=True), result("away", passed=False))
    log = log_path("s-here")  # under this test's AGENT_TUI_HOME
    log.parent.mkdir(parents=True)
    log.write_text("{}\n")
    results = read_results(tmp_path / "r.jsonl")
    page = render_html(results)
    assert page.count("<circle ") == 2
    assert '<circle class="pass"' in page and '<circle class="fail"' in page
    assert "<title>here: pass, $0.0100, 10.0 s, 2 model calls</title>" in page
    assert f'<a href="{log.resolve().as_uri()}">log</a>' in page
    assert page.count(">log</a>") == 1  # the other session is not on this disk
    assert replay_command(results.outcomes["away"]) == "cd /work/project && agent-tui replay s-away"
