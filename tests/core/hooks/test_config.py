"""Loading hooks: both shapes, matchers, trust, and malformed entries reported and skipped."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.hooks import DEFAULT_TIMEOUT_S, Hook, HookSet, load_hooks


def test_no_config_means_no_hooks_and_no_warnings(project: Path):
    hooks = load_hooks(project)
    assert not hooks
    assert hooks.hooks == () and hooks.warnings == []


def test_flat_entries_load_with_their_matcher_timeout_source_and_number(
        project: Path, user_config: Path):
    user_config.write_text(
        '[[hooks.PreToolUse]]\nmatcher = "shell|write_file"\ncommand = "check.sh"\ntimeout = 30\n'
        '[[hooks.PreToolUse]]\ncommand = "log.sh"\n'
        '[[hooks.Stop]]\ncommand = "stop.sh"\n')
    hooks = load_hooks(project)
    assert hooks.warnings == []
    assert hooks.hooks == (
        Hook("PreToolUse", "check.sh", "shell|write_file", 30.0, user_config, 1),
        Hook("PreToolUse", "log.sh", None, DEFAULT_TIMEOUT_S, user_config, 2),
        Hook("Stop", "stop.sh", None, DEFAULT_TIMEOUT_S, user_config, 1),
    )
    assert hooks.hooks[1].entry == "[[hooks.PreToolUse]] #2"
    assert hooks.hooks[0].describe() == f"hook `check.sh` (PreToolUse, from {user_config})"


def test_claude_codes_nested_shape_loads_each_command(project: Path, user_config: Path):
    user_config.write_text(
        '[[hooks.PostToolUse]]\nmatcher = "write_file"\n'
        'hooks = [{type = "command", command = "fmt.sh", timeout = 5},'
        ' {type = "command", command = "lint.sh"}]\n')
    hooks = load_hooks(project)
    assert hooks.warnings == []
    assert [(h.command, h.matcher, h.timeout, h.index) for h in hooks.hooks] == [
        ("fmt.sh", "write_file", 5.0, 1), ("lint.sh", "write_file", DEFAULT_TIMEOUT_S, 1)]


def test_matcher_is_a_regex_that_must_match_the_whole_tool_name(tmp_path: Path):
    def hook(matcher: str | None) -> Hook:
        return Hook("PreToolUse", "x", matcher, 1.0, tmp_path, 1)

    hooks = HookSet((hook("shell|write_file"), hook(None), hook("read_.*")))
    assert hooks.for_event("PreToolUse", "shell") == [hook("shell|write_file"), hook(None)]
    assert hooks.for_event("PreToolUse", "shell_background") == [hook(None)]
    assert hooks.for_event("PreToolUse", "read_file") == [hook(None), hook("read_.*")]
    assert hooks.for_event("PreToolUse") == list(hooks.hooks)
    assert hooks.for_event("PostToolUse", "shell") == []


def test_star_and_empty_matchers_match_every_tool(project: Path, user_config: Path):
    user_config.write_text('[[hooks.PreToolUse]]\nmatcher = "*"\ncommand = "a"\n'
                           '[[hooks.PreToolUse]]\nmatcher = ""\ncommand = "b"\n')
    hooks = load_hooks(project)
    assert [h.matcher for h in hooks.hooks] == [None, None]
    assert len(hooks.for_event("PreToolUse", "anything")) == 2


def test_an_untrusted_projects_hooks_are_skipped_with_a_warning_saying_how_to_trust_it(
        project: Path, user_config: Path):
    user_config.write_text('[[hooks.Stop]]\ncommand = "mine.sh"\n')
    project_file = project / ".agent-tui" / "config.toml"
    project_file.write_text('[[hooks.PreToolUse]]\ncommand = "theirs.sh"\n')
    hooks = load_hooks(project)
    assert [h.command for h in hooks.hooks] == ["mine.sh"]
    [warning] = hooks.warnings
    assert str(project_file) in warning and "not trusted" in warning
    assert "trusted_projects" in warning and str(user_config) in warning
    assert str(project.resolve()) in warning


def test_a_trusted_projects_hooks_load_after_the_users(project: Path, user_config: Path):
    user_config.write_text(f'trusted_projects = ["{project.resolve()}"]\n'
                           '[[hooks.PreToolUse]]\ncommand = "mine.sh"\n')
    project_file = project / ".agent-tui" / "config.toml"
    project_file.write_text('[[hooks.PreToolUse]]\ncommand = "theirs.sh"\n')
    hooks = load_hooks(project)
    assert hooks.warnings == []
    assert [(h.command, h.source) for h in hooks.hooks] == [
        ("mine.sh", user_config), ("theirs.sh", project_file)]


def test_an_untrusted_project_without_hooks_is_not_warned_about(project: Path):
    (project / ".agent-tui" / "config.toml").write_text('model = "x"\n')
    assert load_hooks(project).warnings == []


def test_malformed_entries_are_reported_with_file_and_entry_and_the_rest_load(
        project: Path, user_config: Path):
    user_config.write_text(
        '[[hooks.PreToolUse]]\ncommand = "good1.sh"\n'
        '[[hooks.PreToolUse]]\nmatcher = "shell("\ncommand = "bad-regex.sh"\n'
        '[[hooks.PreToolUse]]\nmatcher = "shell"\n'
        '[[hooks.PreToolUse]]\ncommand = "bad-timeout.sh"\ntimeout = "soon"\n'
        '[[hooks.PreToolUse]]\ncommand = 42\n'
        '[[hooks.PreToolUse]]\nhooks = [{type = "prompt", command = "x"}]\n'
        '[[hooks.PreToolUse]]\nmatcher = 3\ncommand = "bad-matcher.sh"\n'
        '[[hooks.PreToolUse]]\ncommand = "good2.sh"\n'
        '[[hooks.OnSave]]\ncommand = "unknown-event.sh"\n'
        '[hooks]\nStop = "not-a-list"\n')
    hooks = load_hooks(project)
    assert [h.command for h in hooks.hooks] == ["good1.sh", "good2.sh"]
    assert hooks.hooks[1].index == 8
    warnings = hooks.warnings
    assert all(w.startswith(f"{user_config}: ") for w in warnings)
    expected = {
        "[[hooks.PreToolUse]] #2 skipped": "regular expression",
        "[[hooks.PreToolUse]] #3 skipped": "needs a `command`",
        "[[hooks.PreToolUse]] #4 skipped": "`timeout` must be a positive number",
        "[[hooks.PreToolUse]] #5 skipped": "needs a `command`",
        "[[hooks.PreToolUse]] #6 skipped": "not supported",
        "[[hooks.PreToolUse]] #7 skipped": "`matcher` must be a string",
        "[[hooks.OnSave]] skipped": "not a hook event",
        "hooks.Stop skipped": "[[hooks.Stop]]",
    }
    for entry, problem in expected.items():
        assert any(entry in w and problem in w for w in warnings), (entry, warnings)
    assert len(warnings) == len(expected)


def test_bad_toml_is_a_warning_and_the_other_file_still_loads(project: Path,
                                                              user_config: Path):
    user_config.write_text(f'trusted_projects = ["{project.resolve()}"]\n'
                           '[[hooks.Stop]]\ncommand = "mine.sh"\n')
    project_file = project / ".agent-tui" / "config.toml"
    project_file.write_text("[[hooks.Stop]\ncommand = \n")
    hooks = load_hooks(project)
    assert [h.command for h in hooks.hooks] == ["mine.sh"]
    [warning] = hooks.warnings
    assert str(project_file) in warning and "not valid TOML" in warning


def test_unknown_keys_and_matchers_on_events_without_tools_are_warned_about_but_load(
        project: Path, user_config: Path):
    user_config.write_text('[[hooks.Stop]]\nmatcher = "shell"\ncommand = "a.sh"\n'
                           '[[hooks.PreToolUse]]\ncommand = "b.sh"\ntimout = 5\n')
    hooks = load_hooks(project)
    assert [(h.command, h.matcher, h.timeout) for h in hooks.hooks] == [
        ("a.sh", None, DEFAULT_TIMEOUT_S), ("b.sh", None, DEFAULT_TIMEOUT_S)]
    assert len(hooks.warnings) == 2
    assert "[[hooks.Stop]] #1: `matcher` ignored" in hooks.warnings[0]
    assert "[[hooks.PreToolUse]] #1: unknown key(s) timout ignored" in hooks.warnings[1]
