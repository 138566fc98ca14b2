"""First-run model setup: which providers there are, whether setup is needed, saving a choice.

UI-free: the TUI's ``SetupScreen`` asks the person; this module knows the providers, probes
for local model servers and writes the answer to the user's ``config.toml``. The key itself
is never saved, only the name of the environment variable that holds it.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .config import Settings, save_user_settings


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    """One provider the setup screen offers."""

    id: str
    """Short name, e.g. ``anthropic``."""
    label: str
    """What the person reads in the list."""
    default_model: str
    """The model proposed for it, in litellm naming (``provider/model``)."""
    key_env: str | None
    """The environment variable that usually holds its API key; None when it needs none."""
    api_base: str | None = None
    """Its usual base URL; None for the provider's own endpoint."""


PROVIDERS: tuple[ProviderInfo, ...] = (
    ProviderInfo(
        "anthropic", "Anthropic (Claude)", "anthropic/claude-sonnet-4-20250514", "ANTHROPIC_API_KEY"
    ),
    ProviderInfo("openai", "OpenAI", "openai/gpt-4.1", "OPENAI_API_KEY"),
    ProviderInfo("gemini", "Google Gemini", "gemini/gemini-2.5-pro", "GEMINI_API_KEY"),
    ProviderInfo(
        "openrouter", "OpenRouter", "openrouter/anthropic/claude-sonnet-4", "OPENROUTER_API_KEY"
    ),
    ProviderInfo(
        "ollama", "Ollama (local)", "ollama_chat/qwen2.5-coder", None, "http://localhost:11434"
    ),
    ProviderInfo(
        "openai-compatible",
        "Local server: llama.cpp, vLLM, LM Studio",
        "openai/local-model",
        None,
        "http://localhost:8080/v1",
    ),
)
"""The providers offered, in the order the setup screen lists them."""

LOCAL_SERVERS: tuple[tuple[int, str], ...] = (
    (11434, ""),  # Ollama
    (8080, "/v1"),  # llama.cpp server
    (8000, "/v1"),  # vLLM
    (1234, "/v1"),  # LM Studio
)
"""The usual ports of local model servers and the path of their API."""

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def provider(provider_id: str) -> ProviderInfo:
    """The provider called ``provider_id``.

    Raises:
        KeyError: there is no such provider.
    """
    for info in PROVIDERS:
        if info.id == provider_id:
            return info
    raise KeyError(provider_id)


def _answers(port: int, timeout: float) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def find_local_servers(timeout: float = 0.15) -> list[str]:
    """The api_base URLs of the local model servers that accept a TCP connection.

    All ports of ``LOCAL_SERVERS`` are probed at once on 127.0.0.1, so this takes at most
    about ``timeout`` seconds. An answering port only means something listens there.

    Args:
        timeout: Seconds to wait for each connection.

    Returns:
        URLs such as ``http://127.0.0.1:11434``, in the order of ``LOCAL_SERVERS``.
    """
    servers = LOCAL_SERVERS
    with ThreadPoolExecutor(max_workers=len(servers) or 1) as pool:
        answers = list(pool.map(lambda server: _answers(server[0], timeout), servers))
    return [
        f"http://127.0.0.1:{port}{path}"
        for (port, path), ok in zip(servers, answers, strict=True)
        if ok
    ]


def needs_setup(settings: Settings, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether there is no usable model, so the person should be asked for one.

    True when no model is configured, none of the providers' key variables is set (to a
    non-empty value) in ``environ``, and no local model server answers.
    """
    if settings.model:
        return False
    if any(info.key_env and environ.get(info.key_env) for info in PROVIDERS):
        return False
    return not find_local_servers()


@dataclass(frozen=True, slots=True)
class SetupChoice:
    """What the person chose on the setup screen."""

    provider: str
    """The id of the provider in ``PROVIDERS``."""
    model: str
    """The litellm model name."""
    key_env: str | None = None
    """The name of the environment variable holding the API key (never the key)."""
    api_base: str | None = None
    """The provider's base URL, or None for its own endpoint."""


def check_choice(choice: SetupChoice) -> str | None:
    """What is wrong with ``choice``, as a message saying what to do; None when it is fine."""
    if not choice.model.strip():
        return "The model is empty: type a model name, e.g. openai/gpt-4.1."
    if choice.key_env is not None and not _ENV_NAME.fullmatch(choice.key_env):
        # Never echo the value: it may be a pasted key.
        return (
            "The key variable is not a variable name. Type the NAME of the variable "
            "that holds the key (e.g. ANTHROPIC_API_KEY), not the key itself."
        )
    if choice.api_base is not None and not choice.api_base.startswith(("http://", "https://")):
        return "The API base must be a URL starting with http:// or https://."
    return None


def save_setup(choice: SetupChoice) -> Path:
    """Save ``choice`` to the user's ``config.toml``: ``model``, ``api_base`` and
    ``api_key_env`` (the variable's name; the key is never written).

    Returns:
        The path written.

    Raises:
        ValueError: the choice is invalid (see ``check_choice``).
    """
    problem = check_choice(choice)
    if problem is not None:
        raise ValueError(problem)
    updates = {"model": choice.model.strip(), "api_base": choice.api_base or None,
               "api_key_env": choice.key_env or None}
    # A previous provider's api_base or key variable must not outlive the new choice.
    return save_user_settings(updates, remove=("api_base", "api_key_env"))
