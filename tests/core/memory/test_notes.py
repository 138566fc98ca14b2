"""remember: Markdown notes merged into the project's memory file, atomically."""

from __future__ import annotations

import os
import subprocess

import pytest

from agent_tui.core.memory.notes import SIZE_WARNING, read_project_notes, remember
from agent_tui.core.text import durable


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def memory_file(root):
    return root / ".agent-tui" / "memory.md"


def test_the_first_notes_make_the_file_at_the_project_root(project):
    done = remember(project / "src", "### Entry points\n- `src/cli.py` - `main()`")

    assert done.path == memory_file(project)
    assert done.added == 1
    text = memory_file(project).read_text()
    assert "### Entry points\n- `src/cli.py` - `main()`" in text
    assert read_project_notes(project / "src") == text


def test_notes_under_an_existing_heading_join_that_section_in_order(project):
    remember(project, "### Entry points\n- cli.py main()\n\n### Tests\n- pytest -q")

    done = remember(project, "### Entry points\n- server.py serve()\n- worker.py run()")

    text = memory_file(project).read_text()
    assert done.added == 2
    assert text.count("### Entry points") == 1
    section = text.split("### Entry points", 1)[1].split("###", 1)[0]
    assert section.split() == ["-", "cli.py", "main()", "-", "server.py", "serve()",
                               "-", "worker.py", "run()"]
    assert text.index("worker.py") < text.index("### Tests")


def test_a_new_heading_is_added_at_the_end(project):
    remember(project, "### Entry points\n- cli.py main()")

    remember(project, "### Conventions\n- type hints everywhere")

    text = memory_file(project).read_text()
    assert text.index("### Entry points") < text.index("### Conventions")
    assert text.rstrip().endswith("- type hints everywhere")


def test_lines_already_there_are_not_repeated(project):
    remember(project, "### Tests\n- pytest -q\n- ruff check .")

    done = remember(project, "### Tests\n- ruff check .\n- pytest -q\n- mypy core")

    text = memory_file(project).read_text()
    assert done.added == 1
    assert text.count("- pytest -q") == 1 and text.count("- ruff check .") == 1
    assert "- mypy core" in text


def test_the_same_notes_twice_change_nothing(project):
    remember(project, "### Tests\n- pytest -q")
    before = memory_file(project).read_text()

    done = remember(project, "### Tests\n- pytest -q")

    assert done.added == 0
    assert memory_file(project).read_text() == before


def test_notes_without_a_heading_go_under_notes(project):
    remember(project, "- the API is versioned under /v2")
    remember(project, "- staging deploys on Fridays")

    text = memory_file(project).read_text()
    assert text.count("### Notes") == 1
    notes = text.split("### Notes", 1)[1]
    assert notes.index("/v2") < notes.index("Fridays")


def test_headings_match_whatever_their_case(project):
    remember(project, "### Entry Points\n- cli.py")
    remember(project, "### entry points\n- server.py")

    text = memory_file(project).read_text()
    assert text.lower().count("### entry points") == 1
    assert "server.py" in text


def test_empty_notes_are_refused(project):
    with pytest.raises(ValueError, match="empty"):
        remember(project, " \n\n ")
    assert not memory_file(project).exists()


def test_a_large_file_is_reported_and_nothing_is_dropped(project):
    bullets = "\n".join(f"- fact {i}: " + "x" * 80 for i in range(500))

    done = remember(project, f"### Facts\n{bullets}")

    assert done.size > SIZE_WARNING
    text = memory_file(project).read_text()
    assert "- fact 0: " in text and "- fact 499: " in text


def test_a_failed_write_leaves_the_old_file_and_no_temporary(project, monkeypatch):
    remember(project, "### Tests\n- pytest -q")
    before = memory_file(project).read_text()

    def power_cut(*args, **kwargs):
        raise OSError("simulated crash before the rename")

    monkeypatch.setattr(durable.os, "replace", power_cut)
    with pytest.raises(OSError, match="simulated"):
        remember(project, "### Tests\n- ruff check .")

    assert memory_file(project).read_text() == before
    assert os.listdir(memory_file(project).parent) == ["memory.md"]


def test_read_project_notes_without_a_file_is_empty(project):
    assert read_project_notes(project) == ""
