"""The environment the agent's commands run with: the person's, minus keys and secrets.

A command the model writes could print ``$OPENAI_API_KEY`` or send it anywhere, so shell and
background commands get the environment without the variables :mod:`.secret_names` calls
secret, without the variables the settings name as holding keys (``api_key_env``,
``web_search_key_env``), and with those the person chose to pass anyway (``env_passthrough``).

MCP stdio servers get less: only :data:`SERVER_BASE_NAMES` and the locale, as the MCP SDKs'
own stdio clients give theirs; whatever else a server needs is named in its configured ``env``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from .secret_names import is_secret_name, matches_any, settings_secret_names

if TYPE_CHECKING:
    from ..settings import Settings

SERVER_BASE_NAMES: tuple[str, ...] = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
"""The variables a server inherits: the MCP SDKs' ``DEFAULT_INHERITED_ENV_VARS`` on POSIX."""
LOCALE_NAMES: tuple[str, ...] = ("LANG", "LANGUAGE", "LC_*")
"""The locale, inherited too so a server reads and writes text as the person's shell does."""


def filtered_env(environ: Mapping[str, str], *, secret_names: Iterable[str] = (),
                 passthrough: Iterable[str] = ()) -> dict[str, str]:
    """``environ`` without its secrets.

    Args:
        environ: The environment to start from.
        secret_names: More names (or globs) to withhold, on top of the default patterns.
        passthrough: Names (or globs) passed even though they look like secrets.

    Returns:
        A new dict; ``environ`` is not changed.
    """
    extra = tuple(secret_names)
    keep = tuple(passthrough)
    return {name: value for name, value in environ.items()
            if matches_any(name, keep) or not is_secret_name(name, extra)}


def subprocess_env(settings: Settings, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for the agent's shell and background commands under ``settings``.

    Args:
        settings: The run's settings (``api_key_env``, ``web_search_key_env`` and
            ``env_passthrough`` are read from it when present).
        environ: The environment to start from (default: this process's).
    """
    return filtered_env(os.environ if environ is None else environ,
                        secret_names=settings_secret_names(settings),
                        passthrough=getattr(settings, "env_passthrough", None) or ())


def server_base_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The small, safe environment an MCP stdio server starts from, before its own ``env``.

    :data:`SERVER_BASE_NAMES` and :data:`LOCALE_NAMES` from ``environ``, nothing else: no keys,
    no tokens, no settings of the agent's. As the Python SDK does, a value that is a shell
    function (``() {...``) is left out too.

    Args:
        environ: The environment to take them from (default: this process's).
    """
    source = os.environ if environ is None else environ
    wanted = (*SERVER_BASE_NAMES, *LOCALE_NAMES)
    return {name: value for name, value in source.items()
            if matches_any(name, wanted) and not value.startswith("()")
            and not is_secret_name(name)}
