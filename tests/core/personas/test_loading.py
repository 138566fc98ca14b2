"""Reading personas from their three sources: priority, shadowing, trust, Claude Code's
spellings, and broken files reported (file and line) and skipped."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_tui.core import paths
from agent_tui.core.personas import bundled_personas_folder, load_personas


def persona_file(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def trust(root: Path) -> None:
    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text(f'trusted_projects = ["{root.resolve()}"]\n')


def test_the_bundled_personas_load_without_problems(tmp_path):
    catalog = load_personas(project(tmp_path))
    assert catalog.problems == []
    assert {"reviewer", "architect", "test-writer"} <= set(catalog.names)
    reviewer = catalog.get("reviewer")
    assert reviewer.source == "bundled" and reviewer.approval_mode == "plan"
    assert reviewer.path.parent == bundled_personas_folder()
    # A reviewer only reads: no tool that writes files is offered.
    assert reviewer.offers("read_file") and reviewer.offers("grep")
    assert not reviewer.offers("write_file") and not reviewer.offers("edit_file")
    assert catalog.get("architect").approval_mode == "plan"
    assert catalog.get("test-writer").offers("write_file")


def test_project_shadows_user_shadows_bundled(tmp_path):
    root = project(tmp_path)
    user = persona_file(paths.user_agents_dir(), "reviewer",
                        "---\ndescription: my reviewer\n---\nMine.\n")
    mine = persona_file(root / ".agent-tui" / "agents", "reviewer",
                        "---\ndescription: the team's reviewer\n---\nTeam's.\n")

    catalog = load_personas(root)

    chosen = catalog.get("reviewer")
    assert (chosen.source, chosen.path, chosen.prompt) == ("project", mine, "Team's.")
    assert [(h.source, b.source) for h, b in catalog.shadowed] == [("bundled", "user"),
                                                                   ("user", "project")]
    assert catalog.shadowed[1][0].path == user


def test_a_projects_personas_are_found_from_a_subfolder(tmp_path):
    root = project(tmp_path)
    persona_file(root / ".agent-tui" / "agents", "docs", "---\ndescription: d\n---\nWrite docs.\n")
    sub = root / "src" / "deep"
    sub.mkdir(parents=True)
    assert load_personas(sub).get("docs").source == "project"


def test_untrusted_project_personas_may_not_grant_until_trusted(tmp_path):
    root = project(tmp_path)
    persona_file(root / ".agent-tui" / "agents", "fast",
                 "---\nmodel: openai/cheap\napproval-mode: yolo\n---\nGo fast.\n")
    assert load_personas(root).get("fast").may_grant is False
    trust(root)
    assert load_personas(root).get("fast").may_grant is True
    persona_file(paths.user_agents_dir(), "mine", "---\nmodel: openai/x\n---\nMine.\n")
    assert load_personas(root).get("mine").may_grant is True


def test_claude_code_agent_files_work_as_written(tmp_path):
    root = project(tmp_path)
    persona_file(root / ".agent-tui" / "agents", "code-reviewer", (
        "---\n"
        "name: code-reviewer\n"
        "description: Expert code review specialist. Use after writing code.\n"
        "tools: Read, Grep, Glob, Bash\n"
        "model: inherit\n"
        "color: blue\n"
        "permissionMode: acceptEdits\n"
        "---\n"
        "You are a senior code reviewer.\n"))

    catalog = load_personas(root)

    assert catalog.problems == []
    persona = catalog.get("code-reviewer")
    assert persona.model is None and persona.approval_mode == "auto-edit"
    offered = {t for t in ("read_file", "read_many_files", "grep", "code_search", "glob_files",
                           "shell", "background_process", "write_file", "edit_file",
                           "web_fetch") if persona.offers(t)}
    assert offered == {"read_file", "read_many_files", "grep", "code_search", "glob_files",
                       "shell", "background_process"}
    assert persona.offers("rehydrate")  # the context's own tool stays


def test_the_name_comes_from_the_front_matter_else_the_file(tmp_path):
    root = project(tmp_path)
    folder = root / ".agent-tui" / "agents"
    persona_file(folder, "file-name", "---\nname: other-name\n---\nBody.\n")
    persona_file(folder, "plain", "Just a prompt, no front matter.\n")
    catalog = load_personas(root)
    assert "other-name" in catalog.names and "file-name" not in catalog.names
    plain = catalog.get("plain")
    assert plain.description == "Just a prompt, no front matter."
    assert plain.tools == () and plain.tool_filter() is None


def test_patterns_and_disallowed_tools(tmp_path):
    root = project(tmp_path)
    persona_file(root / ".agent-tui" / "agents", "web", (
        "---\ntools: [read_file, 'webdriver_*', 'mcp__docs__*']\n"
        "disallowed-tools: webdriver_execute_script\n---\nBrowse.\n"))
    persona = load_personas(root).get("web")
    assert persona.offers("webdriver_navigate") and persona.offers("mcp__docs__search")
    assert not persona.offers("webdriver_execute_script")
    assert not persona.offers("mcp__other__search") and not persona.offers("shell")


def test_broken_files_are_reported_where_and_skipped(tmp_path):
    root = project(tmp_path)
    folder = root / ".agent-tui" / "agents"
    bad_yaml = persona_file(folder, "bad-yaml", "---\ndescription: ok\ntools: [read_file\n---\nX\n")
    unclosed = persona_file(folder, "unclosed", "---\ndescription: never closed\nBody\n")
    bad_mode = persona_file(folder, "bad-mode",
                            "---\ndescription: d\napproval-mode: reckless\n---\nX\n")
    empty = persona_file(folder, "empty", "---\ndescription: nothing after\n---\n\n")
    bad_name = persona_file(folder, "bad-name", "---\nname: Bad Name\n---\nX\n")
    bad_tools = persona_file(folder, "bad-tools", "---\ntools: {read: yes}\n---\nX\n")
    (folder / "binary.md").write_bytes(b"\xff\xfe\x00bad")
    persona_file(folder, "fine", "---\ndescription: fine\n---\nFine.\n")

    catalog = load_personas(root)

    assert "fine" in catalog.names
    for name in ("bad-yaml", "unclosed", "bad-mode", "empty", "bad-name", "bad-tools",
                 "binary"):
        assert name not in catalog.names
    problems = "\n".join(catalog.problems)
    assert f"{bad_yaml}:3: the front matter is not valid YAML" in problems
    assert f"{unclosed}:1: the front matter opened with --- is never closed" in problems
    assert f"{bad_mode}:3: `approval-mode: reckless` is not an approval mode" in problems
    assert f"{empty}: the persona has no prompt" in problems
    assert f"{bad_name}:1: the persona's name 'Bad Name'" in problems
    assert f"{bad_tools}:1: `tools` must be a list of names" in problems
    assert f"{folder / 'binary.md'}: not UTF-8 text" in problems
    assert all("skipped" in p for p in catalog.problems)


def test_doubtful_entries_are_noted_but_the_persona_loads(tmp_path):
    root = project(tmp_path)
    path = persona_file(root / ".agent-tui" / "agents", "doubts", (
        "---\nmodel: sonnet\ntools: read_fiel, shell(git diff *), mcp__gh__pr\n---\nX\n"))
    catalog = load_personas(root)
    persona = catalog.get("doubts")
    assert persona is not None and persona.model is None
    problems = "\n".join(catalog.problems)
    assert f"{path}:1: model 'sonnet' is a Claude Code alias" in problems
    assert "no built-in tool is called 'read_fiel'" in problems
    assert "'shell(git diff *)' — a persona limits whole tools" in problems
    assert "mcp__gh__pr" not in problems
    assert persona.offers("shell")  # the pattern is dropped, the tool stays offered


def test_an_unknown_name_lists_the_ones_there_are(tmp_path):
    catalog = load_personas(project(tmp_path))
    message = catalog.unknown("revewer")
    assert "no persona called 'revewer'" in message
    assert "architect, reviewer, test-writer" in message
    assert str(paths.user_agents_dir()) in message
