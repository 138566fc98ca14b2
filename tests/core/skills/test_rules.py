"""What a SKILL.md must say, and when its allowed tools are honoured."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.skills import MAX_DESCRIPTION, MAX_NAME, discover_skills

from .helpers import make_project, trust, write_skill


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


@pytest.mark.parametrize("name", ["Upper", "under_score", "-leading", "double--hyphen",
                                  "a" * (MAX_NAME + 1), "spa ce"])
def test_a_bad_name_is_reported_and_the_skill_skipped(project: Path, name: str):
    path = write_skill(project / "skills", "bad", name=f'"{name}"')
    catalog = discover_skills(project)
    assert catalog.get(name) is None and catalog.get("bad") is None
    assert any(p.startswith(f"{path}:2:") and "lowercase letters, digits" in p
               for p in catalog.problems)


def test_a_name_of_64_characters_with_digits_and_hyphens_is_fine(project: Path):
    name = "a1-" + "b" * (MAX_NAME - 3)
    write_skill(project / "skills", name)
    assert discover_skills(project).get(name) is not None


@pytest.mark.parametrize("description", ['""', "x" * (MAX_DESCRIPTION + 1)])
def test_an_empty_or_too_long_description_is_reported(project: Path, description: str):
    path = write_skill(project / "skills", "wordy", description=description)
    catalog = discover_skills(project)
    assert catalog.get("wordy") is None
    assert any(p.startswith(f"{path}:3:") and f"1 to {MAX_DESCRIPTION}" in p
               for p in catalog.problems)


def test_a_name_that_differs_from_its_folder_loads_with_a_warning(project: Path):
    path = write_skill(project / "skills", "folder-name", name="real-name")
    catalog = discover_skills(project)
    skill = catalog.get("real-name")
    assert skill is not None and skill.folder == path.parent
    [warning] = catalog.problems
    assert warning.startswith(f"{path}:2:") and "differs from its folder folder-name" in warning


def test_the_skill_keeps_body_license_and_scripts(project: Path):
    path = write_skill(project / "skills", "full", extra="license: MIT\nmetadata:\n  v: '1'\n",
                       body="# Steps\n\n1. Do it.\n",
                       scripts={"run": "#!/bin/sh\n", "lib/helper.py": "print()\n",
                                ".hidden": "x"})
    skill = discover_skills(project).get("full")
    assert skill.body == "# Steps\n\n1. Do it.\n"
    assert skill.license == "MIT" and skill.path == path
    assert skill.scripts == (path.parent / "scripts/lib/helper.py", path.parent / "scripts/run")


def test_scripts_linked_from_outside_the_skill_are_left_out(project: Path, tmp_path: Path):
    secret = tmp_path / "outside.sh"
    secret.write_text("#!/bin/sh\n")
    path = write_skill(project / "skills", "linky", scripts={"inside": "#!/bin/sh\n"})
    scripts = path.parent / "scripts"
    (scripts / "outside").symlink_to(secret)
    (scripts / "alias").symlink_to(scripts / "inside")
    skill = discover_skills(project).get("linky")
    assert skill.scripts == (scripts / "alias", scripts / "inside")


def test_a_metadata_that_is_not_a_mapping_is_noted(project: Path):
    write_skill(project / "skills", "meta", extra="metadata: just text\n")
    catalog = discover_skills(project)
    assert catalog.get("meta") is not None
    assert any("`metadata`" in p for p in catalog.problems)


@pytest.mark.parametrize("allowed", ["allowed-tools: shell(git diff *) read_file, grep\n",
                                     "allowed-tools:\n  - shell(git diff *)\n  - read_file\n"
                                     "  - grep\n"])
def test_allowed_tools_as_a_string_or_a_list(project: Path, allowed: str):
    write_skill(project / "skills", "tools", extra=allowed)
    skill = discover_skills(project).get("tools")
    assert skill.allowed_tools == ("shell(git diff *)", "read_file", "grep")


def test_a_bad_allowed_tools_rule_is_dropped_and_reported(project: Path):
    path = write_skill(project / "skills", "tools",
                       extra="allowed-tools: read_file shell() 9bad\n")
    catalog = discover_skills(project)
    assert catalog.get("tools").allowed_tools == ("read_file",)
    bad = [p for p in catalog.problems if "allowed-tools" in p]
    assert len(bad) == 2 and all(p.startswith(f"{path}:4:") for p in bad)
    assert "'shell()' is not a rule" in bad[0] and "dropped" in bad[0]


def test_allowed_tools_of_a_mapping_are_a_problem(project: Path):
    path = write_skill(project / "skills", "tools", extra="allowed-tools:\n  shell: yes\n")
    catalog = discover_skills(project)
    assert catalog.get("tools") is None
    assert any(str(path) in p and "list of names" in p for p in catalog.problems)


def _grants(project: Path, extra: Path) -> dict[str, bool]:
    return {s.name: s.may_grant for s in discover_skills(project, [extra]).skills
            if s.name.startswith("g-")}


def test_only_the_persons_sources_grant_tools_in_an_untrusted_project(
        project: Path, tmp_path: Path, agent_tui_home: Path):
    from agent_tui.core import paths

    extra = tmp_path / "extra"
    rule = "allowed-tools: shell(rm -rf *)\n"
    write_skill(paths.user_skills_dir(), "g-user", extra=rule)
    write_skill(extra, "g-config", extra=rule)
    write_skill(project / ".agent-tui" / "skills", "g-project", extra=rule)
    write_skill(project / "skills", "g-repository", extra=rule)

    assert _grants(project, extra) == {"g-user": True, "g-config": True,
                                       "g-project": False, "g-repository": False}
    trust(agent_tui_home, project)
    assert _grants(project, extra) == {"g-user": True, "g-config": True,
                                       "g-project": True, "g-repository": True}
