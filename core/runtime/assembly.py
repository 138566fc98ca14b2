"""The one place an :class:`~agent_tui.core.agent.Agent` is built: its provider, its
builtin tools, the project's knowledge and memory, its session log.

Every front end opens its agent here and adds only what is its own (a browser, an
editor's files, a client's terminals)::

    agent = await open_agent(settings, workdir, approver, sink, session=opened,
                             command_names=COMMANDS.names, warn=tell)
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from ..agent import Agent
    from ..approval import Approver
    from ..config import Settings
    from ..events import EventSink
    from ..knowledge import Knowledge
    from ..memory import ProjectMemory
    from ..personas import Persona
    from ..providers.base import Provider
    from ..sessions.start import OpenedSession

Warn = Callable[[str], None]
"""Hears what is wrong while an agent opens, one sentence each; the agent opens anyway."""


def _ignore(_warning: str) -> None:
    return None


def make_provider(settings: Settings, *, stream_worker: bool = False) -> Provider:
    """The provider of an agent with ``settings``: litellm's, its streams parsed in the
    shared worker process when ``stream_worker`` is asked for and ``stream_process`` is on
    (the workbench asks: its loop draws and answers keys while the model streams)."""
    from ..providers.litellm import LitellmProvider

    provider = LitellmProvider(settings)
    if not (stream_worker and settings.stream_process):
        return provider
    from ..providers.stream_process import ProcessProvider, shared_stream_process

    shared_stream_process().use_engine = settings.warm_engine
    # Its ``model`` is read-only (it follows the wrapped provider's), which the Protocol's
    # plain attribute does not say; nothing sets a provider's model.
    return cast("Provider", ProcessProvider(provider))


async def open_agent(
    settings: Settings,
    workdir: Path,
    approver: Approver,
    on_event: EventSink,
    *,
    session: OpenedSession | None = None,
    session_id: str | None = None,
    resume: bool = True,
    command_names: Iterable[str] = (),
    knowledge: Knowledge | None = None,
    memory: ProjectMemory | None = None,
    persona: Persona | None = None,
    stream_worker: bool = False,
    warn: Warn = _ignore,
) -> Agent:
    """An agent at ``workdir`` with the builtin tools, the project's knowledge and memory,
    recording into ``session``'s log.

    Args:
        approver: Decides each call that needs approval.
        on_event: Hears every event of the agent (redact secrets in it if it shows them).
        session: The session log it records into; None: nothing is written.
        session_id: Its session id when ``session`` is None (None: a new one).
        resume: Go on from ``session``: say its warnings and restore its history, if it
            has one. False when the caller does both itself (the workbench).
        command_names: The front end's own slash commands, which no custom command may
            shadow.
        knowledge: The project's knowledge, when the caller has read it already (its
            problems are then the caller's to tell); None: read now.
        memory: The project's memories, when the caller has opened them; None: opened now.
        persona: Replaces the persona the settings name (the autonomous coach's).
        stream_worker: Parse the model's streams in the shared worker process (see
            :func:`make_provider`).
        warn: Hears what is wrong with the session, then with the knowledge, one sentence
            each.
    """
    from ...tools.builtin import builtin_tools
    from ...tools.registry import ToolRegistry
    from ..agent import Agent
    from .delegate_offer import offer_delegates

    if session is not None and resume:
        for warning in session.warnings:
            warn(warning)
    if knowledge is None:
        from ..knowledge import load_knowledge
        from ..safety.redaction import settings_secrets

        knowledge = await asyncio.to_thread(load_knowledge, workdir, settings,
                                            command_names, settings_secrets(settings))
        for problem in knowledge.problems:
            warn(problem)
    if persona is not None:
        knowledge = dataclasses.replace(knowledge, persona=persona)
    if memory is None:
        from ..memory import open_project_memory

        memory = await asyncio.to_thread(open_project_memory, workdir, settings)
    provider = make_provider(settings, stream_worker=stream_worker)
    if (ready := getattr(provider, "ready", None)) is not None:
        await ready()  # the model's facts, from the worker's litellm
    agent = Agent(provider,
                  ToolRegistry(builtin_tools(settings)), settings, workdir, approver, on_event,
                  session_id=session_id, session=session.store if session else None,
                  knowledge=knowledge, memory=memory)
    if session is not None and resume and session.log is not None:
        agent.restore(session.log)
    await offer_delegates(agent)
    give_repo_map(agent, settings, workdir)
    return agent


def give_repo_map(agent: Agent, settings: Settings, workdir: Path) -> None:
    """Give ``agent`` the repository map of ``workdir``, with the budget its settings and
    window allow (none when that is 0), its tags kept between sessions in the data folder."""
    from .. import paths
    from ..context.repo_map import RepoMap, SourceFiles, map_budget

    budget = map_budget(settings.repo_map_tokens, agent.context.window, agent.registry.lean)
    if budget <= 0:
        return
    from ...tools.code_search import list_source_files
    from ...tools.source_languages import language_of

    provider = agent.provider

    def count(text: str) -> int:
        return provider.count_tokens([{"role": "user", "content": text}])

    sources = SourceFiles(lambda root, wanted: list_source_files([root], wanted), language_of)
    agent.repo_map = RepoMap(workdir, sources, budget, count, paths.repo_map_cache_file(workdir))
    agent.context.reserved = agent.repo_map.tokens_sent
