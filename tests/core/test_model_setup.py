"""First-run setup: when it is needed, local server probing, and what is saved."""

from __future__ import annotations

import socket
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core import model_setup
from agent_tui.core.config import Settings, load_settings
from agent_tui.core.model_setup import (
    PROVIDERS,
    SetupChoice,
    check_choice,
    find_local_servers,
    needs_setup,
    save_setup,
)
from agent_tui.core.providers.litellm import LitellmProvider


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def listening_port() -> Iterator[int]:
    """A real server socket listening on a free port of 127.0.0.1."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield int(server.getsockname()[1])


@pytest.fixture
def no_local_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a closed port is probed, whatever runs on this machine."""
    monkeypatch.setattr(model_setup, "LOCAL_SERVERS", ((free_port(), "/v1"),))


def test_providers_cover_the_cloud_and_local_servers() -> None:
    by_id = {info.id: info for info in PROVIDERS}
    assert by_id["anthropic"].key_env == "ANTHROPIC_API_KEY"
    assert by_id["anthropic"].default_model == "anthropic/claude-sonnet-4-20250514"
    assert by_id["openrouter"].default_model == "openrouter/anthropic/claude-sonnet-4"
    assert by_id["ollama"].key_env is None
    assert by_id["ollama"].api_base == "http://localhost:11434"
    assert by_id["openai-compatible"].api_base == "http://localhost:8080/v1"


def test_find_local_servers_reports_the_port_that_answers(
    monkeypatch: pytest.MonkeyPatch, listening_port: int
) -> None:
    closed = free_port()
    monkeypatch.setattr(model_setup, "LOCAL_SERVERS", ((closed, "/v1"), (listening_port, "/v1")))
    assert find_local_servers() == [f"http://127.0.0.1:{listening_port}/v1"]


@pytest.mark.usefixtures("no_local_servers")
def test_needs_setup_without_model_key_or_server() -> None:
    assert needs_setup(Settings(), environ={"PATH": "/bin", "ANTHROPIC_API_KEY": ""})


@pytest.mark.usefixtures("no_local_servers")
def test_no_setup_when_a_model_is_configured() -> None:
    assert not needs_setup(Settings(model="openai/gpt-4.1"), environ={})


@pytest.mark.usefixtures("no_local_servers")
@pytest.mark.parametrize("variable", [info.key_env for info in PROVIDERS if info.key_env])
def test_no_setup_when_a_provider_key_is_set(variable: str) -> None:
    assert not needs_setup(Settings(), environ={variable: "secret"})


def test_no_setup_when_a_local_server_answers(
    monkeypatch: pytest.MonkeyPatch, listening_port: int
) -> None:
    monkeypatch.setattr(model_setup, "LOCAL_SERVERS", ((listening_port, ""),))
    assert not needs_setup(Settings(), environ={})


def test_save_setup_writes_the_variable_name_not_the_key(
    agent_tui_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MY_ANTHROPIC_KEY", "sk-ant-secret")
    path = save_setup(
        SetupChoice("anthropic", "anthropic/claude-sonnet-4-20250514", key_env="MY_ANTHROPIC_KEY")
    )
    assert path == agent_tui_home / "config.toml"
    text = path.read_text()
    assert "sk-ant-secret" not in text
    assert tomllib.loads(text) == {
        "model": "anthropic/claude-sonnet-4-20250514",
        "api_key_env": "MY_ANTHROPIC_KEY",
    }
    settings = load_settings(tmp_path).settings
    assert settings.model == "anthropic/claude-sonnet-4-20250514"
    assert settings.api_key_env == "MY_ANTHROPIC_KEY"


def test_save_setup_keeps_other_settings_and_writes_api_base(agent_tui_home: Path) -> None:
    (agent_tui_home / "config.toml").write_text('theme = "agent-tui-light"\n')
    save_setup(
        SetupChoice("ollama", "ollama_chat/qwen2.5-coder", api_base="http://localhost:11434")
    )
    data = tomllib.loads((agent_tui_home / "config.toml").read_text())
    assert data == {
        "theme": "agent-tui-light",
        "model": "ollama_chat/qwen2.5-coder",
        "api_base": "http://localhost:11434",
    }


@pytest.mark.parametrize(
    ("choice", "fragment"),
    [
        (SetupChoice("openai", "  "), "model is empty"),
        (SetupChoice("openai", "openai/gpt-4.1", key_env="sk-proj-abc123"), "not the key"),
        (SetupChoice("ollama", "ollama_chat/x", api_base="localhost:11434"), "http://"),
    ],
)
def test_invalid_choices_are_refused_with_advice(
    choice: SetupChoice, fragment: str, agent_tui_home: Path
) -> None:
    problem = check_choice(choice)
    assert problem is not None and fragment in problem
    assert "sk-proj" not in problem
    with pytest.raises(ValueError):
        save_setup(choice)
    assert not (agent_tui_home / "config.toml").exists()


def test_provider_reads_the_key_from_the_named_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WORK_OPENAI_KEY", "sk-from-variable")
    provider = LitellmProvider(Settings(model="openai/gpt-4.1", api_key_env="WORK_OPENAI_KEY"))
    kwargs = provider._request_kwargs([{"role": "user", "content": "hi"}], None)
    assert kwargs["api_key"] == "sk-from-variable"


def test_an_explicit_key_wins_and_an_unset_variable_is_left_to_litellm(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WORK_OPENAI_KEY", "sk-from-variable")
    monkeypatch.delenv("MISSING_KEY_VAR", raising=False)
    explicit = LitellmProvider(
        Settings(model="openai/gpt-4.1", api_key="sk-explicit", api_key_env="WORK_OPENAI_KEY")
    )
    assert explicit._request_kwargs([], None)["api_key"] == "sk-explicit"
    unset = LitellmProvider(Settings(model="openai/gpt-4.1", api_key_env="MISSING_KEY_VAR"))
    assert "api_key" not in unset._request_kwargs([], None)
