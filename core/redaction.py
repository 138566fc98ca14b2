"""Hiding secrets before they reach disk: API key shapes, bearer tokens and the values
of environment variables named like secrets become ``[REDACTED]``."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[REDACTED]"

# Key shapes of the big providers. A key is random, so a match without a digit is taken
# for prose ("sk-learn-is-a-library") and left alone.
_KEY_PATTERN = re.compile(
    r"(?<![\w-])(?:"
    r"sk-(?:ant-)?[A-Za-z0-9_-]{16,}"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|xox[baprs]-[A-Za-z0-9-]{10,}"
    r")"
)
_BEARER_PATTERN = re.compile(r"(?i)\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}")
# Python's re tries a pattern at every position (~30 µs per KB for these two); a substring
# test is ~100x faster, and most text holds none of these.
_KEY_MARKERS = ("sk-", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox")
_BEARER_MARKERS = ("earer", "EARER")
_SECRET_ENV_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")
_MIN_SECRET_LENGTH = 8


def env_secrets(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of environment variables named like secrets (``*_API_KEY``, ``*_TOKEN``,
    ``*_SECRET``) that are long enough to be worth hiding, longest first."""
    env = os.environ if environ is None else environ
    found = {
        value
        for name, value in env.items()
        if name.upper().endswith(_SECRET_ENV_SUFFIXES) and len(value) >= _MIN_SECRET_LENGTH
    }
    return tuple(sorted(found, key=len, reverse=True))


def _redact_key(match: re.Match[str]) -> str:
    text = match.group(0)
    return REDACTED if any(c.isdigit() for c in text) else text


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with API keys, bearer tokens and the given secret values replaced."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if any(marker in text for marker in _KEY_MARKERS):
        text = _KEY_PATTERN.sub(_redact_key, text)
    if any(marker in text for marker in _BEARER_MARKERS):
        text = _BEARER_PATTERN.sub(rf"\g<1>{REDACTED}", text)
    return text


def redact(value: Any, secrets: Iterable[str] | None = None) -> Any:
    """A copy of ``value`` with secrets replaced by ``[REDACTED]`` in every string in it.

    Args:
        value: A JSON-like value: strings, numbers, dicts, lists and tuples, nested.
        secrets: Exact values to hide; by default those of :func:`env_secrets`.

    Returns:
        The same shape; dict keys and non-strings are left as they are.
    """
    found = env_secrets() if secrets is None else tuple(secrets)
    return _redact(value, found)


def _redact(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, dict):
        return {k: _redact(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact(v, secrets) for v in value]
    return value
