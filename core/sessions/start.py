"""Which session a run writes to: a new one, the latest of the project, a given one, or a fork."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import paths
from .log import SessionError, SessionLog, SessionStore, fork, read_events


class NoSessionToContinue(SessionError):
    """``--continue`` in a folder that has no session yet."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(f"no session to continue in {workdir}; start one with `agent-tui` "
                         "(without --continue)")
        self.workdir = workdir


@dataclass(slots=True)
class OpenedSession:
    """The store a run appends to, and the log to restore when it goes on from an old one."""

    store: SessionStore
    log: SessionLog | None = None
    warnings: list[str] = field(default_factory=list)


def open_session(workdir: Path, model: str, *, resume: str | None = None,
                 continue_latest: bool = False, forked: bool = False) -> OpenedSession:
    """Create or reopen the session of a run.

    Raises:
        SessionError: no earlier session to continue (``NoSessionToContinue``), an unknown
            id (``SessionNotFound``), or the session is open in another agent-tui
            (``SessionLocked``); the message says what to do.
    """
    source = resume
    if continue_latest:
        from .index import SessionIndex  # sqlite only when it is needed

        with SessionIndex() as index:
            latest = index.latest(workdir)
        if latest is None:
            raise NoSessionToContinue(workdir)
        source = latest.id
    if source is None:
        return OpenedSession(SessionStore.create(paths.new_session_id(), project=workdir,
                                                 model=model))
    if forked:
        log = read_events(source)
        source = fork(source, len(log.events) - 1, log=log)
    store = SessionStore.open(source)
    log = read_events(source)
    return OpenedSession(store, log, [*store.warnings, *log.warnings])


def close_session(opened: OpenedSession) -> None:
    """Release the session and bring the index up to date."""
    from .index import SessionIndex

    opened.store.close()
    with SessionIndex(refresh=False) as index:
        index.update_from_log(opened.store.session_id)
