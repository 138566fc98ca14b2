"""Personas from the command line, as a real process: ``agent-tui agents list``, and
``--agent NAME`` steering a headless run through litellm to the fake provider."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.fakes.providers import Reply
from tests.tui.cli.test_cli import agent_tui, fake_flags


def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def user_persona(root: Path, name: str, text: str) -> Path:
    folder = root / ".home" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)
    return folder / f"{name}.md"


def project_persona(root: Path, name: str, text: str) -> Path:
    folder = root / ".agent-tui" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)
    return folder / f"{name}.md"


def stream(done) -> list[dict]:
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_agents_list_shows_each_persona_its_source_and_the_problems(tmp_path):
    root = project(tmp_path)
    mine = user_persona(root, "reviewer", "---\ndescription: my strict reviewer\n"
                        "model: openai/strong\n---\nBe strict.\n")
    team = project_persona(root, "docs", "---\ndescription: writes docs\ntools: Read, Write\n"
                           "approval-mode: auto-edit\n---\nWrite docs.\n")
    broken = project_persona(root, "broken", "---\ndescription: [unclosed\n---\nX\n")

    done = agent_tui("agents", "list", cwd=root)

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "reviewer  (user)  my strict reviewer" in out
    assert f"file:  {mine}" in out and "model: openai/strong" in out
    assert "docs  (project)  writes docs" in out and "tools: Read, Write" in out
    assert "mode: auto-edit" in out
    assert "untrusted project: its model and a more permissive mode are not applied" in out
    assert "architect  (bundled)" in out and "test-writer  (bundled)" in out
    assert "reviewer (bundled," in out and f"is shadowed by {mine}" in out
    assert "Problems" in out and f"{broken}:2: the front matter is not valid YAML" in out
    assert f"{team}" in out

    listed = json.loads(agent_tui("agents", "list", "--json", cwd=root).stdout)
    by_name = {p["name"]: p for p in listed["personas"]}
    assert by_name["reviewer"]["source"] == "user" and by_name["reviewer"]["file"] == str(mine)
    assert by_name["docs"] == {
        "name": "docs", "source": "project", "file": str(team), "description": "writes docs",
        "model": None, "tools": ["Read", "Write"], "disallowed_tools": [],
        "approval_mode": "auto-edit", "may_grant": False}
    assert by_name["architect"]["approval_mode"] == "plan"
    assert listed["shadowed"][0]["name"] == "reviewer"
    assert any(str(broken) in problem for problem in listed["problems"])


def test_agents_list_of_another_folder_and_a_bad_one(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    project_persona(other, "here", "Only here.\n")
    assert "here  (project)" in agent_tui("agents", "list", "--project", str(other),
                                          cwd=tmp_path).stdout
    done = agent_tui("agents", "list", "--project", str(tmp_path / "missing"), cwd=tmp_path)
    assert done.returncode == 2 and "is not a folder" in done.stderr


def test_headless_agent_takes_on_prompt_tools_and_mode(fake_provider, tmp_path):
    root = project(tmp_path)
    fake_provider.script(Reply(text="No findings."))

    done = agent_tui("-p", "review the diff", "--agent", "reviewer", "--output-format",
                     "stream-json", *fake_flags(fake_provider), cwd=root)

    assert done.returncode == 0, done.stderr
    start = stream(done)[0]
    assert start["type"] == "session_start" and start["approval_mode"] == "plan"
    request = fake_provider.requests[0]
    assert '<persona name="reviewer"' in request.messages[0]["content"]
    assert "- Approval mode: plan" in request.messages[0]["content"]
    names = {tool["function"]["name"] for tool in request.tools}
    assert "write_file" not in names and "read_file" in names


def test_unknown_agent_is_a_usage_error_listing_the_personas(fake_provider, tmp_path):
    root = project(tmp_path)
    project_persona(root, "docs", "Write docs.\n")
    done = agent_tui("-p", "hi", "--agent", "revewer", *fake_flags(fake_provider), cwd=root)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "no persona called 'revewer'" in done.stderr
    assert "Available: architect, docs, reviewer, test-writer" in done.stderr
    assert fake_provider.requests == []


def test_a_personas_model_is_used_and_needs_no_model_flag(fake_provider, tmp_path):
    root = project(tmp_path)
    user_persona(root, "cheap", "---\nmodel: openai/persona-model\n---\nBe brief.\n")
    fake_provider.script(Reply(text="ok"))

    done = agent_tui("-p", "hi", "--agent", "cheap", "--api-base", fake_provider.openai_base,
                     "--api-key", "sk-test", "--output-format", "stream-json", cwd=root)

    assert done.returncode == 0, done.stderr
    assert stream(done)[0]["model"] == "openai/persona-model"
    assert fake_provider.requests[0].body["model"] == "persona-model"

    fake_provider.script(Reply(text="ok"))
    flagged = agent_tui("-p", "hi", "--agent", "cheap", "--output-format", "stream-json",
                        *fake_flags(fake_provider), cwd=root)
    assert stream(flagged)[0]["model"] == "openai/fake-model"  # --model wins
    assert "--model openai/fake-model on the command line wins" in flagged.stderr


def test_the_command_lines_mode_caps_the_personas(fake_provider, tmp_path):
    root = project(tmp_path)
    user_persona(root, "wild", "---\napproval-mode: yolo\n---\nJust do it.\n")
    fake_provider.script(Reply(text="ok"), Reply(text="ok"))

    capped = agent_tui("-p", "hi", "--agent", "wild", "--approval-mode", "default",
                       "--output-format", "stream-json", *fake_flags(fake_provider), cwd=root)
    assert capped.returncode == 0, capped.stderr
    assert stream(capped)[0]["approval_mode"] == "default"
    assert "approval mode yolo was not set: it is more permissive than --approval-mode " \
           "default" in capped.stderr

    free = agent_tui("-p", "hi", "--agent", "wild", "--output-format", "stream-json",
                     *fake_flags(fake_provider), cwd=root)
    assert stream(free)[0]["approval_mode"] == "yolo"


def test_an_untrusted_projects_persona_does_not_widen_until_trusted(fake_provider, tmp_path):
    root = project(tmp_path)
    project_persona(root, "wild", "---\nmodel: openai/other\napproval-mode: yolo\n---\nGo.\n")
    (root / ".home").mkdir()
    config = root / ".home" / "config.toml"
    config.write_text('model = "openai/fake-model"\n')
    flags = ["--agent", "wild", "--output-format", "stream-json",
             "--api-base", fake_provider.openai_base, "--api-key", "sk-test"]
    fake_provider.script(Reply(text="ok"), Reply(text="ok"))

    done = agent_tui("-p", "hi", *flags, cwd=root)
    start = stream(done)[0]
    assert (start["model"], start["approval_mode"]) == ("openai/fake-model", "default")
    assert "may not choose the model until you trust the folder" in done.stderr
    assert "may only make the mode stricter" in done.stderr
    assert "Go." in fake_provider.requests[0].messages[0]["content"]  # its prompt still counts

    config.write_text(f'model = "openai/fake-model"\ntrusted_projects = ["{root.resolve()}"]\n')
    trusted = agent_tui("-p", "hi", *flags, cwd=root)
    start = stream(trusted)[0]
    assert (start["model"], start["approval_mode"]) == ("openai/other", "yolo")


def test_the_agent_setting_in_config_toml(fake_provider, tmp_path):
    root = project(tmp_path)
    (root / ".home").mkdir()
    (root / ".home" / "config.toml").write_text('agent = "architect"\n')
    (root / ".agent-tui").mkdir()
    (root / ".agent-tui" / "config.toml").write_text('agent = "test-writer"\n')
    fake_provider.script(Reply(text="plan"))

    done = agent_tui("-p", "hi", "--output-format", "stream-json",
                     *fake_flags(fake_provider), cwd=root)

    assert done.returncode == 0, done.stderr
    # An untrusted project's config may not pick the persona: the user's choice stands.
    assert "agent ignored because this folder is not trusted" in done.stderr
    assert stream(done)[0]["approval_mode"] == "plan"
    assert '<persona name="architect"' in fake_provider.requests[0].messages[0]["content"]


def test_serve_passes_agent_on_and_refuses_an_unknown_one(tmp_path):
    from agent_tui.tui.cli.cli_parser import build_parser
    from agent_tui.tui.cli.serve import workbench_command

    args = build_parser().parse_args(["--agent", "reviewer"])
    assert "--agent reviewer" in workbench_command(args, tmp_path)
    done = agent_tui("serve", "--agent", "revewer", "--port", "0", cwd=tmp_path)
    assert done.returncode == 2
    assert "no persona called 'revewer'" in done.stderr
