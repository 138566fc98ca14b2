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

from agent_tui.core.modes.autonomous import FOLLOW_UP, approves, approves_in_own_words
from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall
from tests.fakes.repo_map import last_message


def is_coach(request: RecordedRequest) -> bool:
    return "You are the coach in a coach-player pair" in str(request.messages[0]["content"])


class Pair:
    """The player writes answer.py (returning 1, then what the coach asked for); the coach
    reads it and approves only ``return 2``, unless it is stubborn."""

    def __init__(self, stubborn: bool = False) -> None:
        self.stubborn = stubborn

    def __call__(self, request: RecordedRequest) -> Reply:
        results = request.tool_results()
        last = last_message(request)
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
        [sys.executable, "-m", "agent_tui.tui.cli.main", "--model", "openai/fake-model",
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
    assert "Wrote answer.py." in str(last_message(coach_requests[0])["content"])


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


@pytest.mark.parametrize(("args", "said"), [
    (["--autonomous", "--requirements", "missing.md"],
     "cannot read the requirements file missing.md: No such file or directory; pass a file "
     "that exists with --requirements FILE, or the requirements themselves with -p TEXT."),
    (["--autonomous", "--requirements", "empty.md"],
     "the requirements file empty.md is empty; write the requirements in it, or pass them "
     "with -p TEXT."),
    (["--autonomous", "-p", "x", "--preview"],
     "--image and --preview do not go with --autonomous: the player and the coach take text "
     "requirements and ask nobody; drop them."),
    (["--requirements", "req.md", "-p", "x"],
     "--requirements and --coach-model go with --autonomous (--coach-model also with "
     "--planning); add it, or drop them."),
])
def test_a_refusal_to_start_is_one_line_saying_what_to_do(tmp_path, args, said):
    (tmp_path / "empty.md").write_text("\n")
    with FakeProvider() as fake:
        done = run(tmp_path, fake, *args)
        assert not fake.requests
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"agent-tui: error: {said}"]


@pytest.mark.parametrize("review", [
    "IMPLEMENTATION_APPROVED",
    "IMPLEMENTATION_APPROVED\nall good",
    "Checked everything.\n\n**IMPLEMENTATION_APPROVED**",
    "**IMPLEMENTATION_APPROVED** - all requirements met, tests pass.",
    "IMPLEMENTATION_APPROVED - all good",
    "IMPLEMENTATION_APPROVED: answer() returns 2 and the tests pass.",
    "IMPLEMENTATION_APPROVED.",
    "__IMPLEMENTATION_APPROVED__",
    "*IMPLEMENTATION_APPROVED*: summary follows",
    "## IMPLEMENTATION_APPROVED",
    "  IMPLEMENTATION_APPROVED — no problems found",
    "I ran the tests (3 passed).\n\n**IMPLEMENTATION_APPROVED**\n\nSummary: done.",
    "```\n$ pytest\n3 passed\n```\nIMPLEMENTATION_APPROVED: the tests pass",
])
def test_a_line_that_begins_with_the_marker_approves(review):
    assert approves(review)


@pytest.mark.parametrize("review", [
    "Not IMPLEMENTATION_APPROVED yet: fix the test.",
    "not IMPLEMENTATION_APPROVED yet",
    "I cannot say IMPLEMENTATION_APPROVED",
    "> IMPLEMENTATION_APPROVED",
    "The player wrote:\n> **IMPLEMENTATION_APPROVED**\nbut the tests fail.",
    "`IMPLEMENTATION_APPROVED`",
    "```\nIMPLEMENTATION_APPROVED\n```\nThat is what I will write once it works.",
    "Do not reply IMPLEMENTATION_APPROVED until the tests pass.",
    "1. answer() must return 2",
    "IMPLEMENTATION_APPROVED? Not yet: answer() returns 1.",
    "IMPLEMENTATION_APPROVED once the tests pass.",
    "IMPLEMENTATION_APPROVED_LATER",
    "IMPLEMENTATION_APPROVED: not until answer.py returns 2.",
    "1. answer.py:2 returns 1.\nI will write IMPLEMENTATION_APPROVED when it returns 2.",
])
def test_a_negated_or_quoted_marker_does_not_approve(review):
    assert not approves(review)


@pytest.mark.parametrize(("review", "own_words"), [
    ("Approved.", True),
    ("LGTM, the implementation is approved.", True),
    ("Looks good to me: answer() returns 2.", True),
    ("All requirements are met and the tests pass.", True),
    ("**Approved** - answer() returns 2", True),
    ("Not approved: answer() returns 1.", False),
    ("1. answer.py:2: answer() must return 2, not 1.", False),
    ("This is not approved until the tests pass.", False),
    ("> Approved.", False),
])
def test_an_approval_in_the_coachs_own_words(review, own_words):
    assert approves_in_own_words(review) is own_words


class InOwnWords(Pair):
    """The coach approves in its own words, then answers the follow-up with ``follow_up``."""

    def __init__(self, follow_up: str) -> None:
        super().__init__()
        self.follow_up = follow_up

    def __call__(self, request: RecordedRequest) -> Reply:
        if is_coach(request) and last_message(request)["role"] != "user" \
                and "return 2" in request.tool_results()[-1]["content"]:
            return Reply(text="LGTM, the implementation is approved.")
        if is_coach(request) and FOLLOW_UP in str(last_message(request)["content"]):
            return Reply(text=self.follow_up)
        return super().__call__(request)


@pytest.mark.parametrize("follow_up", ["IMPLEMENTATION_APPROVED - answer() returns 2.",
                                       "Approved, as I said."])
def test_a_coach_that_approves_in_its_own_words_is_asked_once(tmp_path, follow_up):
    with FakeProvider(responder=InOwnWords(follow_up)) as fake:
        done = run(tmp_path, fake, "--autonomous", "-p", "answer() returns 2",
                   "--max-turns", "5", "--output-format", "stream-json")
        coach_asked = [str(last_message(r)["content"]) for r in fake.requests
                       if r.method == "POST" and is_coach(r) and last_message(r)["role"] == "user"]
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(e["round"], e["approved"]) for e in events if e["type"] == "round"] == [
        (1, False), (2, True)]
    assert events[-1]["approved"] and events[-1]["rounds"] == 2
    # Round 1's coach listed a problem (no question); round 2's approval in its own words
    # was followed by one short question.
    assert [FOLLOW_UP in asked for asked in coach_asked] == [False, False, True]


def test_a_follow_up_answered_with_feedback_sends_the_player_back(tmp_path):
    with FakeProvider(responder=InOwnWords("1. answer.py has no docstring.")) as fake:
        done = run(tmp_path, fake, "--autonomous", "-p", "answer() returns 2",
                   "--max-turns", "3", "--output-format", "stream-json")
        player_asked = [str(last_message(r)["content"]) for r in fake.requests
                        if r.method == "POST" and not is_coach(r)
                        and last_message(r)["role"] == "user"]
    assert done.returncode == 1
    assert len(player_asked) == 3 and "answer.py has no docstring" in player_asked[2]


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


async def test_auto_in_the_workbench_asks_before_a_coach_call_and_goes_on_after_y(tmp_path):
    """The coach's command asks in the approval modal as the player's would; ``y`` runs it."""
    from tests.tui.test_app import SIZE, app_for, type_prompt, until
    from tests.tui.test_app_approvals import modal

    def respond(request: RecordedRequest) -> Reply:
        if is_coach(request):
            if last_message(request)["role"] == "user":
                return Reply(tool_calls=[ToolCall("shell", {"command": "touch coach-ran.txt"})])
            return Reply(text="**IMPLEMENTATION_APPROVED** - the tests ran.")
        if last_message(request)["role"] == "user":
            return Reply(tool_calls=[ToolCall("write_file", {
                "file_path": "answer.py", "content": "def answer():\n    return 2\n"})])
        return Reply(text="Wrote answer.py.")

    with FakeProvider(responder=respond) as fake:
        app = app_for(fake, tmp_path, approval_mode="auto-edit")
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "/auto answer() returns 2")
            await until(pilot, lambda: modal(app) is not None, timeout=60)
            assert modal(app).request.tool == "shell"
            assert "touch coach-ran.txt" in modal(app).request.summary
            await pilot.press("y")
            await until(pilot, lambda: not app.busy, timeout=60)
            from agent_tui.tui.widgets.conversation import NoticeBlock
            notices = [str(n.content) for n in app.query(NoticeBlock)]
            assert "Round 1: the coach approves." in notices
            assert not any("Unexpected error" in n for n in notices)
    assert (tmp_path / "coach-ran.txt").exists()
