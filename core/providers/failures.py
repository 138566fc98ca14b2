"""What a failed model call means and what to do about it, in one line.

A model call fails in a dozen ways (a server that is not running, a host that does not
resolve, a TLS mismatch, a missing or refused key, a model with no provider prefix or that
the server does not have, a rate limit, a 5xx, a stall, a context overflow); each becomes a
:class:`~.base.ProviderError` whose ``kind`` decides whether a retry can succeed and whose
message names the URL, the model and the fix (the key variable, the flag, the prefix). The
workbench, ``-p`` and ACP all show this message, so the words are made here, once.

No litellm import: exceptions are read by their class names and their chain of causes.
"""

from __future__ import annotations

import re
import socket
import ssl
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from .base import ProviderError

KEY_VARIABLES: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "xai": "XAI_API_KEY",
}
"""The environment variable that holds each provider's key (the provider is the model's
prefix, as litellm names it)."""

OTHER_KEY_VARIABLES: dict[str, tuple[str, ...]] = {"gemini": ("GOOGLE_API_KEY",)}
"""Variables litellm also reads a provider's key from."""

DEFAULT_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "gemini": "https://generativelanguage.googleapis.com",
    "openrouter": "https://openrouter.ai/api/v1",
    "ollama": "http://localhost:11434",
    "ollama_chat": "http://localhost:11434",
    "mistral": "https://api.mistral.ai/v1",
    "groq": "https://api.groq.com/openai/v1",
    "deepseek": "https://api.deepseek.com",
    "xai": "https://api.x.ai/v1",
}
"""Where each provider's requests go when no api_base is given."""

NAME_PREFIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("gpt-", "o1", "o3", "o4", "chatgpt-", "text-embedding-"), "openai"),
    (("claude",), "anthropic"),
    (("gemini",), "gemini"),
    (("mistral", "codestral", "devstral"), "mistral"),
    (("deepseek",), "deepseek"),
    (("grok",), "xai"),
)
"""Bare model names and the provider they most likely belong to, for "did you mean"."""

_OBJECT_REPR = re.compile(r"\s*<[^<>]*? object at 0x[0-9a-fA-F]+>")
_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)?(?:\w+Error:\s*)?(?:\w+Exception\s*-\s*)?")


def provider_of(model: str) -> str | None:
    """The provider prefix of ``model`` (``openai`` of ``openai/gpt-4.1``), None when bare."""
    prefix, slash, _ = model.partition("/")
    return prefix if slash else None


def key_variable(model: str, key_env: str | None = None) -> str | None:
    """The variable that should hold ``model``'s key: the configured one, else the
    provider's usual one; None when the provider is not one whose variable we know."""
    return key_env or KEY_VARIABLES.get(provider_of(model) or "")


def key_is_set(model: str, key_env: str | None, environ: Mapping[str, str]) -> bool:
    """Whether a variable litellm would read ``model``'s key from is set (True when the
    provider's variable is not known: then the call finds out)."""
    variable = key_variable(model, key_env)
    if variable is None:
        return True
    others = () if key_env else OTHER_KEY_VARIABLES.get(provider_of(model) or "", ())
    return any(environ.get(name) for name in (variable, *others))


def endpoint(model: str, api_base: str | None) -> str:
    """Where ``model``'s requests go: ``api_base``, else the provider's default URL."""
    if api_base:
        return api_base
    return DEFAULT_URLS.get(provider_of(model) or "", "the provider's default endpoint")


def guess_prefix(model: str) -> str:
    """``model`` with the provider prefix its name suggests (``openai/gpt-9-ultra``), or
    with ``openai/`` (an OpenAI-compatible server) when the name suggests none."""
    name = model.lower()
    for starts, provider in NAME_PREFIXES:
        if name.startswith(starts):
            return f"{provider}/{model}"
    return f"openai/{model}"


def shown(text: str) -> str:
    """``text`` fit to show: litellm's class-name prefixes, object reprs
    (``<ssl.SSLContext object at 0x…>``) and line breaks removed."""
    text = _OBJECT_REPR.sub("", text)
    text = _LITELLM_PREFIX.sub("", text.strip(), count=1)
    return " ".join(text.split())


def missing_key(model: str, key_env: str | None, api_base: str | None) -> ProviderError:
    """The error for a call that would go out without the key it needs."""
    variable = key_variable(model, key_env) or "the provider's API key variable"
    return ProviderError(
        f"no API key for {model} at {endpoint(model, api_base)}: set {variable} "
        "(or api_key_env in config.toml to the variable that holds it).",
        kind="missing_key",
    )


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})
"""Hosts that are this machine: a connection to them is refused or taken at once."""


def refused_locally(api_base: str) -> bool:
    """Whether ``api_base`` names a port on this machine that nothing listens on (a
    connection attempt is refused within a millisecond; other hosts are not tried)."""
    parts = urlsplit(api_base)
    host = parts.hostname or ""
    if host not in LOOPBACK_HOSTS and not host.startswith("127."):
        return False
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((host, port), timeout=0.5):
            return False
    except ConnectionRefusedError:
        return True
    except (OSError, ValueError):
        return False  # anything else is for the real call to report


def refused(model: str, api_base: str | None) -> ProviderError:
    """The error for a server that refused the connection: not running, or another port."""
    return ProviderError(
        f"connection refused by {endpoint(model, api_base)} ({model}): is the server "
        "running? start it or pass --api-base with the URL it listens on.",
        kind="refused",
    )


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from or while handling, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def describe(
    exc: Exception,
    *,
    model: str,
    api_base: str | None,
    key_env: str | None = None,
    message: str | None = None,
    retry_after: float | None = None,
) -> ProviderError:
    """``exc`` (a litellm, SDK or transport exception) as a :class:`ProviderError` whose
    kind says whether to retry and whose message says in one line what failed, where, for
    which model, and what to do.

    Args:
        exc: What the call raised.
        model: The model called.
        api_base: The configured api_base (None: the provider's default).
        key_env: The configured key variable, if any.
        message: The provider's own words, when already extracted.
        retry_after: Seconds the provider asked to wait.
    """
    url = endpoint(model, api_base)
    said = shown(message if message is not None else str(exc)) or type(exc).__name__
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    names = _class_names(exc)
    chain = list(causes(exc))
    variable = key_variable(model, key_env)

    def error(text: str, kind: str, **extra: Any) -> ProviderError:
        return ProviderError(text, kind=kind, status=status, **extra)

    # Below the SDK's "Connection error." lies what really happened.
    for cause in chain[1:] if len(chain) > 1 else ():
        if isinstance(cause, ConnectionRefusedError):
            return refused(model, api_base)
        if isinstance(cause, socket.gaierror) or "DNSError" in _class_names(cause):
            host = urlsplit(url).hostname or url
            return error(
                f"could not resolve {host} ({url}, {model}): check the host in "
                "--api-base and the network.",
                "dns",
            )
        if isinstance(cause, ssl.SSLError) or "SSLError" in _class_names(cause):
            reason = shown(str(cause))
            return error(
                f"TLS handshake with {url} failed ({model}): {reason}. Check that "
                "--api-base uses http:// for a server without TLS, or the server's "
                "certificate.",
                "tls",
            )
    if "ContextWindowExceededError" in names:
        return error(
            f"the conversation no longer fits {model}'s context window: {said}", "context_length"
        )
    if "LLM Provider NOT provided" in said or "Provider NOT provided" in said:
        prefix = provider_of(model)
        if prefix is None:
            return error(
                f"{model} names no provider: did you mean {guess_prefix(model)}? "
                "Pass --model PROVIDER/MODEL (openai/, anthropic/, gemini/, "
                "openrouter/, ollama_chat/ …).",
                "unknown_model",
            )
        rest = model.partition("/")[2]
        return error(
            f"unknown provider {prefix!r} in {model}: pass --model with a provider "
            f"litellm knows (openai/, anthropic/, gemini/, openrouter/, "
            f"ollama_chat/ …); for an OpenAI-compatible server, did you mean "
            f"openai/{rest} with --api-base?",
            "unknown_model",
        )
    if "Missing credentials" in said or re.search(r"missing \w* ?api key|no api key", said, re.I):
        return missing_key(model, key_env, api_base)
    if status in (401, 403) or names & {"AuthenticationError", "PermissionDeniedError"}:
        fix = f"set {variable} to a valid key" if variable else "check the API key"
        what = "refused the key" if status != 403 else "does not allow this key"
        return error(f"{url} {what} for {model} ({status or 401}: {said}): {fix}.", "auth")
    if status == 404 or "NotFoundError" in names:
        return error(
            f"{url} has no model {model.partition('/')[2] or model} (404: {said}): "
            "check --model and --api-base.",
            "not_found",
        )
    if status == 429 or "RateLimitError" in names:
        return error(
            f"{url} is rate limiting {model} (429: {said}).", "rate_limit", retry_after=retry_after
        )
    if "Timeout" in names or any(isinstance(c, TimeoutError) for c in chain):
        return error(
            f"{url} did not answer {model} in time ({said}). Raise "
            "request_timeout in config.toml if the model is just slow.",
            "timeout",
            retry_after=retry_after,
        )
    if names & {"BadRequestError", "UnprocessableEntityError"} or status in (400, 422):
        return error(
            f"{url} rejected the request for {model} ({status or 400}: {said}).", "bad_request"
        )
    if "APIConnectionError" in names or any("APIConnectionError" in _class_names(c) for c in chain):
        return error(
            f"the connection to {url} failed ({model}: {said}).",
            "connection",
            retry_after=retry_after,
        )
    if status is not None and status >= 500:
        return error(
            f"{url} failed with {status} for {model} ({said}).", "server", retry_after=retry_after
        )
    # Anything else from the transport (a dropped or malformed stream) is worth a retry.
    return error(
        f"the stream from {url} broke off ({model}: {said}).", "connection", retry_after=retry_after
    )
