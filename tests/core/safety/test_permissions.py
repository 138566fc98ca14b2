"""Approval modes, rules and their scopes, the workspace boundary and protected paths,
judged through ``permissions.decide`` on real tool calls and real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core import paths
from agent_tui.core.config import ConfigError, Settings, load_settings, read_toml, save_rules
from agent_tui.core.safety.permission_rules import Rule, RuleError, RuleSet, parse_rules
from agent_tui.core.safety.permissions import Verdict, decide, hard_denied
from agent_tui.core.safety.workspace import Workspace
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("a = 1\n")
    return root


@pytest.fixture
def build(project: Path, tmp_path: Path):
    registry = ToolRegistry(builtin_tools())
    settings = Settings(web_search_backend="searxng", web_search_url="http://127.0.0.1:9")
    ctx = ToolContext(workdir=project, output_dir=tmp_path / "out", network_enabled=True,
                      settings=settings)

    def _build(tool, **args):
        return registry.build(tool, args, ctx)

    return _build


def rules(allow=(), ask=(), deny=()) -> RuleSet:
    return RuleSet(parse_rules(allow), parse_rules(ask), parse_rules(deny))


# --------------------------------------------------------------------------- modes


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("default", Verdict.ASK), ("auto-edit", Verdict.ALLOW), ("plan", Verdict.DENY),
     ("yolo", Verdict.ALLOW)],
)
def test_edit_inside_project(build, project, mode, expected):
    assert decide(build("write_file", file_path="a.txt", content="x"), mode, project).verdict == (
        expected)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("default", Verdict.ASK), ("auto-edit", Verdict.ASK), ("plan", Verdict.DENY),
     ("yolo", Verdict.ALLOW)],
)
def test_a_command_that_is_not_read_only(build, project, mode, expected):
    assert decide(build("shell", command="make"), mode, project).verdict == expected


@pytest.mark.parametrize("mode", ["default", "auto-edit", "plan", "yolo"])
def test_read_only_commands_and_reads_inside_run_in_every_mode(build, project, mode):
    assert decide(build("read_file", file_path="src/a.py"), mode, project).verdict == (
        Verdict.ALLOW)
    decision = decide(build("shell", command="git status && ls src | wc -l"), mode, project)
    assert decision.verdict == Verdict.ALLOW


def test_plan_mode_refuses_what_is_not_read_only_with_the_reason(build, project):
    decision = decide(build("shell", command="ls; make"), "plan", project)
    assert decision.verdict == Verdict.DENY
    assert "plan mode runs read-only commands only" in decision.reason
    assert [p.verdict for p in decision.parts] == [Verdict.ALLOW, Verdict.DENY]


def test_redirections_are_edits(build, project):
    command = "echo done > notes.txt"
    assert decide(build("shell", command=command), "default", project).verdict == Verdict.ASK
    assert decide(build("shell", command=command), "auto-edit", project).verdict == (
        Verdict.ALLOW)
    assert decide(build("shell", command="echo x > /dev/null 2>&1"), "default",
                  project).verdict == Verdict.ALLOW
    decision = decide(build("shell", command="echo x > ../out.txt"), "auto-edit", project)
    assert decision.verdict == Verdict.ASK and "outside the project" in decision.reason


# --------------------------------------------------------------------------- boundary


def test_reading_outside_asks_and_plan_mode_refuses(build, project, tmp_path):
    (tmp_path / "secret.txt").write_text("s")
    call = build("read_file", file_path=str(tmp_path / "secret.txt"))
    decision = decide(call, "default", project)
    assert decision.verdict == Verdict.ASK and "outside the project" in decision.reason
    assert decide(call, "plan", project).verdict == Verdict.DENY
    shell = decide(build("shell", command=f"cat {tmp_path}/secret.txt"), "default", project)
    assert shell.verdict == Verdict.ASK and "outside the project" in shell.reason


def test_symlink_out_of_the_project_counts_as_outside(build, project, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    (project / "link.txt").symlink_to(secret)
    decision = decide(build("read_file", file_path="link.txt"), "default", project)
    assert decision.verdict == Verdict.ASK and str(secret) in decision.reason
    (project / "new-link.txt").symlink_to(tmp_path / "new.txt")
    edit = build("write_file", file_path="new-link.txt", content="x")
    decision = decide(edit, "auto-edit", project)
    assert decision.verdict == Verdict.ASK and str(tmp_path / "new.txt") in decision.reason
    assert decide(build("shell", command="cat link.txt"), "default", project).verdict == (
        Verdict.ASK)
    (project / "out").symlink_to(tmp_path, target_is_directory=True)
    assert decide(build("shell", command="ls out/"), "default", project).verdict == Verdict.ASK


def test_a_project_reached_through_a_symlink_is_still_the_project(build, project, tmp_path):
    alias = tmp_path / "alias"
    alias.symlink_to(project, target_is_directory=True)
    assert decide(build("shell", command=f"cat {alias}/src/a.py"), "default", project).verdict \
        == Verdict.ALLOW


@pytest.mark.parametrize("target", [".git/config", ".git/hooks/pre-commit", "sub/.git/HEAD",
                                    ".agent-tui/config.toml"])
def test_protected_files_are_never_written_without_a_person(build, project, target):
    call = build("write_file", file_path=target, content="x")
    for mode in ("default", "auto-edit", "yolo"):
        decision = decide(call, mode, project, rules(allow=["write_file(**)"]))
        assert decision.verdict == Verdict.ASK and decision.any_mode, mode
        assert decision.rules == ()
    assert decide(call, "plan", project).verdict == Verdict.DENY
    shell = decide(build("shell", command=f"echo x >> {target}"), "yolo", project,
                   rules(allow=["shell(echo *)"]))
    assert shell.verdict == Verdict.ASK and "protected" in shell.reason and shell.any_mode


def test_a_skill_script_in_the_protected_folder_runs_as_any_script(build, project):
    script = project / ".agent-tui" / "bin" / "diff-summary"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)

    ran = decide(build("shell", command=".agent-tui/bin/diff-summary --all"), "yolo", project)
    asked = decide(build("shell", command=".agent-tui/bin/diff-summary"), "default", project)
    overwritten = decide(build("shell", command="cp /dev/null .agent-tui/bin/diff-summary"),
                         "yolo", project)
    given_config = decide(build("shell", command=".agent-tui/bin/diff-summary "
                                                 ".agent-tui/config.toml"), "yolo", project)

    assert ran.verdict == Verdict.ALLOW
    assert asked.verdict == Verdict.ASK and not asked.any_mode
    assert overwritten.verdict == Verdict.ASK and overwritten.any_mode
    assert given_config.verdict == Verdict.ASK and "protected" in given_config.reason


def test_the_user_config_folder_is_protected(build, project):
    config = paths.user_config_file()
    decision = decide(build("write_file", file_path=str(config), content="x"), "yolo", project)
    assert decision.verdict == Verdict.ASK and "agent-tui's own configuration" in decision.reason


def test_reading_git_internals_is_fine(build, project):
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert decide(build("shell", command="cat .git/HEAD"), "default", project).verdict == (
        Verdict.ALLOW)


# --------------------------------------------------------------------------- rules


@pytest.mark.parametrize(
    ("text", "tool", "pattern"),
    [("shell(git status)", "shell", "git status"), ("web_search", "web_search", None),
     (" edit_file( src/** ) ", "edit_file", "src/**"),
     ("shell(echo (a))", "shell", "echo (a)")],
)
def test_rules_parse(text, tool, pattern):
    rule = Rule.parse(text)
    assert (rule.tool, rule.pattern) == (tool, pattern)


@pytest.mark.parametrize("text", ["", "shell(", "shell()", "(x)", "two words"])
def test_malformed_rules_are_refused_with_the_fix(text):
    with pytest.raises(RuleError, match="is not a rule: write a tool name"):
        Rule.parse(text)


@pytest.mark.parametrize(
    ("pattern", "line", "matches"),
    [("git status", "git status", True), ("git status", "git status --short", False),
     ("npm run test:*", "npm run test:unit", True), ("npm run test:*", "npm run build", False),
     ("git log *", "git log", True), ("git log *", "git log --oneline", True),
     ("git log *", "git logx", False), ("git  status", "git   status", True)],
)
def test_shell_patterns(pattern, line, matches):
    assert Rule("", "shell", pattern).matches_command(line) is matches


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [("src/**", "src/a/b.py", True), ("src/**", "src", True), ("src/*.py", "src/a.py", True),
     ("src/*.py", "src/a/b.py", False), ("**/*.py", "a.py", True), ("**/*.py", "x/y/a.py", True),
     (".env", ".env", True), (".env", "sub/.env", False), ("**/.env", "sub/.env", True),
     ("build/", "build/x/y", True), ("./docs/*", "docs/a.md", True)],
)
def test_path_patterns(project, pattern, path, matches):
    workspace = Workspace(project)
    assert Rule("", "edit_file", pattern).matches_path(project / path, workspace) is matches


def test_absolute_and_home_patterns(project, tmp_path):
    workspace = Workspace(project)
    assert Rule("", "read_file", f"{tmp_path}/**").matches_path(tmp_path / "x", workspace)
    home = Path.home()
    assert Rule("", "read_file", "~/.ssh/**").matches_path(home / ".ssh" / "id", workspace)


@pytest.mark.parametrize(
    ("url", "matches"),
    [("https://docs.python.org/3/", True), ("https://www.docs.python.org/", True),
     ("https://python.org/", False), ("https://docs.python.org.evil.example/", False)],
)
def test_domain_patterns(url, matches):
    assert Rule("", "web_fetch", "domain:docs.python.org").matches_call(url) is matches


def test_deny_beats_ask_beats_allow(build, project):
    call = build("shell", command="git push origin main")
    both = rules(allow=["shell(git push *)"], ask=["shell(git push *)"])
    assert decide(call, "default", project, both).verdict == Verdict.ASK
    all_three = rules(allow=["shell(git *)"], ask=["shell(git push *)"], deny=["shell(git push *)"])
    assert decide(call, "yolo", project, all_three).verdict == Verdict.DENY
    assert decide(call, "default", project, rules(allow=["shell(git push *)"])).verdict == (
        Verdict.ALLOW)


def test_ask_rules_ask_even_in_yolo_mode(build, project):
    decision = decide(build("shell", command="git push"), "yolo", project,
                      rules(ask=["shell(git push *)"]))
    assert decision.verdict == Verdict.ASK and decision.any_mode
    assert "the rule shell(git push *) asks first" in decision.reason


def test_path_rules_allow_and_deny_edits(build, project):
    allow = rules(allow=["edit_file(src/**)"])
    assert decide(build("write_file", file_path="src/b.py", content="x"), "default", project,
                  allow).verdict == Verdict.ALLOW
    assert decide(build("write_file", file_path="b.py", content="x"), "default", project,
                  allow).verdict == Verdict.ASK
    assert decide(build("shell", command="echo x > src/c.py"), "default", project,
                  allow).verdict == Verdict.ALLOW
    deny = rules(deny=["write_file(src/**)"])
    decision = decide(build("write_file", file_path="src/new.py", content="b"),
                      "yolo", project, deny)
    assert decision.verdict == Verdict.DENY and decision.by == "rule"
    assert decide(build("shell", command="rm src/a.py"), "yolo", project, deny).verdict == (
        Verdict.DENY)


def test_read_rules_cover_read_tools_and_outside_reads(build, project, tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.md").write_text("n")
    allow = rules(allow=[f"read_file({tmp_path}/notes/**)"])
    assert decide(build("read_file", file_path=str(tmp_path / "notes" / "n.md")), "default",
                  project, allow).verdict == Verdict.ALLOW
    assert decide(build("shell", command=f"cat {tmp_path}/notes/n.md"), "default", project,
                  allow).verdict == Verdict.ALLOW
    deny = rules(deny=["read_file(src/**)"])
    assert decide(build("grep", pattern="a", path="src"), "default", project, deny).verdict == (
        Verdict.DENY)


def test_web_rules(build, project):
    fetch = build("web_fetch", url="https://docs.python.org/3/library/")
    assert decide(fetch, "default", project).verdict == Verdict.ASK
    assert decide(fetch, "default", project).rules == ("web_fetch(domain:docs.python.org)",)
    assert decide(fetch, "default", project, rules(allow=["web_fetch(domain:python.org)"])
                  ).verdict == Verdict.ALLOW
    search = build("web_search", query="textual pilot")
    assert decide(search, "default", project, rules(allow=["web_search"])).verdict == (
        Verdict.ALLOW)
    assert decide(search, "yolo", project, rules(deny=["web_search"])).verdict == Verdict.DENY


def test_plan_mode_ignores_allow_rules_for_changes(build, project):
    call = build("write_file", file_path="a.txt", content="x")
    assert decide(call, "plan", project, rules(allow=["write_file(**)"])).verdict == (
        Verdict.DENY)


def test_background_processes_are_judged_like_shell_commands(build, project):
    call = build("background_process", name="dev", command="npm run dev")
    assert decide(call, "default", project).verdict == Verdict.ASK
    assert decide(call, "default", project, rules(allow=["shell(npm run dev)"])).verdict == (
        Verdict.ALLOW)
    server = build("background_process", name="web", command="curl x | sh")
    assert decide(server, "yolo", project).verdict == Verdict.DENY


def test_suggested_rules_name_each_part_that_needs_one(build, project):
    decision = decide(build("shell", command="git status && npm test && npm run lint"),
                      "default", project)
    assert decision.rules == ("shell(npm test)", "shell(npm run lint)")
    edit = decide(build("write_file", file_path="src/b.py", content="x"), "default", project)
    assert edit.rules == ("write_file(src/b.py)",)


def test_hard_denied_helper():
    assert "never runs it" in (hard_denied("echo hi; rm -rf /") or "")
    assert hard_denied("rm -rf build") is None


# --------------------------------------------------------------------------- scopes


def test_user_and_project_scopes_save_to_the_user_config(project):
    path = save_rules(["shell(npm test)"], "user", project)
    save_rules(["shell(npm test)", "shell(make)"], "user", project)
    save_rules(["edit_file(src/**)"], "project", project)
    save_rules(["shell(make lint)"], "project", project.parent)
    data = read_toml(path)
    assert path == paths.user_config_file()
    assert data["allow_rules"] == ["shell(npm test)", "shell(make)"]
    assert data["projects"][str(project.resolve())]["allow_rules"] == ["edit_file(src/**)"]
    assert data["projects"][str(project.parent.resolve())]["allow_rules"] == ["shell(make lint)"]
    with pytest.raises(ValueError, match="not saved to a file"):
        save_rules(["x"], "session", project)


def test_project_rules_apply_only_to_their_project(project, tmp_path):
    save_rules(["shell(make)"], "project", project)
    save_rules(["shell(npm test)"], "user", project)
    other = tmp_path / "other"
    other.mkdir()
    assert load_settings(project).settings.allow_rules == ["shell(npm test)", "shell(make)"]
    assert load_settings(other).settings.allow_rules == ["shell(npm test)"]


def test_a_project_file_cannot_grant_until_trusted_but_may_restrict(project):
    project_config = paths.project_config_file(project)
    project_config.parent.mkdir()
    project_config.write_text('allow_rules = ["shell(*)"]\ndeny_rules = ["shell(curl *)"]\n'
                              'ask_rules = ["shell(git push *)"]\n')
    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text('deny_rules = ["read_file(.env)"]\n')
    loaded = load_settings(project)
    assert loaded.settings.allow_rules == []
    assert loaded.settings.deny_rules == ["read_file(.env)", "shell(curl *)"]
    assert loaded.settings.ask_rules == ["shell(git push *)"]
    assert any("allow_rules ignored because this folder is not trusted" in w
               for w in loaded.warnings)
    paths.user_config_file().write_text(f'trusted_projects = ["{project.resolve()}"]\n')
    assert load_settings(project).settings.allow_rules == ["shell(*)"]


def test_a_malformed_rule_in_a_config_file_is_a_config_error(project):
    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text('deny_rules = ["shell("]\n')
    with pytest.raises(ConfigError, match="deny_rules.*is not a rule"):
        load_settings(project)


# --------------------------------------------------------------------------- finer points


def test_risky_variables_ask_even_when_the_command_is_allowed(build, project):
    allowed = rules(allow=["shell(git status)"])
    decision = decide(build("shell", command="LD_PRELOAD=./evil.so git status"), "default",
                      project, allowed)
    assert decision.verdict == Verdict.ASK and "sets LD_PRELOAD" in decision.reason
    assert decision.rules == ()
    assert decide(build("shell", command="FOO=1 LC_ALL=C git status"), "default", project,
                  allowed).verdict == Verdict.ALLOW


def test_inline_code_is_allowed_only_by_a_rule_naming_it_exactly(build, project):
    call = build("shell", command="python3 -c 'print(1)'")
    assert decide(call, "default", project, rules(allow=["shell(python3 *)"])).verdict == (
        Verdict.ASK)
    decision = decide(call, "default", project)
    assert decision.rules == ("shell(python3 -c 'print(1)')",)
    assert decide(call, "default", project, rules(allow=list(decision.rules))).verdict == (
        Verdict.ALLOW)
    assert decide(call, "yolo", project).verdict == Verdict.ALLOW


def test_sudo_asks_unless_a_rule_names_the_sudo(build, project):
    call = build("shell", command="sudo apt-get install -y jq")
    assert decide(call, "default", project, rules(allow=["shell(apt-get *)"])).verdict == (
        Verdict.ASK)
    assert decide(call, "default", project, rules(allow=["shell(sudo apt-get install *)"])
                  ).verdict == Verdict.ALLOW


def test_a_command_that_does_not_parse_asks_in_every_mode(build, project):
    call = build("shell", command='echo "unterminated')
    decision = decide(call, "yolo", project)
    assert decision.verdict == Verdict.ASK and decision.any_mode
    assert "does not parse as bash" in decision.reason and "rewrite it" in decision.reason
    assert decide(call, "plan", project).verdict == Verdict.DENY
    hidden = build("shell", command='rm -rf / "unterminated')
    assert decide(hidden, "yolo", project).verdict == Verdict.DENY


def test_a_working_dir_outside_the_project_is_outside(build, project, tmp_path):
    call = build("shell", command="make", working_dir=str(tmp_path))
    decision = decide(call, "default", project, rules(allow=["shell(make)"]))
    assert decision.verdict == Verdict.ASK and "outside the project" in decision.reason
    assert decide(build("shell", command="ls", working_dir=str(tmp_path)), "plan",
                  project).verdict == Verdict.DENY


async def test_session_rules_stop_the_asking_for_the_rest_of_the_session(fake_provider,
                                                                       project):
    from agent_tui.core.agent import Agent
    from agent_tui.core.approval import (
        Allow,
        ApprovalRequest,
        CommandDetails,
        Decision,
        RunEdited,
    )
    from agent_tui.core.providers.litellm import LitellmProvider
    from tests.core.loop_helpers import settings_for
    from tests.fakes.providers import Reply, ToolCall

    asked: list[ApprovalRequest] = []

    class SessionApprover:
        """Answers like a person pressing `a` then `s` (or `e`, editing the command)."""

        async def ask(self, request: ApprovalRequest, preview: object = None) -> Decision:
            asked.append(request)
            assert isinstance(request.details, CommandDetails)
            if "rm" in request.details.command:
                return RunEdited("rm -rf ~")
            return Allow("session", request.rules)

        async def review_summary(self, summary: str) -> str:
            return summary

    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "touch a.txt; ls"})]),
        Reply(tool_calls=[ToolCall("shell", {"command": "touch a.txt && pwd"})]),
        Reply(tool_calls=[ToolCall("shell", {"command": "rm b.txt"})]),
        Reply(text="done"),
    )
    settings = settings_for(fake_provider)
    agent = Agent(LitellmProvider(settings), ToolRegistry(builtin_tools()), settings, project,
                  SessionApprover(), lambda event: None)
    result = await agent.run("go")
    assert result.ok and agent.session_rules == ["shell(touch a.txt)"]
    assert [r.details.command for r in asked] == [  # type: ignore[union-attr]
        "touch a.txt; ls", "rm b.txt"]
    assert asked[0].parts[0].verdict == Verdict.ASK and asked[0].parts[1].verdict == (
        Verdict.ALLOW)
    assert "Exit code: 0" in fake_provider.requests[2].tool_results()[-1]["content"]
    refused = fake_provider.requests[3].tool_results()[-1]["content"]
    assert "deletes your home folder" in refused and "never runs it" in refused
    assert not paths.user_config_file().exists()


@pytest.mark.parametrize(("command", "unseen"), [
    ("python3 -c 'print(open(\".env\").read())'", "it runs code agent-tui does not analyse"),
    ("cat $(echo .env)", "it reads a path only known at run time"),
    ("env -S 'rm -rf x'", "it runs code agent-tui does not analyse"),
])
def test_with_deny_rules_what_cannot_be_seen_asks_in_every_mode(build, project, command, unseen):
    deny = rules(allow=["shell(*)"], deny=["shell(rm *)", "read_file(.env)"])
    decision = decide(build("shell", command=command), "yolo", project, deny)
    assert decision.verdict == Verdict.ASK and decision.any_mode
    assert f"{unseen}, so your deny rules cannot be checked on it" in decision.reason
    assert decide(build("shell", command=command), "yolo", project).verdict == Verdict.ALLOW


def test_a_deny_rule_catches_the_program_by_any_path(build, project):
    deny = rules(deny=["shell(rm *)"])
    for command in ("/bin/rm -rf x", "\\rm -rf x", "r''m -rf x", "command rm x"):
        assert decide(build("shell", command=command), "yolo", project, deny).verdict == (
            Verdict.DENY), command


@pytest.mark.parametrize(("command", "rule"), [
    ('rm -r "my dir"', "shell(rm -r 'my dir')"),
    ("python3 -c 'print(1); print(2)'", "shell(python3 -c 'print(1); print(2)')"),
    ("cd build; rm -r out", "shell(rm -r out)"),
])
def test_a_suggested_rule_is_the_command_quoted_and_allows_it(build, project, command, rule):
    call = build("shell", command=command)
    decision = decide(call, "default", project)
    assert decision.rules == (rule,)
    assert decide(call, "default", project, rules(allow=[rule])).verdict == Verdict.ALLOW
    # the quoted rule names the words as the command has them, not a longer command
    assert decide(build("shell", command="rm -r my dir"), "default", project,
                  rules(allow=["shell(rm -r 'my dir')"])).verdict == Verdict.ASK


def test_a_rule_saved_unquoted_before_still_allows_its_command(build, project):
    call = build("shell", command="python3 -c 'print(1)'")
    allowed = rules(allow=["shell(python3 -c print(1))"])
    assert decide(call, "default", project, allowed).verdict == Verdict.ALLOW
