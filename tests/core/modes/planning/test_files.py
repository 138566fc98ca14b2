"""The plan's files: stages, the template, approval and archiving, on real files."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from agent_tui.core.modes.planning import (
    PlanFiles,
    Stage,
    approve,
    archive_file,
    finish,
    read_baseline,
    requirements_text,
    stage,
    stamp,
    write_template,
)

NOW = datetime(2026, 11, 26, 18, 40, 0, tzinfo=UTC)


def test_a_plan_goes_through_its_stages(tmp_path):
    plan = PlanFiles(tmp_path)
    assert stage(plan) is Stage.MISSING
    write_template(plan)
    assert stage(plan) is Stage.EMPTY  # the template's heading and comment say nothing
    assert requirements_text(plan.new) == "# New requirements"
    plan.new.write_text("# Mine\n\nmake answer() return 2\n")
    assert stage(plan) is Stage.NEW
    plan.refined.write_text("1. answer() returns 2\n")
    assert stage(plan) is Stage.REFINED
    # Requirements changed after the refinement: refine them again.
    os.utime(plan.new, (plan.refined.stat().st_mtime + 5,) * 2)
    assert stage(plan) is Stage.NEW
    original = approve(plan, {"notes.txt": "abc"}, NOW)
    assert stage(plan) is Stage.CURRENT
    assert original == plan.archive / "2026-11-26T18-40-00-new_requirements.md"
    assert original.read_text() == "# Mine\n\nmake answer() return 2\n"
    assert plan.current.read_text() == "1. answer() returns 2\n"
    assert not plan.refined.exists() and not plan.new.exists()
    assert read_baseline(plan) == {"notes.txt": "abc"}
    done = finish(plan, NOW)
    assert done.name == "2026-11-26T18-40-00-current_requirements.md"
    assert not plan.current.exists() and read_baseline(plan) is None
    assert stage(plan) is Stage.MISSING


def test_an_unfinished_plan_comes_before_new_requirements(tmp_path):
    plan = PlanFiles(tmp_path)
    plan.folder.mkdir()
    plan.new.write_text("the next thing\n")
    plan.current.write_text("1. the thing being done\n")
    assert stage(plan) is Stage.CURRENT


def test_the_template_never_overwrites_requirements(tmp_path):
    plan = PlanFiles(tmp_path)
    plan.folder.mkdir()
    plan.new.write_text("mine\n")
    with pytest.raises(FileExistsError):
        write_template(plan)
    assert plan.new.read_text() == "mine\n"


def test_archive_names_carry_the_time_and_never_collide(tmp_path):
    plan = PlanFiles(tmp_path)
    plan.folder.mkdir()
    names = []
    for text in ("one", "two", "three"):
        path = plan.folder / "commit_message.md"
        path.write_text(text)
        names.append(archive_file(plan, path, NOW).name)
    assert names == ["2026-11-26T18-40-00-commit_message.md",
                     "2026-11-26T18-40-00-commit_message-2.md",
                     "2026-11-26T18-40-00-commit_message-3.md"]
    assert stamp(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02T03-04-05"
