"""The prompt cache's reads and writes, as the fake Anthropic endpoint bills them, reach every
place usage is shown: ``-p`` JSON, ``sessions list`` (text and JSON) and batch results."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.fakes.providers import Reply, ToolCall
from tests.tui.cli.test_batch import results, tasks_file
from tests.tui.cli.test_cli import agent_tui


def anthropic_flags(fake):
    return ["--model", "anthropic/claude-sonnet-4-5", "--api-base", fake.anthropic_base,
            "--api-key", "sk-test"]


def read_then_answer(fake, times=1):
    for _ in range(times):
        fake.script(Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
                    Reply(text="It says hello."))


def test_json_output_and_sessions_list_count_cache_reads_and_writes(fake_provider, tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    read_then_answer(fake_provider)

    done = agent_tui("-p", "what do the notes say?", "--output-format", "json",
                     *anthropic_flags(fake_provider), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    usage = json.loads(done.stdout)["usage"]
    assert usage["cache_write_tokens"] > 1000
    assert usage["cache_read_tokens"] > 1000
    listed = agent_tui("sessions", "list", "--json", cwd=tmp_path)
    [session] = json.loads(listed.stdout)
    assert session["cache_read_tokens"] == usage["cache_read_tokens"]
    assert session["cache_write_tokens"] == usage["cache_write_tokens"]
    text = agent_tui("sessions", "list", cwd=tmp_path).stdout
    assert (f"(cache: {usage['cache_read_tokens']:,} read, "
            f"{usage['cache_write_tokens']:,} written)") in text


def test_batch_results_count_cache_reads_and_writes(fake_provider, tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    read_then_answer(fake_provider)
    tasks = tasks_file(tmp_path, {"id": "t1", "prompt": "what do the notes say?"})
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(tmp_path / ".home")

    done = subprocess.run(
        [sys.executable, "-m", "agent_tui.tui.cli.main", "batch", str(tasks),
         *anthropic_flags(fake_provider)], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=180)

    assert done.returncode == 0, done.stderr
    tokens = results(tmp_path)["t1"]["tokens"]
    assert tokens["cache_write_tokens"] > 1000 and tokens["cache_read_tokens"] > 1000
