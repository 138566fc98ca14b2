"""discover_skills on real folders: the five sources, their order, and what is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core import paths
from agent_tui.core.skills import bundled_skills_folder, discover_skills, skill_folders

from .helpers import make_project, write_skill

BUNDLED = ("commit-message", "fix-failing-test", "review-diff")
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def test_the_bundled_skills_are_found_in_any_project(project: Path):
    catalog = discover_skills(project)
    assert catalog.problems == []
    assert catalog.names == list(BUNDLED)
    assert {s.source for s in catalog.skills} == {"bundled"}
    assert all(s.may_grant for s in catalog.skills)


def test_each_source_shadows_the_ones_before_it(project: Path, tmp_path: Path):
    user = paths.user_skills_dir()
    extra = tmp_path / "extra-skills"
    write_skill(user, "shared", description="from the person")
    write_skill(extra, "shared", description="from skill_paths")
    write_skill(project / ".agent-tui" / "skills", "shared", description="from the project")
    write_skill(project / "skills", "shared", description="from the repository")
    write_skill(user, "review-diff", description="the person's own review")
    write_skill(extra, "only-config")

    catalog = discover_skills(project, [extra])

    shared = catalog.get("shared")
    assert shared is not None and shared.source == "repository"
    assert shared.description == "from the repository"
    assert catalog.get("review-diff").source == "user"
    assert catalog.get("only-config").source == "config"
    assert catalog.names == sorted(catalog.names)
    pairs = [(loser.source, winner.source) for loser, winner in catalog.shadowed
             if loser.name == "shared"]
    assert pairs == [("user", "config"), ("config", "project"), ("project", "repository")]
    assert [(lo.source, w.source) for lo, w in catalog.shadowed if lo.name == "review-diff"] == [
        ("bundled", "user")]


def test_a_subfolder_of_the_project_finds_the_projects_skills(project: Path):
    write_skill(project / ".agent-tui" / "skills", "deploy")
    (project / "src" / "pkg").mkdir(parents=True)
    assert discover_skills(project / "src" / "pkg").get("deploy") is not None


def test_skill_folders_lists_the_sources_lowest_priority_first(project: Path, tmp_path: Path):
    extra = tmp_path / "more"
    root = project.resolve()
    assert skill_folders(project, [extra]) == [
        bundled_skills_folder(), paths.user_skills_dir(), extra,
        root / ".agent-tui" / "skills", root / "skills"]


def test_hidden_folders_node_modules_and_nested_skills_are_not_read(project: Path):
    skills = project / "skills"
    write_skill(skills, ".hidden")
    write_skill(skills, "node_modules")
    write_skill(skills / "group", "nested")
    (skills / "no-skill-file").mkdir()
    (skills / "a-file.md").write_text("not a folder")
    write_skill(skills, "kept")
    catalog = discover_skills(project)
    assert catalog.names == [*BUNDLED[:2], "kept", BUNDLED[2]]
    assert catalog.problems == []


def test_one_folder_reached_from_two_sources_counts_once(project: Path, tmp_path: Path):
    shared = tmp_path / "shared-skills"
    write_skill(shared, "linked")
    (project / "skills").symlink_to(shared)
    catalog = discover_skills(project, [shared])
    assert catalog.get("linked").source == "config"
    assert catalog.shadowed == []


@pytest.mark.skipif(bundled_skills_folder().resolve() != REPO / "skills",
                    reason="agent-tui is not installed from this repository (editable)")
def test_agent_tuis_own_repository_does_not_shadow_its_bundled_skills():
    catalog = discover_skills(REPO)
    assert catalog.shadowed == []
    for name in BUNDLED:
        assert catalog.get(name).source == "bundled"


def test_a_missing_or_unreadable_source_is_no_problem(project: Path, tmp_path: Path):
    catalog = discover_skills(project, [tmp_path / "does-not-exist"])
    assert catalog.problems == [] and catalog.names == list(BUNDLED)


def test_malformed_skills_are_reported_with_file_and_line_and_skipped(project: Path):
    skills = project / "skills"
    bad_yaml = write_skill(skills, "bad-yaml", extra="allowed-tools: [read_file\n")
    unclosed = skills / "unclosed" / "SKILL.md"
    unclosed.parent.mkdir(parents=True)
    unclosed.write_text("---\nname: unclosed\ndescription: never closed\n")
    no_name = skills / "no-name" / "SKILL.md"
    no_name.parent.mkdir(parents=True)
    no_name.write_text("---\ndescription: has no name\n---\nbody\n")
    write_skill(skills, "fine")

    catalog = discover_skills(project)

    assert catalog.get("fine") is not None
    assert not {"bad-yaml", "unclosed", "no-name"} & set(catalog.names)
    problems = "\n".join(catalog.problems)
    assert f"{bad_yaml}:4:" in problems and "not valid YAML" in problems
    assert f"{unclosed}:1:" in problems and "never closed" in problems
    assert f"{no_name}:1:" in problems and "`name`" in problems
    assert all("skipped" in p for p in catalog.problems)


def test_a_file_that_is_not_utf8_is_reported(project: Path):
    path = project / "skills" / "binary" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"---\nname: binary\ndescription: \xff\xfe\n---\n")
    catalog = discover_skills(project)
    assert catalog.get("binary") is None
    assert any(str(path) in p and "UTF-8" in p for p in catalog.problems)
