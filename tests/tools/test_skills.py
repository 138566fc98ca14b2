"""activate_skill, built and executed as the engine runs it, on skills in real folders."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from agent_tui.core import paths
from agent_tui.core.skills import Skill, discover_skills
from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.names import ToolName
from agent_tui.tools.skills import ActivateSkillTool
from tests.core.skills.helpers import make_project, trust, write_skill

TOOL = ActivateSkillTool()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(tmp_path / "project")
    write_skill(root / "skills", "deploy", description="Deploy the app.",
                extra="allowed-tools: shell(make deploy) read_file\n",
                body="# Deploy\n\nRun deploy-check first.\n",
                scripts={"deploy-check": "#!/bin/sh\necho ok\n"})
    (root / "skills" / "deploy" / "reference.md").write_text("notes\n")
    return root


def _context(project: Path, activated: list[Skill] | None = None) -> ToolContext:
    return ToolContext(workdir=project, output_dir=project / "out",
                       skills=discover_skills(project),
                       on_skill_activated=activated.append if activated is not None else None)


def test_the_tool_is_a_read_named_activate_skill():
    assert TOOL.name == ToolName.ACTIVATE_SKILL == "activate_skill"
    assert TOOL.kind is ToolKind.READ and TOOL.read_only
    assert TOOL.parameters_schema()["required"] == ["name"]


async def test_activating_returns_the_body_files_scripts_and_grants(
        project: Path, agent_tui_home: Path):
    trust(agent_tui_home, project)
    activated: list[Skill] = []
    invocation = TOOL.build({"name": "deploy"}, _context(project, activated))
    assert invocation.describe() == "activate_skill deploy"

    result = await invocation.execute()

    assert result.ok, result.error
    text = result.llm_content
    folder = project.resolve() / "skills" / "deploy"
    assert text.startswith(f'<skill name="deploy" source="repository" folder="{folder}">\n'
                           "# Deploy\n\nRun deploy-check first.\n</skill>")
    assert "- reference.md\n- scripts/deploy-check" in text and "- SKILL.md" not in text
    script = paths.project_bin_dir(project) / "deploy-check"
    assert f"run them with shell:\n- {script}" in text
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert "Granted for the rest of the session, without asking: shell(make deploy), " \
           "read_file." in text
    assert [s.name for s in activated] == ["deploy"]
    assert result.display == "activated deploy (repository)"


async def test_an_untrusted_projects_skill_grants_nothing_and_says_why(project: Path):
    activated: list[Skill] = []
    result = await TOOL.build({"name": "deploy"}, _context(project, activated)).execute()
    assert result.ok
    assert "were not granted" in result.llm_content
    assert "from an untrusted project" in result.llm_content
    assert "trusted_projects" in result.llm_content
    assert activated[0].may_grant is False


async def test_a_skill_without_files_or_rules_says_so(project: Path):
    write_skill(paths.user_skills_dir(), "plain", body="Just do it.\n")
    result = await TOOL.build({"name": "plain"}, _context(project)).execute()
    assert result.ok
    assert "(none besides SKILL.md)" in result.llm_content
    assert "run them with shell" not in result.llm_content
    assert "granted" not in result.llm_content.lower()


async def test_only_the_first_100_files_are_listed(project: Path):
    folder = write_skill(paths.user_skills_dir(), "many").parent
    for i in range(150):
        (folder / f"file-{i:03}.txt").write_text("x")
    result = await TOOL.build({"name": "many"}, _context(project)).execute()
    assert "(the first 100)" in result.llm_content
    assert "file-099.txt" in result.llm_content and "file-100.txt" not in result.llm_content


def test_an_unknown_name_is_refused_with_the_names_on_offer(project: Path):
    with pytest.raises(ToolArgumentError) as caught:
        TOOL.build({"name": "nope"}, _context(project))
    message = str(caught.value)
    assert "no skill called 'nope'" in message
    assert "commit-message, deploy, fix-failing-test, review-diff" in message


def test_without_skills_loaded_the_call_is_refused(tmp_path: Path):
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")
    with pytest.raises(ToolArgumentError, match="no skills are loaded in this run"):
        TOOL.build({"name": "deploy"}, ctx)


async def test_execute_checks_again_when_the_catalog_changed_since_build(project: Path):
    ctx = _context(project)
    invocation = TOOL.build({"name": "deploy"}, ctx)
    ctx.skills = discover_skills(project.parent)  # read anew between build and execute
    ctx.skills.skills = [s for s in ctx.skills.skills if s.name != "deploy"]
    result = await invocation.execute()
    assert not result.ok and "no skill called 'deploy'" in result.error
    ctx.skills = None
    result = await invocation.execute()
    assert not result.ok and "no skills are loaded in this run" in result.error


async def test_a_bin_folder_that_cannot_be_written_is_a_failure_saying_what_to_do(
        project: Path):
    (project / ".agent-tui").mkdir()
    (project / ".agent-tui" / "bin").write_text("a file where the folder should be")
    result = await TOOL.build({"name": "deploy"}, _context(project)).execute()
    assert not result.ok
    assert "could not be copied" in result.error and "scripts instead" in result.error


async def test_a_bundled_skills_extracted_script_runs_in_the_project(project: Path):
    import subprocess

    from tests.core.skills.helpers import git

    git(project, "init", "-q")
    (project / "debug.py").write_text("breakpoint()\n")
    git(project, "add", "debug.py")
    result = await TOOL.build({"name": "review-diff"}, _context(project)).execute()
    script = paths.project_bin_dir(project) / "diff-summary"
    assert result.ok and str(script) in result.llm_content
    out = subprocess.run([str(script)], cwd=project, capture_output=True, text=True)
    assert "! debug output: debug.py:1:" in out.stdout
