"""``agent-tui config list|get|set`` as a real process: values with their sources, a value
written with the file's other keys kept, a bad value and an untrusted project refused."""

from __future__ import annotations

import tomllib

from tests.tui.cli.test_cli import agent_tui


def _read(path):
    return tomllib.loads(path.read_text())


def test_set_get_and_list_with_sources(tmp_path):
    user_file = tmp_path / ".home" / "config.toml"
    user_file.parent.mkdir()
    user_file.write_text('theme = "agent-tui-light"\n\n[keys]\ntoggle_side = "f10"\n')
    (tmp_path / ".agent-tui").mkdir()
    (tmp_path / ".agent-tui" / "config.toml").write_text("max_output_tokens = 900\n")

    done = agent_tui("config", "set", "max_turns", "12", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"max_turns = 12 in {user_file}"
    assert _read(user_file) == {
        "theme": "agent-tui-light",
        "max_turns": 12,
        "keys": {"toggle_side": "f10"},
    }
    assert agent_tui("config", "get", "max_turns", cwd=tmp_path).stdout == "12\n"

    listed = agent_tui(
        "config", "list", cwd=tmp_path, env_extra={"AGENT_TUI_TEMPERATURE": "0.5"}
    ).stdout.splitlines()
    assert "max_turns = 12  (user)" in listed
    assert "max_output_tokens = 900  (project)" in listed
    assert "temperature = 0.5  (environment)" in listed
    assert "tool_set = auto  (default)" in listed
    assert "api_base = (unset)  (default)  trust-gated" in listed

    assert agent_tui("config", "set", "max_turns", "--unset", cwd=tmp_path).returncode == 0
    assert "max_turns" not in _read(user_file)


def test_a_bad_value_or_an_untrusted_project_is_refused(tmp_path):
    done = agent_tui("config", "set", "max_turns", "0", cwd=tmp_path)
    assert done.returncode == 1
    assert "max_turns: Input should be greater than or equal to 1" in done.stderr
    done = agent_tui("config", "set", "approval_mode", "yolo", "--in-project", cwd=tmp_path)
    assert done.returncode == 1 and "this folder is not trusted" in done.stderr
    assert not (tmp_path / ".agent-tui" / "config.toml").exists()
    assert not (tmp_path / ".home" / "config.toml").exists()
    done = agent_tui("config", "get", "no_such_setting", cwd=tmp_path)
    assert done.returncode == 1 and "There is no setting 'no_such_setting'" in done.stderr
