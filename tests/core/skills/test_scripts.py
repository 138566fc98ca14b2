"""extract_scripts: skills' scripts copied to the project's .agent-tui/bin."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from agent_tui.core import paths
from agent_tui.core.skills import discover_skills, extract_scripts

from .helpers import make_project, write_skill


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def _load(project: Path, name: str):
    return discover_skills(project).get(name)


def test_scripts_are_copied_executable_with_a_hash_file(project: Path):
    write_skill(project / "skills", "tool", scripts={"hello": "#!/bin/sh\necho hello\n",
                                                     "sub/deep": "#!/bin/sh\necho deep\n"})
    placed = extract_scripts(_load(project, "tool"), project)
    bin_dir = paths.project_bin_dir(project)
    assert placed == [bin_dir / "hello", bin_dir / "sub-deep"]
    for path in placed:
        assert stat.S_IMODE(path.stat().st_mode) == 0o755
        assert (bin_dir / f"{path.name}.version").read_text().startswith("tool:")
    assert subprocess.run([str(placed[0])], capture_output=True, text=True).stdout == "hello\n"
    assert (bin_dir / ".gitignore").read_text() == "*\n"


def test_unchanged_scripts_are_not_written_again_and_changed_ones_are(project: Path):
    path = write_skill(project / "skills", "tool", scripts={"hello": "#!/bin/sh\necho 1\n"})
    [placed] = extract_scripts(_load(project, "tool"), project)
    version = placed.with_name("hello.version")
    before = (placed.stat().st_ino, version.stat().st_ino)

    extract_scripts(_load(project, "tool"), project)
    assert (placed.stat().st_ino, version.stat().st_ino) == before

    (path.parent / "scripts" / "hello").write_text("#!/bin/sh\necho 2\n")
    extract_scripts(_load(project, "tool"), project)
    assert placed.read_text() == "#!/bin/sh\necho 2\n"
    assert version.read_text() != "" and placed.stat().st_ino != before[0]


def test_a_deleted_copy_is_extracted_again(project: Path):
    write_skill(project / "skills", "tool", scripts={"hello": "#!/bin/sh\n"})
    [placed] = extract_scripts(_load(project, "tool"), project)
    placed.unlink()
    extract_scripts(_load(project, "tool"), project)
    assert placed.is_file()


def test_two_skills_with_a_script_of_one_name_do_not_overwrite_each_other(project: Path):
    write_skill(project / "skills", "first", scripts={"run": "#!/bin/sh\necho first\n"})
    write_skill(project / "skills", "second", scripts={"run": "#!/bin/sh\necho second\n"})
    bin_dir = paths.project_bin_dir(project)
    assert extract_scripts(_load(project, "first"), project) == [bin_dir / "run"]
    assert extract_scripts(_load(project, "second"), project) == [bin_dir / "second-run"]
    assert extract_scripts(_load(project, "first"), project) == [bin_dir / "run"]
    assert (bin_dir / "run").read_text().endswith("first\n")
    assert (bin_dir / "second-run").read_text().endswith("second\n")


def test_a_file_no_skill_put_in_bin_is_left_alone(project: Path):
    bin_dir = paths.project_bin_dir(project)
    bin_dir.mkdir(parents=True)
    (bin_dir / "run").write_text("mine")
    write_skill(project / "skills", "tool", scripts={"run": "#!/bin/sh\n"})
    assert extract_scripts(_load(project, "tool"), project) == [bin_dir / "tool-run"]
    assert (bin_dir / "run").read_text() == "mine"


def test_a_script_linked_out_of_the_skill_after_discovery_is_not_copied(
        project: Path, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.write_text("secret")
    path = write_skill(project / "skills", "tool", scripts={"run": "#!/bin/sh\n"})
    skill = _load(project, "tool")
    script = path.parent / "scripts" / "run"
    script.unlink()
    script.symlink_to(outside)
    assert extract_scripts(skill, project) == []
    assert not (paths.project_bin_dir(project) / "run").exists()


def test_a_skill_without_scripts_creates_nothing(project: Path):
    write_skill(project / "skills", "plain")
    assert extract_scripts(_load(project, "plain"), project) == []
    assert not os.path.exists(paths.project_bin_dir(project))
