"""The workbench's start-up after its first frame, in one thread, one step after another.

Before the first frame only Textual, the panes' widgets and the settings a cheap check
vouched for are loaded. Right after it, :func:`start_up` builds the settings (pydantic),
imports what the knowledge and outside-tools workers would otherwise import on the loop,
starts those workers, then imports litellm and what the first turn needs.

On the loop, each of these imports held the keys; in several threads at once
they held the GIL in turn, and a module one thread was importing held up the loop that
needed it until the import was done.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

from ...core.config import ConfigError
from ..widgets.panels import ContextGauge
from .pauses import pause_collection, quick_thread_switches, settle_long_lived

if TYPE_CHECKING:
    from ...core.config import CheckedSettings, Settings

START_UP_PAUSE_S = 0.005
"""Seconds start-up's thread pauses between two imports, letting the loop in."""


def preload_start_up() -> None:
    """Import, one after another, what start-up's workers import or would import on the
    loop: the engine's knowledge (numpy, yaml), watchfiles and anyio's asyncio backend (the
    watch), the discovered tools. A pause between two lets the loop in."""
    from importlib import import_module

    for name in (
        "agent_tui.core.knowledge",
        "agent_tui.core.memory",
        "watchfiles",
        "anyio._backends._asyncio",
        "agent_tui.tools.discovered",
    ):
        import_module(name)
        time.sleep(START_UP_PAUSE_S)


def preload_highlighting() -> None:
    """Load what highlighting a code fence loads on first use, off the event loop.

    A fence streamed in pieces names a language pygments does not know (``pyt`` of
    ``python``); pygments then imports every plugin lexer installed, IPython's among them, on
    the loop in the middle of an answer. A fence that names no language (yet) is guessed
    at, which imports every lexer pygments has. Once loaded, unknown names and guesses are
    cheap.
    """
    from textual.highlight import highlight

    highlight("", language="agent-tui-no-such-language")
    highlight("x = 1", language="python")
    highlight("x = 1", language=None)


def start_up(app: Any, *, load_litellm: bool) -> None:
    """After the first frame, in its thread: build the settings the frame was drawn from
    (pydantic's import and validation), import what the knowledge and outside-tools
    workers would otherwise import on the loop, start those workers, then import litellm
    (when ``load_litellm``).

    The cheap check vouched for every setting, so pydantic agrees; should it not,
    agent-tui exits with pydantic's message, as it would have before drawing.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`), whose settings are still
            the checked ones unless the loop needed them first.
    """
    quick_thread_switches()
    if app._settings is None:
        try:
            settings = cast("CheckedSettings", app._first_frame_settings).build()
        except ConfigError as exc:
            app.call_from_thread(_settings_refused, app, str(exc))
            return
        app.call_from_thread(_settings_built, app, settings)
    if load_litellm:
        _choose_library(app)
    preload_start_up()
    app.call_from_thread(_load_knowledge, app)
    if load_litellm:
        preload_litellm(app)


def _choose_library(app: Any) -> None:
    """Name the shared stream worker as this process's litellm when the model streams
    there, before the knowledge loads (the memory's embedder asks it, instead of importing
    litellm here)."""
    from ...core.providers.stream_process import shared_stream_process, streams_in_worker

    model = app.settings.model
    if model and app.settings.stream_process and streams_in_worker(model):
        shared_stream_process().use_engine = app.settings.warm_engine


def _settings_built(app: Any, settings: Settings) -> None:
    if app._settings is None:  # else the loop needed them first and built them
        app._settings = settings


def _settings_refused(app: Any, error: str) -> None:
    app.config_error = error
    app.exit(return_code=2)


def _load_knowledge(app: Any) -> None:
    """Read AGENTS.md, skills, commands and hooks, then watch them (after the frame)."""
    if app.config_error is None:
        app.run_worker(app.knowledge.load(), group="knowledge", exit_on_error=False)
        app.run_worker(app.knowledge.watch(), group="knowledge-watch", exit_on_error=False)
        app.run_worker(app.outside_tools.start(), group="outside-tools", exit_on_error=False)


def preload_litellm(app: Any) -> None:
    """Get the model library ready (in :func:`start_up`'s thread): the stream worker,
    which has litellm (forked ready by the warm engine, or loading it on the other core), or
    else litellm in this process; then what the first turn imports, the window on the gauge,
    and the model's tokenizer, which the first count of a turn's tokens would load otherwise
    (holding the GIL in the middle of the first answer)."""
    from ...core.providers.litellm import LitellmProvider, preload
    from ...core.providers.stream_process import (
        FACTS_WAIT_S,
        ProcessProvider,
        shared_stream_process,
        streams_in_worker,
    )

    model = app.settings.model
    in_worker = bool(model) and app.settings.stream_process and streams_in_worker(model)
    if in_worker:
        shared_stream_process().start()
    pause_collection()
    try:
        if not in_worker:
            preload()
        # What the first turn needs, so that it does not import on the loop.
        from ...core import agent  # noqa: F401
        from ...tools import builtin, registry  # noqa: F401
        from ..widgets import assistant_block  # noqa: F401  (Markdown, for the first answer)

        preload_highlighting()
    finally:
        settle_long_lived()

    if model:
        provider: LitellmProvider | ProcessProvider = LitellmProvider(app.settings)
        if in_worker:
            provider = ProcessProvider(provider)
            provider.learn_facts(FACTS_WAIT_S)
        window = provider.context_window()
        app.call_from_thread(setattr, app.query_one(ContextGauge), "window", window)
        provider.count_tokens([{"role": "user", "content": "agent-tui"}])
