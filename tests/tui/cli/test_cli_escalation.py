"""``agent-tui -p … --escalation-model MODEL`` as a real process against the fake provider."""

from __future__ import annotations

import json

from tests.fakes.providers import Reply
from tests.tui.cli.test_cli import agent_tui, fake_flags


def test_a_headless_run_escalates_and_says_so_on_stderr(fake_provider, tmp_path):
    fake_provider.script(Reply(text="I cannot proceed: the parser is beyond me."),
                         Reply(text="Parsed it."))

    done = agent_tui("-p", "parse it", *fake_flags(fake_provider),
                     "--escalation-model", "openai/strong-model", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Parsed it.\n"
    assert ("↑ escalated to openai/strong-model: I cannot proceed: the parser is beyond me."
            in done.stderr)
    assert [r.body["model"] for r in fake_provider.requests] == ["fake-model", "strong-model"]


def test_stream_json_carries_the_escalation_and_the_result_names_the_model(fake_provider,
                                                                           tmp_path):
    fake_provider.script(Reply(text="I am stuck."), Reply(text="Unstuck."))

    done = agent_tui("-p", "go", "--output-format", "stream-json", *fake_flags(fake_provider),
                     "--escalation-model", "openai/strong-model", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [escalated] = [e for e in events if e["type"] == "escalated"]
    assert escalated == {"type": "escalated", "model": "openai/strong-model",
                         "reason": "I am stuck.", "trigger": "answer"}
    assert events[-1]["type"] == "result" and events[-1]["escalated_to"] == "openai/strong-model"
