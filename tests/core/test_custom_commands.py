"""Slash commands from Markdown files: names, templates, shadowing, trust, bad files."""

from __future__ import annotations

import subprocess

from agent_tui.core.custom_commands import load_custom_commands


def _project(tmp_path):
    root = tmp_path / "repo"
    (root / ".agent-tui" / "commands").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _write(folder, name, text):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_files_become_commands_with_their_front_matter(tmp_path):
    root = _project(tmp_path)
    _write(root / ".agent-tui" / "commands", "review.md",
           "---\ndescription: Review a pull request\nargument-hint: PR\nmodel: openai/gpt-4.1\n"
           "allowed-tools: shell(gh pr view:*), read_file\n---\nReview PR $1. Focus: $ARGUMENTS\n")
    _write(root / ".agent-tui" / "commands", "git/pr.md", "# Open a PR\nOpen a pull request.\n")

    found = load_custom_commands(root, trusted=True)

    assert [c.name for c in found] == ["/git:pr", "/review"]
    review = found.get("/review")
    assert review.description == "Review a pull request"
    assert review.argument_hint == "PR"
    assert review.model == "openai/gpt-4.1"
    assert review.allowed_tools == ("shell(gh pr view:*)", "read_file")
    assert review.prompt('42 "error handling"') == "Review PR 42. Focus: 42 \"error handling\""
    assert found.get("/git:pr").description == "Open a PR"  # the first line, without #


def test_arguments_are_appended_when_the_body_has_no_placeholder(tmp_path):
    root = _project(tmp_path)
    _write(root / ".agent-tui" / "commands", "explain.md", "Explain this code simply.\n")

    command = load_custom_commands(root).get("/explain")

    assert command.prompt("src/app.py") == "Explain this code simply.\n\nsrc/app.py"
    assert command.prompt("") == "Explain this code simply."


def test_a_project_command_shadows_the_person_s_and_none_shadows_a_builtin(
        tmp_path, agent_tui_home):
    root = _project(tmp_path)
    _write(agent_tui_home / "commands", "deploy.md", "the person's deploy\n")
    _write(agent_tui_home / "commands", "mine.md", "only mine\n")
    _write(root / ".agent-tui" / "commands", "deploy.md", "the project's deploy\n")
    _write(root / ".agent-tui" / "commands", "help.md", "not allowed\n")

    found = load_custom_commands(root, ["/help", "/model"])

    assert found.get("/deploy").source == "project"
    assert found.get("/mine").source == "user"
    assert found.get("/help") is None
    assert any("/help is a built-in command" in p for p in found.problems)


def test_an_untrusted_project_grants_no_tools_but_the_person_s_files_do(
        tmp_path, agent_tui_home):
    root = _project(tmp_path)
    text = "---\nallowed-tools: shell(git status)\n---\nCheck the status.\n"
    _write(root / ".agent-tui" / "commands", "status.md", text)
    _write(agent_tui_home / "commands", "mystatus.md", text)

    untrusted = load_custom_commands(root, trusted=False)
    trusted = load_custom_commands(root, trusted=True)

    assert untrusted.get("/status").granted_rules == ()
    assert untrusted.get("/mystatus").granted_rules == ("shell(git status)",)
    assert trusted.get("/status").granted_rules == ("shell(git status)",)


def test_malformed_files_are_reported_with_file_and_line_and_the_rest_load(tmp_path):
    root = _project(tmp_path)
    folder = root / ".agent-tui" / "commands"
    bad_yaml = _write(folder, "broken.md", "---\ndescription: ok\nmodel: [unclosed\n---\nbody\n")
    unclosed = _write(folder, "open.md", "---\ndescription: never closed\nbody\n")
    _write(folder, "empty.md", "---\ndescription: nothing to send\n---\n\n")
    _write(folder, "bad rule.md", "body\n")
    _write(folder, "rules.md", "---\nallowed-tools: shell(unclosed\n---\nbody\n")
    _write(folder, "good.md", "A good one.\n")

    found = load_custom_commands(root)

    assert [c.name for c in found] == ["/good"]
    problems = "\n".join(found.problems)
    assert f"{bad_yaml}:3:" in problems and "not valid YAML" in problems
    assert f"{unclosed}:1:" in problems and "never closed" in problems
    assert "no prompt" in problems
    assert "rename it" in problems
    assert "allowed-tools" in problems
