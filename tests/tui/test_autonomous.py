"""Autonomous coach-player mode, headless: the real command, real files, the player and the
coach answering through litellm and HTTP from one fake provider (told apart by the coach's
system prompt)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core.autonomous import approves
from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall


def is_coach(request: RecordedRequest) -> bool:
    return "You are the coach in a coach-player pair" in str(request.messages[0]["content"])


class Pair:
    """The player writes answer.py (returning 1, then what the coach asked for); the coach
    reads it and approves only ``return 2``, unless it is stubborn."""

    def __init__(self, stubborn: bool = False) -> None:
        self.stubborn = stubborn

    def __call__(self, request: RecordedRequest) -> Reply:
        results = request.tool_results()
        last = request.messages[-1]
        if is_coach(request):
            if last["role"] == "user":
                return Reply(tool_calls=[ToolCall("read_file", {"file_path": "answer.py"})])
            if "return 2" in results[-1]["content"] and not self.stubborn:
                return Reply(text="IMPLEMENTATION_APPROVED\nanswer() returns 2 as required.")
            return Reply(text="1. answer.py:2: answer() must return 2, not 1.")
        if last["role"] == "user":
            wanted = "2" if "must return 2" in str(last["content"]) else "1"
            return Reply(tool_calls=[ToolCall("write_file", {
                "file_path": "answer.py", "content": f"def answer():\n    return {wanted}\n"})])
        return Reply(text="Wrote answer.py.")


def run(folder: Path, fake: FakeProvider, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(folder / ".home")
    return subprocess.run(
        [sys.executable, "-m", "agent_tui.tui.cli", "--model", "openai/fake-model",
         "--api-base", fake.openai_base, "--api-key", "sk-test", "--approval-mode", "yolo",
         *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_the_coach_sends_the_player_back_until_it_approves(tmp_path):
    with FakeProvider(responder=Pair()) as fake:
        done = run(tmp_path, fake, "--autonomous", "-p", "answer() returns 2",
                   "--output-format", "stream-json")
        coach_requests = [r for r in fake.requests if r.method == "POST" and is_coach(r)]
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "answer.py").read_text() == "def answer():\n    return 2\n"
    events = [json.loads(line) for line in done.stdout.splitlines()]
    rounds = [e for e in events if e["type"] == "round"]
    assert [(r["round"], r["approved"]) for r in rounds] == [(1, False), (2, True)]
    roles = {e.get("role") for e in events if e["type"] == "tool_call"}
    assert roles == {"player", "coach"}
    final = events[-1]
    assert final["type"] == "result" and final["autonomous"] and final["approved"]
    assert final["rounds"] == 2 and final["session_id"]
    # The coach has no editing tools, and its own context.
    offered = {t["function"]["name"] for t in coach_requests[0].tools}
    assert "read_file" in offered and not offered & {"write_file", "edit_file"}
    assert "Wrote answer.py." in str(coach_requests[0].messages[-1]["content"])


def test_a_coach_that_never_approves_stops_at_the_rounds(tmp_path):
    with FakeProvider(responder=Pair(stubborn=True)) as fake:
        done = run(tmp_path, fake, "--autonomous", "-p", "answer() returns 2",
                   "--max-turns", "2")
    assert done.returncode == 1
    assert done.stdout.startswith("The coach did not approve after 2 rounds.")
    assert "must return 2, not 1" in done.stdout
    assert "[coach] ● read_file" in done.stderr
    assert "── round 2: the coach asks for changes" in done.stderr


def test_requirements_from_a_file_and_a_coach_model(tmp_path):
    (tmp_path / "req.md").write_text("answer() returns 2\n")
    with FakeProvider(responder=Pair()) as fake:
        done = run(tmp_path, fake, "--autonomous", "--requirements", "req.md",
                   "--coach-model", "openai/coach-model", "--output-format", "json")
        models = {("coach" if is_coach(r) else "player"): r.body.get("model")
                  for r in fake.requests if r.method == "POST"}
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["approved"] is True
    assert models == {"coach": "coach-model", "player": "fake-model"}


@pytest.mark.parametrize(("args", "said"), [
    (["--autonomous"], "--autonomous needs the requirements"),
    (["--autonomous", "-p", "x", "--requirements", "r.md"], "give the requirements once"),
    (["--coach-model", "openai/x", "-p", "x"], "go with --autonomous"),
    (["--autonomous", "--requirements", "missing.md"], "cannot read the requirements"),
])
def test_usage_errors(tmp_path, args, said):
    with FakeProvider() as fake:
        done = run(tmp_path, fake, *args)
    assert done.returncode == 2 and said in done.stderr


def test_what_counts_as_approval():
    assert approves("IMPLEMENTATION_APPROVED\nall good")
    assert approves("Checked everything.\n\n**IMPLEMENTATION_APPROVED**")
    assert not approves("Not IMPLEMENTATION_APPROVED yet: fix the test.")
    assert not approves("1. answer() must return 2")


async def test_auto_in_the_workbench_accumulates_and_shows_both_lanes(tmp_path):
    from agent_tui.tui.widgets.conversation import NoticeBlock
    from tests.tui.test_app import SIZE, app_for, type_prompt, until

    with FakeProvider(responder=Pair()) as fake:
        app = app_for(fake, tmp_path, approval_mode="auto-edit")
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "/auto answer() returns 2")
            await until(pilot, lambda: not app.busy and any(
                "approved after 2 rounds" in str(n.content) for n in app.query(NoticeBlock)),
                timeout=60)
            notices = [str(n.content) for n in app.query(NoticeBlock)]
            assert "▌ Player · round 1: implementing" in notices
            assert "▌ Coach · round 1: reviewing the player's work" in notices
            assert "Round 1: the coach asks for changes." in notices
            assert "Round 2: the coach approves." in notices
            assert (tmp_path / "answer.py").read_text() == "def answer():\n    return 2\n"
            # Accumulative: the next /auto carries both requirements.
            await type_prompt(pilot, "/auto answer.py has a docstring")
            await until(pilot, lambda: not app.busy and sum(
                "the coach approves" in str(n.content) for n in app.query(NoticeBlock)) == 2,
                timeout=60)
            assert app.autonomous.accumulated() == (
                "1. answer() returns 2\n2. answer.py has a docstring")
        player = [r for r in fake.requests if r.method == "POST" and not is_coach(r)]
        assert "2. answer.py has a docstring" in str(player[-1].messages)
