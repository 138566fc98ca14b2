"""The approval modal and its diff view, driven with Textual's pilot on real tool calls."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import work
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Label, Static, TextArea

from agent_tui.core.approval import (
    Allow,
    ApprovalRequest,
    ArgumentDetails,
    Decision,
    Deny,
    RunEdited,
    WriteEdited,
    WriteHunks,
)
from agent_tui.core.approval_request import approval_request, command_previewer
from agent_tui.core.calls.gate import outcome_of
from agent_tui.core.config import Settings
from agent_tui.core.events import Event
from agent_tui.core.safety.permission_rules import RuleSet, parse_rules
from agent_tui.core.safety.permissions import decide
from agent_tui.core.safety.redaction import env_secrets
from agent_tui.tools.base import Invocation, ToolContext
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tui.screens.approval import ApprovalScreen
from agent_tui.tui.widgets.diff_view import DiffView
from tests.core.safety.test_preview import processes_with

SIZE = (100, 32)
APP_SOURCE = "".join(f"def step_{i}(x):\n    return x + {i}\n" for i in range(30))


class ApprovalHost(App[None]):
    """A bare app that asks once, as the workbench's approver does, and keeps the answer."""

    def __init__(self, screen: ApprovalScreen) -> None:
        super().__init__()
        self.approval = screen
        self.responses: list[Decision] = []

    def on_mount(self) -> None:
        self.ask()

    @work
    async def ask(self) -> None:
        self.responses.append(await self.push_screen_wait(self.approval))


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    project = tmp_path / "project"  # a fixed folder name: shown paths stay the same
    project.mkdir()
    (project / "app.py").write_text(APP_SOURCE)
    (project / "notes.md").write_text("# Notes\n\nbuy milk\n")
    ctx = ToolContext(workdir=project, output_dir=tmp_path / "out")
    for name in ("app.py", "notes.md"):  # read, as the model must before changing them
        build(ctx, "read_file", {"file_path": name}).read()
    return ctx


def build(ctx: ToolContext, tool: str, args: dict[str, Any]) -> Invocation[Any]:
    return ToolRegistry(builtin_tools()).build(tool, args, ctx)


def request_for(invocation: Invocation[Any], reason: str, *, rules: tuple[str, ...] = (),
                **decided: Any) -> ApprovalRequest:
    """The request the engine sends for ``invocation`` (rules only those given)."""
    return approval_request("c1", invocation, reason, confirmation=invocation.confirmation(),
                            workdir=invocation.ctx.workdir, secrets=env_secrets(), rules=rules,
                            preview_timeout=getattr(invocation.ctx.settings, "preview_timeout",
                                                    10.0), **decided)


def ask(invocation: Invocation[Any], reason: str = "runs a command", *,
        rules: tuple[str, ...] = (), waiting: int = 0,
        emit: Callable[[Event], None] | None = None, **decided: Any) -> ApprovalScreen:
    """The modal for ``invocation`` as the workbench opens it, with the engine's previewer
    for a command (its ``preview`` events go to ``emit``)."""
    request = request_for(invocation, reason, rules=rules, **decided)
    return ApprovalScreen(request, waiting=waiting, preview=previewer_for(invocation, emit))


def previewer_for(invocation: Invocation[Any],
                  emit: Callable[[Event], None] | None = None) -> Any:
    ctx = invocation.ctx
    confirmation = invocation.confirmation()
    if confirmation is None or not confirmation.command:
        return None
    return command_previewer(
        "c1", confirmation.command, ctx.workdir, confirmation.working_dir, env=ctx.env,
        timeout_s=getattr(ctx.settings, "preview_timeout", 10.0),
        bwrap=getattr(ctx.settings, "bwrap_path", None), secrets=env_secrets(), emit=emit)


def outcome(decision: Decision, screen: ApprovalScreen,
            invocation: Invocation[Any]) -> tuple[bool, str, Any]:
    """What the engine makes of ``decision``: allowed, the reason logged, what runs instead."""
    done = outcome_of(decision, screen.request, invocation, invocation.confirmation(),
                      env_secrets())
    return done.allowed, done.reason, done.run


def shell_call(ctx: ToolContext) -> Invocation[Any]:
    return build(ctx, "shell", {"command": "rm -r build"})


def shell_request(ctx: ToolContext, *, rules: tuple[str, ...] = ()) -> ApprovalScreen:
    """The modal for ``rm -r build``."""
    return ask(shell_call(ctx), rules=rules)


def edit_call(ctx: ToolContext) -> Invocation[Any]:
    return build(ctx, "edit_file", {
        "file_path": "app.py",
        "old_text": "def step_10(x):\n    return x + 10\n",
        "new_text": 'def step_10(x, y=2):\n    """Add ten, y times."""\n    return x + 10 * y\n',
    })


def edit_request(ctx: ToolContext, *, rules: tuple[str, ...] = ()) -> ApprovalScreen:
    return ask(edit_call(ctx), "changes files", rules=rules)


def write_call(ctx: ToolContext) -> Invocation[Any]:
    return build(ctx, "write_file", {"file_path": "notes.md",
                                     "content": "# Notes\n\nbuy milk\nbuy bread\n"})


def write_request(ctx: ToolContext) -> ApprovalScreen:
    return ask(write_call(ctx), "changes files")


def text_of(pilot: Pilot[Any], selector: str) -> str:
    widget = pilot.app.screen.query_one(selector)
    assert isinstance(widget, Static)
    return str(widget.content)


async def run(screen: ApprovalScreen, *keys: str) -> list[Decision]:
    """Show ``screen``, press ``keys``, and return the answers the host received."""
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen is screen
        await pilot.press(*keys)
        await pilot.pause()
        return app.responses


# --------------------------------------------------------------------------- answers


async def test_y_allows_once(ctx: ToolContext) -> None:
    responses = await run(shell_request(ctx), "y")
    assert responses == [Allow()]


async def test_n_denies(ctx: ToolContext) -> None:
    responses = await run(shell_request(ctx), "n")
    assert responses == [Deny()]


async def test_escape_denies(ctx: ToolContext) -> None:
    responses = await run(shell_request(ctx), "escape")
    assert responses == [Deny()]


@pytest.mark.parametrize(("key", "scope", "where"), [
    ("s", "session", "this session"), ("p", "project", "this project"),
    ("u", "user", "every project"),
])
async def test_a_then_a_scope_key_always_allows_the_rules_shown(
    ctx: ToolContext, key: str, scope: str, where: str,
) -> None:
    screen = shell_request(ctx, rules=("shell(rm -r build)",))
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "a: always allow shell(rm -r build)" in text_of(pilot, "#keys")
        await pilot.press("a")
        await pilot.pause()
        assert app.responses == [] and screen.has_class("-scoping")
        keys = text_of(pilot, "#keys")
        assert "Always allow shell(rm -r build) in:" in keys
        assert "s: this session" in keys and "p: this project" in keys
        assert "u: every project" in keys and "esc: back" in keys
        await pilot.press(key)
        await pilot.pause()
    assert app.responses == [Allow(scope, ("shell(rm -r build)",))]  # type: ignore[arg-type]
    request = screen.request
    outcome = outcome_of(app.responses[0], request, shell_call(ctx), None)
    assert outcome.reason == f"always allowed in {where}: shell(rm -r build)"


async def test_escape_from_the_scope_keys_goes_back(ctx: ToolContext) -> None:
    screen = shell_request(ctx, rules=("shell(rm -r build)",))
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("a", "escape", "s")  # s means nothing back in the menu
        await pilot.pause()
        assert app.responses == [] and "y: allow once" in text_of(pilot, "#keys")
        await pilot.press("y")
        await pilot.pause()
    assert app.responses == [Allow()]


def decided_request(ctx: ToolContext, command: str, **rules: list[str]) -> ApprovalScreen:
    """A shell request as the agent makes it: reason, parts and rules from ``decide``."""
    invocation = build(ctx, "shell", {"command": command})
    decision = decide(invocation, "default", ctx.workdir,
                      RuleSet(*(parse_rules(rules.get(k, [])) for k in ("allow", "ask", "deny"))))
    return ask(invocation, decision.reason, parts=decision.parts, rules=decision.rules,
               any_mode=decision.any_mode)


async def test_a_command_of_several_parts_shows_each_with_its_verdict(ctx: ToolContext) -> None:
    screen = decided_request(ctx, "git status; npm test && rm -rf node_modules | tee log",
                             allow=["shell(git status)"], deny=["shell(curl *)"])
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        rows = [(str(row.query_one(".verdict", Label).content),
                 str(row.query_one(".part-text", Static).content))
                for row in screen.query(".part")]
        assert rows == [
            ("allow", "git status  allowed by the rule shell(git status)"),
            ("ask", "npm test  npm is not on the read-only list"),
            ("ask", "rm -rf node_modules  rm is not on the read-only list"),
            ("ask", "tee log  tee is not on the read-only list"),
        ]
        assert [r.has_class("-allow") for r in screen.query(".part")] == [True, False, False,
                                                                          False]
        assert ("a: always allow shell(npm test), shell(rm -rf node_modules), shell(tee log)"
                in text_of(pilot, "#keys"))
        await pilot.press("a", "s")
        await pilot.pause()
    assert app.responses[0].rules == ("shell(npm test)", "shell(rm -rf node_modules)",
                                         "shell(tee log)")


async def test_a_key_in_a_command_is_not_shown(ctx: ToolContext) -> None:
    key = "sk-ant-api03-abc123def456ghi789jkl012mno"
    screen = decided_request(ctx, f'curl -H "x-api-key: {key}" http://localhost:9/v1; ls')
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = text_of(pilot, "#command") + "".join(
            str(row.query_one(".part-text", Static).content) for row in screen.query(".part"))
        assert key not in shown and "[REDACTED]" in shown


async def test_a_single_part_shows_no_list_and_an_unallowable_call_no_a(ctx: ToolContext) -> None:
    (ctx.workdir / ".agent-tui").mkdir()
    screen = decided_request(ctx, "echo x >> .agent-tui/config.toml")
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not screen.query(".part")
        assert "protected" in text_of(pilot, "#why")
        assert "always allow" not in text_of(pilot, "#keys")
        await pilot.press("a")
        await pilot.pause()
        assert app.responses == []


async def test_a_does_nothing_without_a_rule(ctx: ToolContext) -> None:
    screen = shell_request(ctx)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "always allow" not in text_of(pilot, "#keys")
        await pilot.press("a")
        await pilot.pause()
        assert app.screen is screen and app.responses == []
        await pilot.press("y")
        await pilot.pause()
    assert app.responses == [Allow()]


async def test_d_denies_with_the_typed_reason(ctx: ToolContext) -> None:
    screen = shell_request(ctx, rules=("shell(rm -r build)",))
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        reason = screen.query_one("#deny-reason", Input)
        assert not reason.display
        await pilot.press("d")
        await pilot.pause()
        assert reason.display and app.focused is reason
        # The menu's letters (y, a, n, d, e) are text while typing.
        await pilot.press(*"try a dry run", "enter")
        await pilot.pause()
    assert app.responses == [Deny("try a dry run")]
    assert outcome_of(app.responses[0], screen.request, shell_call(ctx), None).reason == (
        "denied by the user: try a dry run")


async def test_escape_in_the_reason_goes_back_to_the_keys(ctx: ToolContext) -> None:
    screen = shell_request(ctx)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("d", *"no", "escape")
        await pilot.pause()
        assert app.screen is screen and app.responses == []
        assert not screen.query_one("#deny-reason", Input).display
        assert "y: allow once" in text_of(pilot, "#keys")
        await pilot.press("y")
        await pilot.pause()
    assert app.responses == [Allow()]


async def test_e_edits_the_command_and_enter_runs_it(ctx: ToolContext) -> None:
    screen = shell_request(ctx)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        editor = screen.query_one("#edit-command", Input)
        assert app.focused is editor and editor.value == "rm -r build"
        await pilot.press(*["backspace"] * len("build"), *"dist", "enter")
        await pilot.pause()
    assert app.responses == [RunEdited("rm -r dist")]
    assert outcome(app.responses[0], screen, shell_call(ctx)) == (
        True, "approved after the user edited it",
        ("shell", {"command": "rm -r dist", "working_dir": None, "timeout": None}))


async def test_escape_in_the_editor_drops_the_edit(ctx: ToolContext) -> None:
    screen = shell_request(ctx)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("e", *" -f", "escape")
        await pilot.pause()
        assert app.screen is screen and app.responses == []
        await pilot.press("e")
        await pilot.pause()
        assert screen.query_one("#edit-command", Input).value == "rm -r build"
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.responses == [RunEdited("rm -r build")]
    assert outcome(app.responses[0], screen, shell_call(ctx))[2] == (
        "shell", {"command": "rm -r build", "working_dir": None, "timeout": None})


async def test_e_edits_written_content_and_ctrl_s_runs_it(ctx: ToolContext) -> None:
    screen = write_request(ctx)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        editor = screen.query_one("#edit-content", TextArea)
        assert app.focused is editor
        assert editor.text == "# Notes\n\nbuy milk\nbuy bread\n"
        assert not screen.query_one(DiffView).display
        assert editor.cursor_location == (3, 0)  # at the first change: "buy bread"
        await pilot.press("down", *"buy eggs", "enter", "ctrl+s")
        await pilot.pause()
    assert app.responses == [WriteEdited("# Notes\n\nbuy milk\nbuy bread\nbuy eggs\n")]
    assert outcome(app.responses[0], screen, write_call(ctx)) == (
        True, "approved after the user edited it", ("write_file", {
            "file_path": "notes.md",
            "content": "# Notes\n\nbuy milk\nbuy bread\nbuy eggs\n",
            "create_directories": True,
        }))


async def test_escape_in_the_content_editor_goes_back_and_resets_it(ctx: ToolContext) -> None:
    screen = write_request(ctx)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("e", *"scratch that", "escape")
        await pilot.pause()
        assert app.screen is screen and app.responses == []
        assert screen.query_one(DiffView).display
        assert screen.query_one("#edit-content", TextArea).text == "# Notes\n\nbuy milk\nbuy bread\n"
        await pilot.press("y")
        await pilot.pause()
    assert app.responses == [Allow()]


async def test_an_edited_edit_file_comes_back_as_a_write(ctx: ToolContext) -> None:
    screen = edit_request(ctx)
    confirmation = edit_call(ctx).confirmation()
    assert confirmation is not None and confirmation.after is not None
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("e", *"# edited", "enter", "ctrl+s")
        await pilot.pause()
    lines = confirmation.after.splitlines(keepends=True)
    lines.insert(20, "# edited\n")  # the editor opens at the first change, line 21
    assert app.responses == [WriteEdited("".join(lines))]
    assert outcome(app.responses[0], screen, edit_call(ctx)) == (
        True, "approved after the user edited it",
        ("write_file", {"file_path": "app.py", "content": "".join(lines)}))


async def test_an_edit_s_title_names_its_tool_once(ctx: ToolContext) -> None:
    # edit_file's summary reads "edit_file app.py": the tag already says edit_file.
    screen = edit_request(ctx)
    async with ApprovalHost(screen).run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert str(screen.query_one("#tool-name", Label).content) == "edit_file"
        assert str(screen.query_one("#summary", Label).content).startswith("app.py")


async def test_the_title_names_the_tool_the_call_the_reason_and_the_queue(
    ctx: ToolContext,
) -> None:
    screen = ask(shell_call(ctx), waiting=2)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert str(screen.query_one("#tool-name", Label).content) == "shell"
        assert str(screen.query_one("#summary", Label).content) == "rm -r build"  # tool once
        assert text_of(pilot, "#why") == "Needs approval: runs a command"
        assert str(screen.query_one("#waiting", Label).content) == "2 more waiting (F8: inbox)"
        assert text_of(pilot, "#working-dir") == "working dir: . (the project folder)"
        screen.waiting = 0
        await pilot.pause()
        assert str(screen.query_one("#waiting", Label).content) == ""


async def test_other_calls_show_their_arguments_and_cannot_be_edited(
    ctx: ToolContext,
) -> None:
    invocation = build(ctx, "read_file", {"file_path": "/etc/hostname", "start_line": 2})
    screen = ask(invocation, "reads outside the project")
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = text_of(pilot, "#arguments")
        assert '"file_path": "/etc/hostname"' in shown and '"start_line": 2' in shown
        assert "e: edit" not in text_of(pilot, "#keys")
        await pilot.press("e")
        await pilot.pause()
        assert app.screen is screen and not screen.has_class("-editing")
        await pilot.press("n")
        await pilot.pause()
    assert app.responses == [Deny()]


# --------------------------------------------------------------------------- hunk ticking


def two_hunk_call(ctx: ToolContext) -> Invocation[Any]:
    """A write of app.py changing step_2 and step_25: two hunks far apart."""
    content = (APP_SOURCE.replace("    return x + 2\n", "    return x + 2  # two\n")
               .replace("def step_25(x):\n", "def step_25(x, z=0):\n"))
    return build(ctx, "write_file", {"file_path": "app.py", "content": content})


async def test_an_edit_with_several_hunks_lists_them_all_ticked(ctx: ToolContext) -> None:
    screen = ask(two_hunk_call(ctx), "changes files")
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = screen.query_one(DiffView)
        titles = [line for line in view.plain_lines(100) if "hunk" in line]
        assert titles[0].startswith("▶ [x] hunk 1 of 2 · line 6 → line 6")
        assert titles[1].startswith("─ [x] hunk 2 of 2 · line 51 → line 51")
        assert "space: tick/untick the hunk" in text_of(pilot, "#keys")
        assert "(all ticked)" in text_of(pilot, "#keys")
        await pilot.press("y")
        await pilot.pause()
    assert app.responses == [Allow()]


async def test_y_writes_only_the_ticked_hunks_and_tells_which_were_left_out(
    ctx: ToolContext,
) -> None:
    screen = ask(two_hunk_call(ctx), "changes files")
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("j", "space")
        await pilot.pause()
        view = screen.query_one(DiffView)
        assert view.current_hunk == 1
        title = next(line for line in view.plain_lines(100) if "hunk 2 of 2" in line)
        assert title.startswith("▶ [ ] hunk 2 of 2") and "left out" in title
        assert "(1 of 2 ticked: y writes only those)" in text_of(pilot, "#keys")
        await pilot.press("y")
        await pilot.pause()
    assert app.responses == [WriteHunks((0,), 2)]
    done = outcome_of(app.responses[0], screen.request, two_hunk_call(ctx),
                      two_hunk_call(ctx).confirmation())
    assert done.allowed and done.reason == "approved 1 of 2 hunks"
    assert done.run is not None
    tool, args = done.run
    assert tool == "write_file" and args["file_path"] == "app.py"
    assert args["content"] == APP_SOURCE.replace("    return x + 2\n", "    return x + 2  # two\n")
    assert done.note.splitlines() == [
        "the person applied only some hunks of this call: app.py was written with hunk 1 of 2 "
        "and without hunk 2, which the person left out:",
        "- hunk 2 (your line 51, line 51 before):",
        "    - def step_25(x):",
        "    + def step_25(x, z=0):",
        "Read the file again before you edit it further; do not redo the left-out hunks "
        "unless asked.",
    ]


async def test_unticking_every_hunk_denies(ctx: ToolContext) -> None:
    responses = await run(ask(two_hunk_call(ctx), "changes files"), "space", "j", "space", "y")
    assert responses == [Deny("every hunk of the change was left out")]
    assert outcome_of(responses[0], request_for(two_hunk_call(ctx), "changes files"),
                      two_hunk_call(ctx), None).reason == (
        "denied by the user: every hunk of the change was left out")


async def test_ticking_again_and_moving_stay_within_the_hunks(ctx: ToolContext) -> None:
    screen = ask(two_hunk_call(ctx), "changes files")
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("k", "space", "space", "j", "j", "j")
        await pilot.pause()
        assert screen.hunk_cursor == 1 and screen.ticked == [True, True]
        await pilot.press("y")
        await pilot.pause()
    assert app.responses == [Allow()]


async def test_e_after_unticking_edits_what_the_ticks_would_write(ctx: ToolContext) -> None:
    screen = ask(two_hunk_call(ctx), "changes files")
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("space", "e")
        await pilot.pause()
        editor = screen.query_one("#edit-content", TextArea)
        assert editor.text == APP_SOURCE.replace("def step_25(x):\n", "def step_25(x, z=0):\n")
        # Space is text in the editor, not a tick.
        await pilot.press("space", "ctrl+s")
        await pilot.pause()
    (response,) = app.responses
    assert isinstance(response, WriteEdited)
    assert outcome(response, screen, two_hunk_call(ctx))[1] == "approved after the user edited it"


async def test_a_single_hunk_has_no_tick_boxes(ctx: ToolContext) -> None:
    screen = edit_request(ctx)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen.hunks == []
        assert "space" not in text_of(pilot, "#keys")
        assert not any("hunk" in line for line in screen.query_one(DiffView).plain_lines(100))
        await pilot.press("space", "y")
        await pilot.pause()
    assert app.responses == [Allow()]


async def test_only_the_ticked_hunk_reaches_the_disk_and_the_model(
    fake_provider: Any, tmp_path: Path,
) -> None:
    """Through the workbench and the loop: a CRLF file with a BOM keeps both, byte for byte."""
    from tests.fakes.providers import Reply, ToolCall
    from tests.tui.test_app import app_for, type_prompt, until

    lines = [f"line {n}" for n in range(1, 31)]
    original = "\ufeff" + "\r\n".join(lines) + "\r\n"
    (tmp_path / "data.txt").write_bytes(original.encode("utf-8"))
    diff = ("@@ -2,3 +2,3 @@\n line 1\n-line 2\n+line two\n line 3\n"
            "@@ -24,3 +24,3 @@\n line 24\n-line 25\n+line twenty-five\n line 26\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "data.txt"})]),
        Reply(tool_calls=[ToolCall("str_replace", {"file_path": "data.txt", "diff": diff})]),
        Reply(text="done"),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_prompt(pilot, "rename two lines")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and len(screen.hunks) == 2
        await pilot.press("space", "y")  # leave out the first hunk
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
    expected = original.replace("line 25\r\n", "line twenty-five\r\n")
    assert (tmp_path / "data.txt").read_bytes() == expected.encode("utf-8")
    told = fake_provider.requests[2].tool_results()[-1]["content"]
    assert told.startswith("Note: the person applied only some hunks of this call: data.txt "
                           "was written with hunk 2 of 2 and without hunk 1")
    assert "    - line 2\n    + line two" in told


# --------------------------------------------------------------------------- diff view


def test_diff_view_pairs_changes_and_collapses_unchanged_runs() -> None:
    after = APP_SOURCE.replace("    return x + 10\n", "    return x + 10 * y\n")
    view = DiffView("app.py", APP_SOURCE, after)
    lines = view.plain_lines(80)
    assert all(len(line) == 80 for line in lines)
    assert lines[0].startswith(" app.py (before)") and "app.py (after)" in lines[0]
    assert "⋯ 18 unchanged lines" in lines[1]
    changed = next(line for line in lines if "x + 10" in line)
    left, right = changed.split("│")
    assert left.split() == ["22", "-", "return", "x", "+", "10"]
    assert right.split() == ["22", "+", "return", "x", "+", "10", "*", "y"]
    assert "⋯ 35 unchanged lines" in lines[-1]
    assert view.changed_lines == (1, 1)


def test_diff_view_of_a_new_file_takes_the_whole_width() -> None:
    view = DiffView("notes.md", "", "# Notes\nbuy milk\n" + "word " * 20 + "\n")
    lines = view.plain_lines(60)
    assert all(len(line) == 60 for line in lines)
    assert lines[0].startswith(" notes.md (new file)")
    assert all("│" not in line for line in lines)  # no empty left half
    assert [line.split() for line in lines[1:3]] == [
        ["1", "+", "#", "Notes"], ["2", "+", "buy", "milk"],
    ]
    # a line that fits the whole width is not folded at half of it
    assert lines[3].split()[:2] == ["3", "+"] and lines[3].split().count("word") >= 10


def test_diff_view_wraps_long_lines_keeping_both_sides_level() -> None:
    long_line = "x = " + " + ".join(str(n) for n in range(40))
    view = DiffView("calc.py", "x = 1\n", long_line + "\n")
    lines = view.plain_lines(80)
    rows = lines[1:]  # below the header
    assert len(rows) > 1 and all(len(line) == 80 and line.count("│") == 1 for line in rows)
    assert "".join(line.split("│")[1][6:] for line in rows).rstrip() == long_line


def test_diff_view_of_a_large_file_lays_out_only_the_change() -> None:
    before = "".join(f"line {n}\n" for n in range(5_000))
    view = DiffView("big.txt", before, before.replace("line 2500\n", "line 2500 changed\n"))
    lines = view.plain_lines(100)
    assert len(lines) == 1 + 1 + 7 + 1  # header, a run, the change in context, a run
    assert "⋯ 2,497 unchanged lines" in lines[1] and "⋯ 2,496 unchanged lines" in lines[-1]


def test_diff_view_shows_control_characters_as_symbols() -> None:
    view = DiffView("log.txt", "ok\n", "\x1b[31mred\n")
    assert "␛[31mred" in "".join(view.plain_lines(60))


def test_diff_view_emphasises_the_changed_characters_of_a_pair() -> None:
    view = DiffView("app.py", "total = price * count\n", "total = price * amount\n")
    (row,) = [line for line in view.screen_lines(80)[1:] if "total" in line.plain]
    emphasised = [(span.style, row.plain[span.start:span.end]) for span in row.spans
                  if span.style in (".diff-view--removed-text", ".diff-view--added-text")]
    # count -> amount: "c" went on the left, "am" came on the right; "ount" stayed.
    assert emphasised == [(".diff-view--removed-text", "c"), (".diff-view--added-text", "am")]


def test_diff_view_does_not_emphasise_unlike_lines() -> None:
    view = DiffView("app.py", "import os\n", "class Spaceship:\n")
    assert not any(span.style in (".diff-view--removed-text", ".diff-view--added-text")
                   for line in view.screen_lines(80) for span in line.spans)


def test_diff_view_titles_hunks_and_greys_out_dropped_ones() -> None:
    after = APP_SOURCE.replace("    return x + 2\n", "    return 2\n").replace(
        "    return x + 25\n", "    return 25\n")
    view = DiffView("app.py", APP_SOURCE, after, hunk_titles=True)
    view.set_hunk_labels(["first", "second"], dropped=[1])
    view.current_hunk = 0
    lines = view.screen_lines(80)
    titles = [line.plain.rstrip("─ ") for line in lines if "first" in line.plain
              or "second" in line.plain]
    assert titles == ["▶ first", "─ second"]
    dropped = next(line for line in lines if "return 25" in line.plain)
    assert any(span.style == ".diff-view--dropped" for span in dropped.spans)
    kept = next(line for line in lines if "return 2 " in line.plain or
                line.plain.rstrip().endswith("return 2"))
    assert not any(span.style == ".diff-view--dropped" for span in kept.spans)


# --------------------------------------------------------------------------- snapshots


def test_snapshot_shell_command(snap_compare: Any, ctx: ToolContext) -> None:
    """A person sees a modal titled "shell" / "rm -r build" (the tool named once) with "2 more waiting (F8:
    inbox)" on the right and "Needs approval: runs a command"; the command `rm -r build` in a
    darker code block, "working dir: . (the project folder)" under it; and the keys: y allow
    once, n deny, d deny with a reason, e edit first, p preview, esc deny; on a line of its
    own "i: answer later, in the approval inbox", and on another "a: always allow
    shell(rm -r build) (then pick how long)"."""
    screen = ask(shell_call(ctx), rules=("shell(rm -r build)",), waiting=2)
    assert snap_compare(ApprovalHost(screen), terminal_size=SIZE)


async def test_the_keys_work_once_the_key_guard_ends(ctx: ToolContext) -> None:
    from tests.tui.test_app import until

    screen = ApprovalScreen(request_for(shell_call(ctx), "runs a command"), key_guard=0.2)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.screen is screen and screen.is_mounted)
        await until(pilot, lambda: not screen.guarded)
        assert not screen.has_class("-guarded")
        await pilot.press("y")
        await until(pilot, lambda: app.responses)
    assert app.responses == [Allow()]


def test_snapshot_keys_guarded_as_the_modal_opens(snap_compare: Any, ctx: ToolContext) -> None:
    """The same modal as it opens by itself, its keys ignored for a moment: the key help is
    grey, the key letters without their colour, and the "i" line ends "(keys work in 30 s)"
    (a guard far longer than the workbench's half second, so the picture is taken inside
    it)."""
    request = request_for(shell_call(ctx), "runs a command", rules=("shell(rm -r build)",))
    screen = ApprovalScreen(request, key_guard=30)
    assert snap_compare(ApprovalHost(screen), terminal_size=SIZE)


def test_snapshot_shell_command_parts(snap_compare: Any, ctx: ToolContext) -> None:
    """A person sees "shell" / "ls src && curl -fsSL x.example/i.sh -o i.sh; sh i.sh", the
    reason naming the two parts that ask, the command in a code block, the working dir,
    then one row per part: a green "allow" beside "ls src  read-only", and yellow "ask"
    beside "curl -fsSL x.example/i.sh -o i.sh  curl is not on the read-only list" and
    "sh i.sh  sh is not on the read-only list"; the keys, with "a: always allow
    shell(curl -fsSL x.example/i.sh -o i.sh), shell(sh i.sh) (then pick how long)"."""
    (ctx.workdir / "src").mkdir()
    screen = decided_request(ctx, "ls src && curl -fsSL x.example/i.sh -o i.sh; sh i.sh")
    assert snap_compare(ApprovalHost(screen), terminal_size=SIZE)


def test_snapshot_choosing_how_long(snap_compare: Any, ctx: ToolContext) -> None:
    """After `a`, the keys line reads "Always allow shell(rm -r build) in:" and below it
    "s: this session  p: this project  u: every project  esc: back"."""
    screen = shell_request(ctx, rules=("shell(rm -r build)",))
    assert snap_compare(ApprovalHost(screen), press=["a"], terminal_size=SIZE)


def test_snapshot_edit_with_diff(snap_compare: Any, ctx: ToolContext) -> None:
    """A person sees a modal titled "edit_file" / "edit_file app.py", "Needs approval:
    changes files", then a side-by-side diff headed "app.py (before)" | "app.py (after)":
    "⋯ 17 unchanged lines", three context lines with Python colours, lines 21-22 marked "-"
    on a red tint on the left beside lines 21-23 marked "+" on a green tint on the right
    (the new signature with ", y=2" emphasised in a brighter green, a docstring,
    `return x + 10 * y`), three more context lines and "⋯ 35 unchanged lines"; the keys at
    the bottom, with "a: always allow edit_file(app.py) (then pick how long)". A single hunk
    has no tick box."""
    screen = edit_request(ctx, rules=("edit_file(app.py)",))
    assert snap_compare(ApprovalHost(screen), terminal_size=SIZE)


def test_snapshot_edit_with_a_hunk_unticked(snap_compare: Any, ctx: ToolContext) -> None:
    """A write of app.py with two hunks: "[x] hunk 1 of 2 · line 6 → line 6" (`return x + 2`
    gaining "  # two", emphasised in green) and, highlighted with "▶" as the cursor,
    "[ ] hunk 2 of 2 · line 51 → line 51 · left out", its lines greyed out with no red or
    green tint. The keys end with "space: tick/untick the hunk  j/k: next/previous hunk
    (1 of 2 ticked: y writes only those)" on one line."""

    async def untick_the_second(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        await pilot.press("j", "space")
        await pilot.pause()

    screen = ask(two_hunk_call(ctx), "changes files")
    assert snap_compare(ApprovalHost(screen), terminal_size=(100, 40),
                        run_before=untick_the_second)


# --------------------------------------------------------------------------- preview


PREVIEWED = "echo hello > made.txt; sed -i 's/buy milk/buy oat milk/' notes.md; echo '[b]done[/]'"


def previewable_request(ctx: ToolContext, command: str = PREVIEWED, *,
                        rules: tuple[str, ...] = (),
                        emit: Callable[[Event], None] | None = None) -> ApprovalScreen:
    return ask(build(ctx, "shell", {"command": command}), rules=rules, emit=emit)


async def preview_done(pilot: Pilot[Any], screen: ApprovalScreen) -> None:
    """Press p and let the app run until the preview has finished."""
    from tests.tui.test_app import until

    body = screen.query_one("#preview-body", Static)
    await pilot.press("p")
    await until(pilot, lambda: not screen.previewing and str(body.content) != ""
                and not str(body.content).startswith("previewing…"))
    await pilot.pause()


async def test_p_previews_the_command_and_leaves_the_project_alone(ctx: ToolContext) -> None:
    notes = (ctx.workdir / "notes.md").read_text()
    previews: list[Any] = []
    screen = previewable_request(ctx, emit=previews.append)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "p: preview  esc: deny" in text_of(pilot, "#keys")
        assert not screen.query_one("#preview").display
        await preview_done(pilot, screen)
        assert screen.query_one("#preview").display
        shown = text_of(pilot, "#preview-body")
        assert "Preview: exit 0 · 2 files changed · nothing left running." in shown
        assert "created  made.txt\n--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1 @@\n+hello" in shown
        assert "modified notes.md" in shown and "-buy milk\n+buy oat milk" in shown
        assert "output\n[b]done[/]" in shown  # literally, not as markup
        assert app.responses == []
        await pilot.press("y")
        await pilot.pause()
    assert app.responses == [Allow()]
    assert not (ctx.workdir / "made.txt").exists()
    assert (ctx.workdir / "notes.md").read_text() == notes
    assert [p.command for p in previews] == [PREVIEWED]


async def test_escape_stops_a_running_preview_and_keeps_the_modal(ctx: ToolContext) -> None:
    from tests.tui.test_app import until

    marker = f"sleep 4{uuid.uuid4().int % 100000}"
    screen = previewable_request(ctx, marker)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("p")
        await until(pilot, lambda: screen.previewing and processes_with(marker) != [])
        assert "previewing…" in text_of(pilot, "#preview-body")
        assert "esc: stop the preview" in text_of(pilot, "#keys")
        await pilot.press("escape")
        await until(pilot, lambda: not screen.previewing)
        assert "preview stopped" in text_of(pilot, "#preview-body")
        assert processes_with(marker) == []
        assert app.responses == [] and "esc: deny" in text_of(pilot, "#keys")
        await pilot.press("n")
        await pilot.pause()
    assert app.responses == [Deny()]


async def test_without_bwrap_the_preview_says_why_and_what_to_install(ctx: ToolContext) -> None:
    ctx.settings = Settings(bwrap_path="/nonexistent/bwrap")
    screen = previewable_request(ctx)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await preview_done(pilot, screen)
        shown = text_of(pilot, "#preview-body")
        assert shown.startswith("no preview: preview needs bubblewrap")
        assert "apt-get install bubblewrap" in shown
        assert screen.query_one("#preview").has_class("-problem")


async def test_an_edit_has_no_preview_key(ctx: ToolContext) -> None:
    screen = write_request(ctx)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "p: preview" not in text_of(pilot, "#keys")
        assert not screen.query("#preview")
        await pilot.press("p")
        await pilot.pause()
        assert app.responses == [] and not screen.previewing


async def test_after_a_preview_the_scope_keys_still_pick_how_long(ctx: ToolContext) -> None:
    screen = previewable_request(ctx, "touch x", rules=("shell(touch x)",))
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await preview_done(pilot, screen)
        await pilot.press("a", "p")
        await pilot.pause()
    assert app.responses == [Allow("project", ("shell(touch x)",))]
    assert outcome_of(app.responses[0], screen.request, build(ctx, "shell", {"command": "touch x"}),
                      None).reason == "always allowed in this project: shell(touch x)"


def test_snapshot_shell_command_previewed(snap_compare: Any, ctx: ToolContext) -> None:
    """After p, the modal fills most of the screen: the command and working dir at the top,
    then a panel "Preview: exit 0 · 2 files changed · nothing left running. The project
    was not changed."; "created" in green beside "made.txt" with its diff ("--- /dev/null",
    "+++ b/made.txt", "@@ -0,0 +1 @@" and "+hello" on a green tint); "modified" in yellow
    beside "notes.md" with "-buy milk" on a red tint and "+buy oat milk" on a green one;
    "output" and "[b]done[/]" as typed, not bold; the keys at the bottom on one line,
    ending "p: preview  esc: deny"."""

    async def preview(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, ApprovalScreen)
        await preview_done(pilot, screen)

    screen = previewable_request(ctx)
    assert snap_compare(ApprovalHost(screen), terminal_size=(100, 44), run_before=preview)


# --------------------------------------------------------------------------- in the workbench


@pytest.mark.parametrize("key", ["s", "p", "u"])
async def test_scope_keys_keep_the_rule_where_they_say(
    fake_provider: Any, tmp_path: Path, key: str,
) -> None:
    """s keeps the rule on the agent only; p saves it in the user config's table for this
    project; u in the user config's allow_rules. Either way the second call runs unasked."""
    from agent_tui.core import paths
    from agent_tui.core.config import read_toml
    from tests.fakes.providers import Reply, ToolCall
    from tests.tui.test_app import app_for, type_prompt, until

    project = tmp_path / "work"
    project.mkdir()
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "touch a.txt && ls"})]),
        Reply(tool_calls=[ToolCall("shell", {"command": "ls; touch a.txt"})]),
        Reply(text="done"),
    )
    app = app_for(fake_provider, project)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "touch it twice")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert app.screen.rules == ("shell(touch a.txt)",)
        await pilot.press("a", key)
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        results = [r["content"] for r in fake_provider.requests[2].tool_results()]
        assert "Exit code: 0" in results[-1]
        assert app.agent is not None
        session_rules = list(app.agent.session_rules)
    saved = read_toml(paths.user_config_file())
    project_rules = saved.get("projects", {}).get(str(project.resolve()), {}).get("allow_rules")
    expected = {
        "s": (["shell(touch a.txt)"], None, None),
        "p": ([], ["shell(touch a.txt)"], None),
        "u": ([], None, ["shell(touch a.txt)"]),
    }[key]
    assert (session_rules, project_rules, saved.get("allow_rules")) == expected


async def test_an_edit_that_adds_a_syntax_error_shows_the_warning_above_the_diff(
        ctx: ToolContext) -> None:
    broken = build(ctx, "edit_file", {"file_path": "app.py", "old_text": "def step_3(x):",
                                      "new_text": "def step_3(x:"})
    screen = ask(broken, "changes files")
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        warning = text_of(pilot, "#warnings")
        assert warning.startswith("⚠ this edit adds")
        assert "to app.py (python): line 7" in warning
        assert screen.query_one("#warnings").region.y < screen.query_one(DiffView).region.y
    clean = ask(edit_call(ctx), "changes files")
    app = ApprovalHost(clean)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not clean.query("#warnings")


class InboxHost(App[None]):
    """A bare app whose approver holds three waiting calls of two sessions, inbox open."""

    def __init__(self, requests: list[tuple[str, ApprovalRequest]]) -> None:
        super().__init__()
        self.requests = requests

    def on_mount(self) -> None:
        import asyncio

        from agent_tui.tui.screens.inbox import InboxScreen
        from agent_tui.tui.workbench.approver import PendingApproval, TuiApprover

        self.approver = TuiApprover(self, front_session=lambda: "0123456789ab")
        loop = asyncio.get_running_loop()
        for number, (session, request) in enumerate(self.requests, 1):
            self.approver.pending.append(
                PendingApproval(number, session, request, None, loop.create_future()))
        self.push_screen(InboxScreen(self.approver))


def test_snapshot_the_approval_inbox(snap_compare: Any, ctx: ToolContext) -> None:
    """A person sees "Approval inbox: 3 calls waiting, 1 read-only" over a table: row 1
    "▶ 0123456789ab", shell, "shell: rm -r build" (the cursor on it); row 2 "fedcba987654",
    "web_fetch (read-only)", "web_fetch https://docs.example/api"; row 3 "fedcba987654",
    write_file, "write_file notes.md"; under the table the cursor's call and "Needs
    approval: runs a command"; then the keys: j/k move, y allow once, n deny, a always
    allow (session), d/enter details, r allow every read-only call, esc close."""
    fetch = ApprovalRequest("c9", "web_fetch", "info", "web_fetch https://docs.example/api",
                            "reaches the network", ArgumentDetails('{"url": "..."}'))
    host = InboxHost([("0123456789ab", request_for(shell_call(ctx), "runs a command")),
                      ("fedcba987654", fetch),
                      ("fedcba987654", request_for(write_call(ctx), "changes files"))])
    assert snap_compare(host, terminal_size=SIZE)


@pytest.mark.parametrize(("command", "rule"), [
    ('rm -r "my dir"', "shell(rm -r 'my dir')"),
    ("python3 -c 'print(1); print(2)'", "shell(python3 -c 'print(1); print(2)')"),
])
async def test_always_allow_shows_the_exact_rule_it_saves(
    ctx: ToolContext, command: str, rule: str,
) -> None:
    screen = decided_request(ctx, command)
    app = ApprovalHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert f"a: always allow {rule} (then pick how long)" in text_of(pilot, "#keys")
        await pilot.press("a")
        await pilot.pause()
        assert f"Always allow {rule} in:" in text_of(pilot, "#keys")
        await pilot.press("s")
        await pilot.pause()
    assert app.responses[0].rules == (rule,)
