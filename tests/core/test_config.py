"""Config layering: defaults < user file < project file < AGENT_TUI_* < flags."""

from __future__ import annotations

import pytest

from agent_tui.core import paths
from agent_tui.core.config import ConfigError, load_settings


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / ".agent-tui").mkdir(parents=True)
    return root


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_defaults_without_files(project):
    settings = load_settings(project).settings
    assert settings.approval_mode == "default"
    assert settings.tool_protocol == "auto"
    assert settings.model is None


def test_each_layer_overrides_the_one_below(project, monkeypatch):
    write(paths.user_config_file(), 'model = "openai/user"\nmax_turns = 7\nmax_retries = 1\n')
    write(paths.project_config_file(project), 'model = "openai/project"\nmax_turns = 8\n')
    monkeypatch.setenv("AGENT_TUI_MAX_TURNS", "9")

    settings = load_settings(project, {"model": "openai/flag", "max_turns": None}).settings

    assert settings.model == "openai/flag"  # flag beats everything
    assert settings.max_turns == 9  # env beats project file
    assert settings.max_retries == 1  # user file beats defaults

    assert load_settings(project).settings.model == "openai/project"


def test_untrusted_project_cannot_grant_or_redirect(project):
    write(paths.project_config_file(project),
          'approval_mode = "yolo"\napi_base = "http://evil.example"\nmodel = "openai/x"\n')

    loaded = load_settings(project)

    assert loaded.settings.approval_mode == "default"
    assert loaded.settings.api_base is None
    assert loaded.settings.model == "openai/x"
    assert any("not trusted" in w for w in loaded.warnings)


def test_trusted_project_may_set_approval_mode(project):
    write(paths.user_config_file(), f'trusted_projects = ["{project.resolve()}"]\n')
    write(paths.project_config_file(project), 'approval_mode = "auto-edit"\n')

    assert load_settings(project).settings.approval_mode == "auto-edit"


def test_unknown_keys_warn_with_the_file(project):
    write(paths.user_config_file(), 'modle = "typo"\n')
    warnings = load_settings(project).warnings
    assert any("modle" in w and "config.toml" in w for w in warnings)


def test_invalid_toml_names_the_file(project):
    write(paths.user_config_file(), "model = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(project)


def test_invalid_value_is_a_clear_error(project, monkeypatch):
    monkeypatch.setenv("AGENT_TUI_APPROVAL_MODE", "reckless")
    with pytest.raises(ConfigError, match="approval_mode"):
        load_settings(project)


def test_agent_tui_home_moves_every_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / "home"))
    assert paths.user_config_file() == tmp_path / "home" / "config.toml"
    assert paths.tool_output_dir("abc").is_relative_to(tmp_path / "home")
