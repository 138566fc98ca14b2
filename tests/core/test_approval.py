"""The approval exchange through the real loop: each decision a front end can give, and
what the engine makes of it (what runs, what the model is told, which rules are kept)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core import paths
from agent_tui.core.agent import Agent
from agent_tui.core.approval import (
    Allow,
    ApprovalRequest,
    ArgumentDetails,
    CommandDetails,
    Decision,
    Deny,
    EditDetails,
    RememberedRules,
    RunEdited,
    WriteEdited,
    WriteHunks,
)
from agent_tui.core.calls.gate import unredact
from agent_tui.core.config import read_toml
from agent_tui.core.events import ApprovalDecided, Event
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import FakeProvider, Reply, ToolCall

SECRET = "hunter2-very-secret-value"


class ScriptedApprover:
    """Answers each request with the next decision (or by calling it on the request)."""

    def __init__(self, *answers: Decision | Callable[[ApprovalRequest], Decision]) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []
        self.previews: list[Any] = []
        self.remembered_rules: list[RememberedRules] = []

    async def ask(self, request: ApprovalRequest, preview: Any = None) -> Decision:
        self.asked.append(request)
        self.previews.append(preview)
        answer = self.answers.pop(0)
        return answer(request) if callable(answer) else answer

    def remembered(self, saved: RememberedRules) -> None:
        self.remembered_rules.append(saved)

    async def review_summary(self, summary: str) -> str:
        return summary


async def run_with(fake: FakeProvider, workdir: Path, approver: ScriptedApprover,
                   *calls: ToolCall, **settings: Any) -> tuple[list[Event], list[str], Agent]:
    """Run one call per model reply; return the events and what the model was told."""
    # Text before each call: the same call twice in a row is then not a blind repeat.
    fake.script(*(Reply(text="Next.", tool_calls=[call]) for call in calls), Reply(text="done"))
    config = settings_for(fake, **settings)
    events: list[Event] = []
    agent = Agent(LitellmProvider(config), ToolRegistry(builtin_tools()), config, workdir,
                  approver, events.append)
    result = await agent.run("go")
    assert result.ok, result.error
    told = [r.tool_results()[-1]["content"] for r in fake.requests[1:]]
    return events, told, agent


def decisions(events: list[Event]) -> list[tuple[str, str, str]]:
    return [(e.decision, e.reason, e.by) for e in events if isinstance(e, ApprovalDecided)]


async def test_the_request_is_data_with_secrets_hidden(
        fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", SECRET)
    approver = ScriptedApprover(Deny(), Deny(), Deny())
    (tmp_path / "notes.md").write_text("a\n")
    await run_with(fake_provider, tmp_path, approver,
                   ToolCall("shell", {"command": f"curl -H 'x: {SECRET}' x.test; make"}),
                   ToolCall("write_file", {"file_path": "new.md", "content": "hi\n"}),
                   ToolCall("read_file", {"file_path": "/etc/hostname"}))
    command, write, read = approver.asked
    assert isinstance(command.details, CommandDetails) and command.kind == "execute"
    assert SECRET not in repr(command) and "[REDACTED]" in command.details.command
    assert command.details.working_dir == ". (the project folder)"
    assert command.editable and command.preview is not None
    assert [p.verdict.value for p in command.parts] == ["ask", "ask"]
    assert command.rules == ("shell(curl -H 'x: [REDACTED]' x.test)", "shell(make)")
    assert approver.previews[0] is not None and approver.previews[1] is None
    assert isinstance(write.details, EditDetails) and write.details.path == "new.md"
    assert write.rules == ("write_file(new.md)",) and write.editable and write.preview is None
    assert isinstance(read.details, ArgumentDetails) and '"/etc/hostname"' in read.details.arguments
    assert not hasattr(command, "invocation")


async def test_allow_once_runs_the_call_and_keeps_nothing(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    approver = ScriptedApprover(Allow(), Deny())
    events, told, agent = await run_with(
        fake_provider, tmp_path, approver, ToolCall("shell", {"command": "touch a.txt"}),
        ToolCall("shell", {"command": "touch a.txt"}))
    assert decisions(events) == [("allow", "approved once", "user"),
                                 ("deny", "denied by the user", "user")]
    assert "Exit code: 0" in told[0] and "denied by the user" in told[1]
    assert agent.session_rules == []


async def test_deny_with_a_reason_tells_the_model_the_reason(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    approver = ScriptedApprover(Deny("not on a friday"))
    events, told, _ = await run_with(fake_provider, tmp_path, approver,
                                     ToolCall("shell", {"command": "make deploy"}))
    assert decisions(events) == [("deny", "denied by the user: not on a friday", "user")]
    assert told[0] == "Error: the call was denied: denied by the user: not on a friday"


async def test_allow_for_the_session_keeps_only_the_offered_rules(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    approver = ScriptedApprover(lambda r: Allow("session", (*r.rules, "shell(*)")))
    events, told, agent = await run_with(
        fake_provider, tmp_path, approver, ToolCall("shell", {"command": "touch a.txt"}),
        ToolCall("shell", {"command": "touch a.txt"}))
    assert agent.session_rules == ["shell(touch a.txt)"]
    assert len(approver.asked) == 1 and all("Exit code: 0" in t for t in told)
    assert decisions(events)[0] == ("allow", "always allowed in this session: "
                                    "shell(touch a.txt)", "user")
    assert not paths.user_config_file().exists()


@pytest.mark.parametrize("scope", ["project", "user"])
async def test_allow_for_a_project_or_everywhere_saves_the_rule(
        fake_provider: FakeProvider, tmp_path: Path, scope: str) -> None:
    approver = ScriptedApprover(lambda r: Allow(scope, r.rules))  # type: ignore[arg-type]
    _, told, agent = await run_with(
        fake_provider, tmp_path, approver, ToolCall("shell", {"command": "touch a.txt"}),
        ToolCall("shell", {"command": "touch a.txt"}))
    assert len(approver.asked) == 1 and "Exit code: 0" in told[1]
    assert agent.session_rules == []
    saved = read_toml(paths.user_config_file())
    table = saved if scope == "user" else saved["projects"][str(tmp_path.resolve())]
    assert table["allow_rules"] == ["shell(touch a.txt)"]
    assert approver.remembered_rules == [RememberedRules(
        ("shell(touch a.txt)",), scope, path=paths.user_config_file())]  # type: ignore[arg-type]


async def test_a_rule_that_cannot_be_saved_still_applies_and_says_why(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().mkdir()  # a folder where the file should be
    approver = ScriptedApprover(lambda r: Allow("user", r.rules))
    _, told, _ = await run_with(
        fake_provider, tmp_path, approver, ToolCall("shell", {"command": "touch a.txt"}),
        ToolCall("shell", {"command": "touch a.txt"}))
    assert len(approver.asked) == 1 and "Exit code: 0" in told[1]
    (saved,) = approver.remembered_rules
    assert saved.path is None and saved.error


async def test_an_edited_command_runs_and_the_model_is_told(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    approver = ScriptedApprover(RunEdited("touch right.txt"), RunEdited("rm -rf ~"))
    events, told, _ = await run_with(
        fake_provider, tmp_path, approver, ToolCall("shell", {"command": "touch wrong.txt"}),
        ToolCall("shell", {"command": "touch other.txt"}))
    assert (tmp_path / "right.txt").exists() and not (tmp_path / "wrong.txt").exists()
    assert told[0].startswith("Note: the person edited this call before it ran; it ran as "
                              'shell with {"command": "touch right.txt"')
    assert decisions(events)[0] == ("allow", "approved after the user edited it", "user")
    assert decisions(events)[1][0] == "deny"  # never into a hard-denied command
    assert "deletes your home folder" in told[1]


async def test_the_decision_names_the_call_that_runs_instead_of_the_proposal(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    approver = ScriptedApprover(RunEdited("touch right.txt"), Allow())
    events, _, _ = await run_with(
        fake_provider, tmp_path, approver, ToolCall("shell", {"command": "touch wrong.txt"}),
        ToolCall("shell", {"command": "touch other.txt"}))
    edited, as_proposed = [e for e in events if isinstance(e, ApprovalDecided)]
    assert edited.edited_summary == "shell: touch right.txt"
    assert edited.edited_args["command"] == "touch right.txt"
    assert (as_proposed.edited_summary, as_proposed.edited_args) == ("", None)


async def test_a_hidden_secret_left_in_an_edit_is_put_back(
        fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", SECRET)

    def add_a_suffix(request: ApprovalRequest) -> Decision:
        assert isinstance(request.details, CommandDetails)
        return RunEdited(request.details.command + " > out.txt")

    approver = ScriptedApprover(add_a_suffix)
    await run_with(fake_provider, tmp_path, approver,
                   ToolCall("shell", {"command": f"touch a.txt; echo {SECRET}"}))
    assert (tmp_path / "out.txt").read_text() == f"{SECRET}\n"


def test_unredact_puts_values_back_in_order_or_leaves_the_text() -> None:
    secrets = ("sk-first-0000000000000000", "second-secret-value")
    original = f"a {secrets[0]} b {secrets[1]} c"
    assert unredact("x [REDACTED] y [REDACTED] z", original, secrets) == (
        f"x {secrets[0]} y {secrets[1]} z")
    assert unredact("only [REDACTED]", original, secrets) == "only [REDACTED]"
    assert unredact("no markers", original, secrets) == "no markers"


async def test_edited_content_of_an_edit_file_is_written_as_a_write(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    approver = ScriptedApprover(WriteEdited("one\nTWO\n"))
    _, told, _ = await run_with(
        fake_provider, tmp_path, approver, ToolCall("read_file", {"file_path": "a.txt"}),
        ToolCall("edit_file", {"file_path": "a.txt", "old_text": "two", "new_text": "2"}))
    assert (tmp_path / "a.txt").read_text() == "one\nTWO\n"
    assert "it ran as write_file with" in told[1]


async def test_write_hunks_writes_only_the_kept_ones_and_names_the_others(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    before = "".join(f"line {n}\n" for n in range(1, 31))
    after = before.replace("line 2\n", "line two\n").replace("line 25\n", "line 25!\n")
    (tmp_path / "a.txt").write_text(before)
    approver = ScriptedApprover(WriteHunks((1,), 2))
    events, told, _ = await run_with(
        fake_provider, tmp_path, approver, ToolCall("read_file", {"file_path": "a.txt"}),
        ToolCall("write_file", {"file_path": "a.txt", "content": after}))
    (request,) = approver.asked
    assert isinstance(request.details, EditDetails) and len(request.details.hunks) == 2
    assert (tmp_path / "a.txt").read_text() == before.replace("line 25\n", "line 25!\n")
    assert decisions(events)[-1] == ("allow", "approved 1 of 2 hunks", "user")
    assert told[1].startswith("Note: the person applied only some hunks of this call: a.txt "
                              "was written with hunk 2 of 2 and without hunk 1")


async def test_write_hunks_with_none_kept_denies(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    approver = ScriptedApprover(WriteHunks((), 2))
    events, _, _ = await run_with(
        fake_provider, tmp_path, approver,
        ToolCall("write_file", {"file_path": "a.txt", "content": "x\n"}))
    assert decisions(events) == [
        ("deny", "denied by the user: every hunk of the change was left out", "user")]
    assert not (tmp_path / "a.txt").exists()
