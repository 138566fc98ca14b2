"""Keys and secrets kept out of the agent's commands, checked in real subprocesses."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.config import Settings, load_settings
from agent_tui.core.safety.secret_names import is_secret_name
from agent_tui.core.safety.subprocess_env import filtered_env, subprocess_env
from agent_tui.tools.base import ToolContext
from agent_tui.tools.shell import ShellTool
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall

SECRETS = {
    "OPENAI_API_KEY": "sk-openai-value-1",
    "ANTHROPIC_API_KEY": "sk-ant-value-2",
    "GEMINI_API_KEY": "gemini-value-3",
    "GOOGLE_API_KEY": "google-value-4",
    "OPENROUTER_API_KEY": "openrouter-value-5",
    "AZURE_OPENAI_KEY": "azure-value-6",
    "AWS_SECRET_ACCESS_KEY": "aws-value-7",
    "GITHUB_TOKEN": "ghtoken-value-8",
    "DB_PASSWORD": "db-value-9",
    "client_secret": "lower-value-10",
    "API_KEY": "bare-value-11",
}
PLAIN = {"PATH": "/usr/bin:/bin", "HOME": "/home/me", "LANG": "C.UTF-8",
         "TOKENIZERS_PARALLELISM": "false", "KEYBOARD": "us", "MONKEY_MODE": "1"}


def test_default_patterns_withhold_provider_keys_and_secret_names():
    env = filtered_env({**SECRETS, **PLAIN})
    assert env == PLAIN


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "MY_SERVICE_APIKEY", "AZURE_SPEECH_KEY",
                                  "STRIPE_SECRET_KEY", "SECRET", "HF_TOKEN", "NPM_TOKEN",
                                  "MYSQL_ROOT_PASSWORD", "SMTP_PASSWD", "AWS_ACCESS_KEY_ID",
                                  "SSH_PRIVATE_KEY", "LITELLM_MASTER_KEY"])
def test_secret_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["PATH", "HOME", "TOKENIZERS_PARALLELISM", "KEY_MAP",
                                  "SSH_AUTH_SOCK", "GOOGLE_APPLICATION_CREDENTIALS",
                                  "PYTHONPATH"])
def test_ordinary_names(name):
    assert not is_secret_name(name)


def test_passthrough_names_and_globs_are_kept():
    env = filtered_env({**SECRETS, **PLAIN}, passthrough=["GITHUB_TOKEN", "DB_*"])
    assert env == {**PLAIN, "GITHUB_TOKEN": "ghtoken-value-8", "DB_PASSWORD": "db-value-9"}


def test_variables_the_settings_name_as_keys_are_withheld():
    settings = Settings(api_key_env="LLM_CREDS", web_search_key_env="SEARCH_CREDS")
    environ = {**PLAIN, "LLM_CREDS": "abc", "SEARCH_CREDS": "def"}
    assert subprocess_env(settings, environ) == PLAIN


def test_env_passthrough_is_ignored_in_an_untrusted_project_file(tmp_path):
    (tmp_path / ".agent-tui").mkdir()
    (tmp_path / ".agent-tui" / "config.toml").write_text(
        'env_passthrough = ["*"]\nsandbox = "none"\n')
    loaded = load_settings(tmp_path)
    assert loaded.settings.env_passthrough == []
    assert any("env_passthrough" in w for w in loaded.warnings)


async def test_a_real_shell_command_sees_no_keys_but_the_passed_one(tmp_path, monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("VISIBLE_PLAIN", "plain-value")
    settings = Settings(env_passthrough=["GITHUB_TOKEN"])
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out",
                      env=subprocess_env(settings))
    result = await ShellTool().build({"command": "env"}, ctx).execute()
    assert result.ok
    lines = set(result.llm_content.splitlines())
    assert "GITHUB_TOKEN=ghtoken-value-8" in lines
    assert "VISIBLE_PLAIN=plain-value" in lines
    for name, value in SECRETS.items():
        if name != "GITHUB_TOKEN":
            assert value not in result.llm_content, name


async def test_the_agent_runs_commands_without_the_keys(fake_provider, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-loop-secret-value")
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-loop-secret")
    monkeypatch.setenv("NPM_TOKEN", "npm-loop-secret")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "env; echo done"})]),
        Reply(tool_calls=[ToolCall("background_process",
                                   {"name": "envdump", "command": "env > bg_env.txt"})]),
        Reply(text="ok"),
    )
    outcome = await run(fake_provider, tmp_path, approval_mode="yolo",
                        env_passthrough=["NPM_*"])
    assert outcome.code == 0, outcome.stderr
    seen = fake_provider.requests[1].tool_results()[0]["content"]
    assert "done" in seen
    assert "sk-ant-loop-secret-value" not in seen and "deploy-loop-secret" not in seen
    assert "NPM_TOKEN=npm-loop-secret" in seen
    background = Path(tmp_path / "bg_env.txt").read_text()
    assert "ANTHROPIC_API_KEY" not in background and "DEPLOY_TOKEN" not in background
    assert "NPM_TOKEN=npm-loop-secret" in background
