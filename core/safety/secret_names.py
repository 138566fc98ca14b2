"""Which environment variables hold secrets, judged by their names.

One definition serves both sides of keeping secrets in: variables named like this are not
passed to the commands the agent runs, and their values are redacted from session files and
from what the workbench shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..settings import Settings

SECRET_NAME_PATTERNS: tuple[str, ...] = (
    "*_API_KEY",
    "*_APIKEY",
    "*_ACCESS_KEY",
    "*_ACCESS_KEY_ID",
    "*_PRIVATE_KEY",
    "*_MASTER_KEY",
    "AZURE_*_KEY",
    "*_SECRET*",
    "*_TOKEN",
    "*PASSWORD*",
    "*PASSWD*",
)
"""Glob patterns (case-insensitive) of secret variable names. A name is matched with a
``_`` in front too, so ``API_KEY``, ``TOKEN`` and ``SECRET`` alone count as well."""

PROVIDER_KEY_VARIABLES: frozenset[str] = frozenset({
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY", "AZURE_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_AI_API_KEY",
    "MISTRAL_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY",
    "TOGETHERAI_API_KEY", "COHERE_API_KEY", "HUGGINGFACE_API_KEY", "HF_TOKEN",
    "REPLICATE_API_TOKEN", "ANTHROPIC_AUTH_TOKEN", "WATSONX_APIKEY", "LITELLM_MASTER_KEY",
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
})
"""The keys of the providers litellm speaks. Each matches a pattern above as well; they are
listed so the intent survives an edit of the patterns."""


def is_secret_name(name: str, extra: Iterable[str] = ()) -> bool:
    """True when the variable ``name`` holds a secret.

    Args:
        name: An environment variable's name.
        extra: More names or globs to count as secret (e.g. the configured ``api_key_env``).
    """
    upper = name.upper()
    if upper in PROVIDER_KEY_VARIABLES:
        return True
    candidates = (upper, "_" + upper)
    patterns = (*SECRET_NAME_PATTERNS, *(p.upper() for p in extra if p))
    return any(fnmatchcase(c, p) for p in patterns for c in candidates)


def matches_any(name: str, globs: Iterable[str]) -> bool:
    """True when ``name`` equals one of ``globs`` or matches it as a glob (case-sensitive,
    as environment variable names are)."""
    return any(fnmatchcase(name, glob) for glob in globs)


def settings_secret_names(settings: Settings) -> tuple[str, ...]:
    """The variables the settings name as holding keys (``api_key_env``,
    ``escalation_api_key_env``, ``web_search_key_env``)."""
    names = (getattr(settings, "api_key_env", None),
             getattr(settings, "escalation_api_key_env", None),
             getattr(settings, "web_search_key_env", None))
    return tuple(name for name in names if name)
