"""``agent-tui batch report`` and the progress a batch shows while it runs: real batches on
real worker processes against the fake provider (through litellm and HTTP), the report read
from their results file, the live line on a real pty, the page in headless Chromium."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest

from tests.fakes.providers import FakeProvider
from tests.tui.cli.test_batch import batch, by_prompt, tasks_file


@pytest.fixture
def fake():
    with FakeProvider(responder=by_prompt) as provider:
        yield provider


def report(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(folder / ".home")
    return subprocess.run(
        [sys.executable, "-m", "agent_tui.tui.cli.main", "batch", "report", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def write(path: Path, *lines: dict | str) -> Path:
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    )
    return path


def test_a_batch_through_a_pipe_tells_plain_lines_and_its_report_opens_each_session(fake, tmp_path):
    tasks = tasks_file(
        tmp_path, {"id": "one", "prompt": "write one"}, {"id": "two", "prompt": "write two"}
    )
    done = batch(tmp_path, fake, str(tasks), "--workers", "2")
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr and "\x1b" not in done.stderr
    assert "[1/2] " in done.stderr and "[2/2] " in done.stderr
    assert "2 done, 0 failed" in done.stderr
    lines = [
        json.loads(line) for line in (tmp_path / "tasks.results.jsonl").read_text().splitlines()
    ]
    sessions = {r["id"]: r["session_id"] for r in lines}

    shown = report(tmp_path, "tasks.results.jsonl", "--html", "report.html")
    assert shown.returncode == 0, shown.stderr
    assert "tasks.results.jsonl: 2 tasks" in shown.stdout
    assert "  status    done 2" in shown.stdout
    assert 'passed    no graded tasks (a task\'s "check" command grades it)' in shown.stdout
    for task_id, session in sessions.items():
        assert any(
            row.startswith(task_id) and row.endswith(session) and " done " in row
            for row in shown.stdout.splitlines()
        )
    assert "the page is in report.html" in shown.stderr
    page = (tmp_path / "report.html").read_text()
    for session in sessions.values():
        assert f"<code>cd {tmp_path} &amp;&amp; agent-tui replay {session}</code>" in page
        log = tmp_path / ".home" / "sessions" / session / "events.jsonl"
        assert log.is_file()
        assert f'<a href="{log.as_uri()}">log</a>' in page

    as_json = json.loads(report(tmp_path, "tasks.results.jsonl", "--json").stdout)
    assert as_json["summary"]["tasks"] == 2 and as_json["summary"]["model_calls"] == 4
    assert {t["session_id"] for t in as_json["tasks"]} == set(sessions.values())


def test_on_a_terminal_one_live_line_is_rewritten_under_the_finished_tasks(fake, tmp_path):
    tasks = tasks_file(tmp_path, *({"id": f"t{n}", "prompt": f"write t{n}"} for n in range(3)))
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    shown = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")
    }
    env.update(AGENT_TUI_HOME=str(tmp_path / ".home"), TERM="xterm")
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_tui.tui.cli.main",
            "batch",
            str(tasks),
            "--workers",
            "1",
            "--model",
            "openai/gpt-4o",
            "--api-base",
            fake.openai_base,
            "--api-key",
            "sk-test",
            "--approval-mode",
            "yolo",
        ],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        timeout=180,
    )
    os.close(slave)
    reader.join(timeout=5)
    os.close(master)
    terminal = shown.decode(errors="replace")
    assert process.returncode == 0, terminal
    assert re.search(
        r"\r\x1b\[K0 done, 0 failed, 1 running of 3 · ETA after the first task · "
        r"\d+s elapsed",
        terminal,
    )
    assert re.search(
        r"\r\x1b\[K1 done, 0 failed, [01] running of 3 · \$0\.\d{4} · "
        r"ETA \d+s · \d+s elapsed",
        terminal,
    )
    for n in range(3):  # each finished task's line replaces the live line, which follows it
        assert re.search(
            rf"\r\x1b\[K\[{n + 1}/3\] t{n} done \(2 model calls \$0\.\d{{4}}, "
            r"\d+\.\d s\)\r\n",
            terminal,
        )
    last_task, summary = terminal.split("\r\x1b[K")[-1].splitlines()  # no live line left
    assert last_task.startswith("[3/3] t2 done")
    assert (
        summary == f"agent-tui batch: 3 done, 0 failed; results in {tasks.parent}/"
        "tasks.results.jsonl"
    )


def test_comparing_two_results_files_names_the_flipped_tasks(tmp_path):
    def line(task_id: str, passed: bool | None, status: str = "done") -> dict:
        return {
            "id": task_id,
            "status": status,
            "passed": passed,
            "cost": 0.01,
            "wall_time": 5.0,
            "model_calls": 2,
            "session_id": "s" + task_id,
        }

    write(tmp_path / "base.jsonl", line("a", True), line("b", False), line("c", True))
    write(
        tmp_path / "new.jsonl",
        line("a", False),
        line("b", True),
        line("c", None, "timeout"),
        line("b", True),
    )
    shown = report(tmp_path, "new.jsonl", "--compare", "base.jsonl")
    assert shown.returncode == 0, shown.stderr
    assert "new.jsonl: 3 tasks" in shown.stdout
    assert "Compared with base.jsonl (before) → new.jsonl (after):" in shown.stdout
    assert "  pass → fail (1): a\n  fail → pass (1): b\n  newly failing (1): c" in shown.stdout
    data = json.loads(report(tmp_path, "new.jsonl", "--compare", "base.jsonl", "--json").stdout)
    assert data["comparison"]["pass_to_fail"] == ["a"]
    assert data["comparison"]["before_summary"]["passed"] == 2


def test_bad_input_is_a_usage_error_naming_the_file_and_line(tmp_path):
    write(tmp_path / "r.jsonl", {"id": "a", "status": "done"}, "oops")
    shown = report(tmp_path, "r.jsonl")
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr.startswith(
        "agent-tui batch report: error: r.jsonl:2: not a result line (not JSON: Expecting value)"
    )
    write(tmp_path / "good.jsonl", {"id": "a", "status": "done"})
    missing = report(tmp_path, "good.jsonl", "--compare", "nope.jsonl")
    assert missing.returncode == 2
    assert "error: nope.jsonl: no such file; pass the results file a batch wrote" in missing.stderr
    nowhere = report(tmp_path, "good.jsonl", "--html", "no/such/folder/page.html")
    assert nowhere.returncode == 1
    assert (
        "error: cannot write no/such/folder/page.html: No such file or directory; pass "
        "--html a path in a folder you can write to" in nowhere.stderr
    )


@pytest.mark.skipif(not shutil.which("chromium"), reason="needs chromium (Debian: chromium)")
def test_the_page_runs_its_own_script_and_no_injected_one_in_headless_chromium(tmp_path):
    write(
        tmp_path / "r.jsonl",
        {
            "id": "<script>document.title='pwned'</script>",
            "status": "failed",
            "error": "<img src=x onerror=\"document.title='pwned'\">",
            "cost": 0.01,
            "wall_time": 3.0,
            "session_id": "abc",
        },
    )
    assert report(tmp_path, "r.jsonl", "--html", "page.html").returncode == 0
    dom = subprocess.run(
        [
            "chromium",
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            (tmp_path / "page.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
    ).stdout
    assert 'data-sortable="yes"' in dom  # the page's script ran under its own policy
    assert "pwned" not in dom.split("</title>")[0]
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom


def test_batch_help_points_at_the_report_and_the_report_has_its_own_help(tmp_path):
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / ".home")}
    main = [sys.executable, "-m", "agent_tui.tui.cli.main"]
    batch_help = subprocess.run(
        [*main, "batch", "--help"], env=env, capture_output=True, text=True, timeout=60
    )
    assert "agent-tui batch report RESULTS.jsonl reads the results" in " ".join(
        batch_help.stdout.split()
    )
    own = report(tmp_path, "--help")
    assert own.returncode == 0 and "usage: agent-tui batch report" in own.stdout
    assert "--compare OTHER" in own.stdout and "--html FILE" in own.stdout
