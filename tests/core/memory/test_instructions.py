"""AGENTS.md files: which are loaded, in which order, redacted and cut."""

from __future__ import annotations

import subprocess

from agent_tui.core.memory.instructions import MAX_FILE_CHARS, load_instructions


def _project(tmp_path):
    root = tmp_path / "repo"
    (root / "pkg" / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_the_person_s_own_then_root_down_to_the_working_folder(tmp_path, agent_tui_home):
    root = _project(tmp_path)
    (agent_tui_home / "AGENTS.md").write_text("Always answer in English.\n")
    (root / "AGENTS.md").write_text("Run tests with TESTCMD.\n")
    (root / "pkg" / "CLAUDE.md").write_text("pkg is typed strictly.\n")
    (root / "pkg" / "sub" / "AGENTS.md").write_text("sub: no new dependencies.\n")
    (root / "pkg" / "sub" / "GEMINI.md").write_text("never loaded: AGENTS.md is here\n")

    loaded = load_instructions(root / "pkg" / "sub")

    assert [(f.source, f.path) for f in loaded.files] == [
        ("user", agent_tui_home / "AGENTS.md"),
        ("project", root / "AGENTS.md"),
        ("project", root / "pkg" / "CLAUDE.md"),
        ("project", root / "pkg" / "sub" / "AGENTS.md"),
    ]
    section = loaded.prompt_section()
    assert section.index("English") < section.index("TESTCMD") < section.index("typed")
    assert "never loaded" not in section


def test_folders_above_the_project_root_are_not_read(tmp_path):
    (tmp_path / "AGENTS.md").write_text("outside the project\n")
    root = _project(tmp_path)

    assert load_instructions(root).files == ()


def test_the_project_memory_file_is_loaded_last(tmp_path):
    root = _project(tmp_path)
    (root / "AGENTS.md").write_text("rules\n")
    (root / ".agent-tui").mkdir()
    (root / ".agent-tui" / "memory.md").write_text("### Entry points\n- cli.py main()\n")

    loaded = load_instructions(root)

    assert [f.source for f in loaded.files] == ["project", "memory"]
    assert "cli.py main()" in loaded.prompt_section()


def test_secrets_are_redacted(tmp_path):
    root = _project(tmp_path)
    (root / "AGENTS.md").write_text(
        "Use the key sk-proj-abcdefghijklmnop1234567890 for staging; db password hunter22\n")

    text = load_instructions(root, secrets=["hunter22"]).files[0].text

    assert "sk-proj-abcdefghijklmnop1234567890" not in text
    assert "hunter22" not in text
    assert "[REDACTED]" in text


def test_an_oversized_file_is_cut_and_reported(tmp_path):
    root = _project(tmp_path)
    (root / "AGENTS.md").write_text("x" * (MAX_FILE_CHARS + 500))

    loaded = load_instructions(root)

    assert loaded.files[0].truncated
    assert "was not loaded" in loaded.files[0].text
    assert "Shorten it" in loaded.problems[0]


def test_an_unreadable_file_is_reported_and_the_rest_loads(tmp_path):
    root = _project(tmp_path)
    (root / "AGENTS.md").mkdir()  # a folder where a file should be: reading fails
    (root / "CLAUDE.md").write_text("the fallback\n")

    loaded = load_instructions(root)

    assert "cannot be read" in loaded.problems[0]
    assert [f.path.name for f in loaded.files] == ["CLAUDE.md"]
