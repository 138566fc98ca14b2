"""``--reasoning-effort`` on the real command line, and reasoning tokens in ``-p`` JSON and in
batch results, against the fake OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.fakes.providers import Reply
from tests.tui.cli.test_batch import results, tasks_file
from tests.tui.cli.test_cli import agent_tui


def o3_flags(fake):
    return ["--model", "openai/o3-mini", "--api-base", fake.openai_base, "--api-key", "sk-test"]


def test_the_flag_sets_the_effort_and_json_counts_reasoning_tokens(fake_provider, tmp_path):
    fake_provider.script(Reply(text="Hi.", thinking="A greeting.", reasoning_tokens=25))

    done = agent_tui("-p", "hi", "--output-format", "json", "--reasoning-effort", "high",
                     *o3_flags(fake_provider), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert fake_provider.requests[0].body["reasoning_effort"] == "high"
    assert json.loads(done.stdout)["usage"]["reasoning_tokens"] == 25


def test_batch_results_count_reasoning_tokens(fake_provider, tmp_path):
    fake_provider.script(Reply(text="Hi.", thinking="A greeting.", reasoning_tokens=9))
    tasks = tasks_file(tmp_path, {"id": "t1", "prompt": "hi"})
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(tmp_path / ".home")

    done = subprocess.run(
        [sys.executable, "-m", "agent_tui.tui.cli.main", "batch", str(tasks),
         *o3_flags(fake_provider)], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=180)

    assert done.returncode == 0, done.stderr
    assert results(tmp_path)["t1"]["tokens"]["reasoning_tokens"] == 9
