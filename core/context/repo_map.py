"""The repository map: the project's files and their main definitions, ranked by how the
files use each other and by what the conversation touches, cut to a token budget.

The model would otherwise start blind. Between turns :meth:`RepoMap.refresh` brings the
tags up to date (only files that changed are parsed again; see :mod:`.repo_map_tags`),
ranks the definitions (:mod:`.repo_map_rank`) and renders the best of them within the
budget (:mod:`.repo_map_render`).

Where it goes in a request: last, after the history, as a user message of its own, and
never in the history itself. Prompt caching marks the history before it
(``providers/caching``), so the cached prefix stays byte-stable while the map follows the
conversation from turn to turn; the map's own tokens are paid uncached on each call, which
costs less than rewriting a long history's cache whenever the map changes (a map near the
top would invalidate everything after it). ``/context`` lists it as one item that can be
dropped (for the rest of the session) or pinned (kept as it is, no longer rebuilt).
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..events import ErrorEvent, EventSink
from ..providers.base import Message
from ..sessions.history import files_touched, is_prompt
from .repo_map_rank import Focus, rank_definitions
from .repo_map_render import REPO_MAP_INTRO, REPO_MAP_PREFIX, TokenCounter, fit
from .repo_map_tags import FileTags, LanguageOf, SourceGrammar, TagsCache, TagsStats, has_tags
from .window import ContextError, ContextItem

__all__ = ["REPO_MAP_PREFIX", "RepoMap", "SourceFiles", "map_budget"]

REPO_MAP_INDEX = -3
"""The map's index among ``/context``'s items (the tool schemas are -1)."""
MAX_SOURCE_FILES = 30_000
"""Past this many source files (a home folder, a huge monorepo) the map is left out: a
first build would take minutes. Start agent-tui in a sub-folder to have one."""
TURN_WAIT_S = 5.0
"""How long a turn waits for the map's refresh before it goes on with the map it has (a
first build of a large project takes longer: it goes on in the background and a later
turn gets it)."""
LEAN_MIN_WINDOW = 8192
"""With the lean tool set (a small window), smaller windows get no map at all."""
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PATHLIKE = re.compile(r"[\w./\\-]+")


def map_budget(setting: int, window: int, lean: bool) -> int:
    """Tokens the map may take: ``repo_map_tokens`` (0: none), at most an eighth of the
    window; with the lean tool set a sixteenth, and none under 8K tokens."""
    if setting <= 0:
        return 0
    if lean:
        return 0 if window < LEAN_MIN_WINDOW else min(setting, window // 16)
    return min(setting, window // 8)


@dataclass(frozen=True, slots=True)
class SourceFiles:
    """How the map finds the project's source files and reads them (the tools' file
    listing and language tables, handed in by core/runtime).

    Attributes:
        list_files: Every file under a folder that the given test accepts, .gitignore
            respected.
        language_of: The language a file is written in.
    """

    list_files: Callable[[Path, Callable[[Path], bool]], list[Path]]
    language_of: LanguageOf


@dataclass(frozen=True, slots=True)
class RefreshStats:
    """What the last refresh did: files parsed and reused, and whether it ranked again."""

    files: int
    parsed: int
    reused: int
    ranked: bool


class RepoMap:
    """The repository map of one agent's project folder.

    Args:
        root: The project folder.
        sources: How to list and read its source files.
        budget: Tokens the map may take (see :func:`map_budget`); 0 turns it off.
        count: Tokens of a text as the model counts them.
        cache_path: Where the tags are kept between sessions (None: in memory only).
    """

    def __init__(self, root: Path, sources: SourceFiles, budget: int, count: TokenCounter,
                 cache_path: Path | None = None) -> None:
        self.root = root
        self.sources = sources
        self.budget = budget
        self.count = count
        self.cache = TagsCache(root, cache_path)
        self.text = ""
        """The map's message as it is sent ("" when there is none)."""
        self.tokens = 0
        """Tokens of :attr:`text`."""
        self.dropped = False
        """The person dropped it in ``/context``: no map for the rest of the session."""
        self.pinned = False
        """The person pinned it: it stays as it is, no longer rebuilt."""
        self.error: str | None = None
        """Why the last refresh failed, or None."""
        self.last: RefreshStats | None = None
        self.wait_s: float | None = TURN_WAIT_S
        """How long :meth:`refresh_between_turns` waits (None: until it is done)."""
        self._lock = threading.Lock()
        self._key: tuple[object, ...] | None = None
        self._pending: asyncio.Future[None] | None = None
        self._told: str | None = None

    @property
    def active(self) -> bool:
        """Whether a map is sent with the next request."""
        return bool(self.text) and not self.dropped

    def tokens_sent(self) -> int:
        """Tokens the map adds to each request (0 when none is sent)."""
        return self.tokens if self.active else 0

    def request_tail(self) -> list[Message]:
        """What a request carries after the history: the map's message, or nothing."""
        return [{"role": "user", "content": self.text}] if self.active else []

    # -- between turns -----------------------------------------------------------------

    async def refresh_between_turns(self, messages: list[Message], emit: EventSink) -> None:
        """Refresh the map in a thread for the turn that starts, waiting at most
        :attr:`wait_s`; a refresh still running then finishes in the background (the turn
        goes on with the map as it was). A failure is said once, as a warning."""
        if self.dropped or self.pinned or self.budget <= 0:
            return
        if self._pending is None or self._pending.done():
            self._pending = asyncio.ensure_future(
                asyncio.to_thread(self.refresh, list(messages)))
        await asyncio.wait({self._pending}, timeout=self.wait_s)
        if self.error and self.error != self._told:
            emit(ErrorEvent(self.error))
        self._told = self.error

    def refresh(self, messages: list[Message]) -> None:
        """Bring the map up to date with the project's files and ``messages`` (blocking:
        run it in a thread). A failure leaves the last map and says why in :attr:`error`."""
        if self.dropped or self.pinned or self.budget <= 0:
            return
        with self._lock:
            try:
                self._refresh(messages)
                self.error = None
            except Exception as exc:  # noqa: BLE001 - the turn goes on without a new map
                self.error = (f"the repository map could not be rebuilt ({exc}); the turn "
                              "goes on with the last one. Set repo_map_tokens = 0 to turn "
                              "it off.")

    def _refresh(self, messages: list[Message]) -> None:
        def wanted(path: Path) -> bool:
            language = self.sources.language_of(path)
            return language is not None and has_tags(language)

        files = self.sources.list_files(self.root, wanted)
        if len(files) > MAX_SOURCE_FILES:
            self.text, self.tokens, self._key = "", 0, None
            self.last = RefreshStats(len(files), 0, 0, False)
            return
        stats: TagsStats = self.cache.update(files, self._language)
        tags = self.cache.files
        focus = focus_of(messages, self.root, tags)
        key = (tuple(tags), focus, self.budget)
        unchanged = key == self._key and not stats.parsed and not stats.removed
        if not unchanged:
            ranked = rank_definitions(tags, focus)
            gave = {rel for rel, _ in ranked}
            others = [rel for rel in sorted(tags) if rel not in gave and rel not in focus.files]
            room = self.budget - self.count(REPO_MAP_INTRO)
            body = fit(tags, ranked, others, room, self.count) if room > 0 else ""
            self.text = f"{REPO_MAP_INTRO}\n\n{body}" if body else ""
            self.tokens = self.count(self.text) if self.text else 0
            self._key = key
        self.cache.save()
        self.last = RefreshStats(len(tags), stats.parsed, stats.reused, not unchanged)

    def _language(self, path: Path) -> SourceGrammar | None:
        return self.sources.language_of(path)

    # -- /context ----------------------------------------------------------------------

    def context_item(self) -> ContextItem | None:
        """The map's row in ``/context`` (None when no map is sent)."""
        if not self.active:
            return None
        files = sum(1 for line in self.text.splitlines()[2:]
                    if line and not line.startswith(("│", "⋮")))
        return ContextItem("repo map", REPO_MAP_INDEX, self.tokens,
                           f"repository map: {files} files, rebuilt between turns"
                           + (" (pinned: kept as it is)" if self.pinned else ""),
                           pinned=self.pinned)

    def drop(self) -> int:
        """Leave the map out for the rest of the session; returns the tokens freed."""
        if not self.active:
            raise ContextError("there is no repository map in the context.")
        freed, self.dropped = self.tokens, True
        return freed

    def toggle_pin(self) -> bool:
        """Pin the map (kept as it is, not rebuilt between turns) or unpin it; returns
        whether it is pinned now."""
        self.pinned = not self.pinned
        return self.pinned


def focus_of(messages: list[Message], root: Path, files: Mapping[str, FileTags]) -> Focus:
    """What the conversation touches: files its tool calls read or changed, and the files
    and defined names the person's prompts mention."""
    changed, read = files_touched(messages)
    touched = frozenset(rel for path in (*changed, *read)
                        if (rel := _relative(path, root)) is not None and rel in files)
    prompts = [_text(messages[i]) for i in range(len(messages)) if is_prompt(messages, i)]
    text = "\n".join(prompts)
    if not text:
        return Focus(touched)
    by_name: dict[str, list[str]] = {}
    for rel in files:
        by_name.setdefault(PurePosixPath(rel).name, []).append(rel)
    mentioned: set[str] = set()
    for word in _PATHLIKE.findall(text):
        word = word.strip(".").replace("\\", "/").removeprefix("./")
        if word in files:
            mentioned.add(word)
        elif "." in word and len(found := by_name.get(word, [])) == 1:
            mentioned.add(found[0])
    words = set(_WORD.findall(text))
    names = frozenset(d.name for tags in files.values() for d in tags.definitions
                      if d.name in words)
    return Focus(touched, frozenset(mentioned), names)


def _relative(path: str, root: Path) -> str | None:
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            candidate = candidate.resolve().relative_to(root.resolve())
        except (ValueError, OSError):
            return None
    rel = candidate.as_posix().removeprefix("./")
    return rel or None


def _text(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""
