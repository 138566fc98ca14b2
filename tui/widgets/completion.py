"""Completion for the prompt: a fuzzy matcher, the project's file list, and the pop-up list.

The matcher and the file listing are plain functions (no Textual); ``CompletionList`` is the
pop-up the prompt shows above itself while the person types ``/command`` or ``@path``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from pathlib import Path

from textual import on
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...tools import file_walk
from ...tools.file_walk import VCS_AND_CACHE_DIRS, git_ls_files, walk_files
from ..outside_text import visible

MAX_FILES = 20_000
"""The file picker lists at most this many files."""

SKIP_DIRS = frozenset(file_walk.SKIP_DIRS) | VCS_AND_CACHE_DIRS | {"venv"}
"""Folders the walk skips when the project is not a git repository."""

_SEPARATORS = "/\\_-. "


# -- matching ----------------------------------------------------------------------------


def fuzzy_score(query: str, candidate: str) -> float | None:
    """How well ``query`` matches ``candidate``; ``None`` when it does not match at all.

    The query matches when its characters appear in order in the candidate, ignoring case.
    Higher is better: a prefix beats a substring, which beats a scattered match; matches in
    the basename (after the last ``/``), contiguous runs and starts of words earn more, and
    shorter candidates score a little higher (except among prefixes).

    Args:
        query: What the person typed.
        candidate: A command name or a relative path.

    Returns:
        The score, or ``None`` when ``query`` is not a subsequence of ``candidate``.
    """
    if not query:
        return -len(candidate) / 1000
    q, c = query.lower(), candidate.lower()
    slash = c.rfind("/") + 1
    base = c[slash:]
    length_penalty = len(c) / 1000
    if c.startswith(q):
        # No length penalty: equally good prefixes keep the order they were given in.
        return 120.0 if slash == 0 else 100.0
    if base.startswith(q):
        return 90.0 - length_penalty
    if (at := base.find(q)) >= 0:
        return 70.0 + (5.0 if base[at - 1] in _SEPARATORS else 0.0) - length_penalty
    if (at := c.find(q)) >= 0:
        return 60.0 + (5.0 if at == 0 or c[at - 1] in _SEPARATORS else 0.0) - length_penalty
    positions = _tight_subsequence(q, base)
    in_base = positions is not None
    if positions is None:
        positions = _tight_subsequence(q, c)
        if positions is None:
            return None
    else:
        positions = [slash + p for p in positions]
    score = 10.0 + (15.0 if in_base else 0.0)
    for previous, current in zip(positions, positions[1:], strict=False):
        if current == previous + 1:
            score += 3.0
        else:
            score -= min(current - previous - 1, 20) * 0.5
    for position in positions:
        if position == 0 or c[position - 1] in _SEPARATORS:
            score += 1.5
    return score - len(c) / 50


def _tight_subsequence(query: str, text: str) -> list[int] | None:
    """Positions of ``query`` in ``text`` in the shortest window that ends first.

    A forward pass finds where the first match ends; a backward pass from there finds the
    latest start, so ``main`` in ``m_a_i_n/main.py`` picks the contiguous ``main``.
    """
    end = -1
    for char in query:
        end = text.find(char, end + 1)
        if end < 0:
            return None
    positions: list[int] = []
    at = end + 1
    for char in reversed(query):
        at = text.rfind(char, 0, at)
        positions.append(at)
    positions.reverse()
    return positions


def rank(query: str, candidates: Iterable[str], limit: int = 10) -> list[str]:
    """The best ``limit`` candidates for ``query``, best first.

    Args:
        query: What the person typed.
        candidates: Command names or relative paths.
        limit: How many to return at most.

    Returns:
        The matching candidates ordered by score; ties keep the order they were given in.
    """
    scored: list[tuple[float, str]] = []
    for candidate in candidates:
        score = fuzzy_score(query, candidate)
        if score is not None:
            scored.append((score, candidate))
    scored.sort(key=lambda item: -item[0])
    return [candidate for _, candidate in scored[:limit]]


# -- the project's files -------------------------------------------------------------------


def list_project_files(workdir: Path, limit: int = MAX_FILES) -> list[str]:
    """The project's files as POSIX paths relative to ``workdir``; blocking, run it off the UI.

    In a git repository this asks git, so ``.gitignore`` is respected and untracked files
    that are not ignored are included; elsewhere (or without git) it walks the folder,
    skipping ``SKIP_DIRS``.

    Args:
        workdir: The project folder.
        limit: At most this many files.

    Returns:
        Relative paths, at most ``limit`` of them.
    """
    listed = git_ls_files(workdir, "--cached", "--others", "--exclude-standard", timeout=10)
    # --cached lists a file once per merge stage and keeps files deleted from disk; git lists
    # nothing when the folder is ignored by an enclosing repository: walk it then.
    names = (dict.fromkeys(n for n in listed if (workdir / n).is_file()) if listed
             else walk_files(workdir, SKIP_DIRS))
    return list(itertools.islice(names, limit))


# -- the pop-up ------------------------------------------------------------------------------


class CompletionList(OptionList, can_focus=False):
    """The pop-up of completions; it never takes focus, the prompt drives it.

    It floats over whatever is above the widget it is mounted before (``overlay: screen``
    keeps it out of the layout and ``offset-y: -100%`` lifts it by its own height).
    """

    DEFAULT_CSS = """
    CompletionList {
        display: none;
        overlay: screen;
        constrain: none inside;
        offset-y: -100%;
        width: 100%;
        max-width: 90;
        height: auto;
        max-height: 12;
        padding: 0;
        border: round $accent;
        background: $surface;
        scrollbar-size-vertical: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &.-open {
            display: block;
        }
        & > .option-list--option {
            padding: 0 1;
        }
        & > .option-list--option-highlighted {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """

    class Picked(Message):
        """The person clicked a completion; posted to the widget the list completes for."""

        def __init__(self, value: str) -> None:
            super().__init__()
            self.value = value

    def __init__(self, target: Widget, **kwargs) -> None:
        """A closed list completing for ``target`` (which receives ``Picked``)."""
        super().__init__(**kwargs)
        self.target = target

    @property
    def is_open(self) -> bool:
        """Whether the list is showing."""
        return self.has_class("-open")

    def show(self, title: str, options: list[Option]) -> None:
        """Open the list with ``options`` (closes it when there are none)."""
        if not options:
            self.close()
            return
        self.border_title = title
        self.set_options(options)
        self.highlighted = 0
        self.add_class("-open")

    def close(self) -> None:
        """Hide the list."""
        self.remove_class("-open")

    @property
    def value(self) -> str | None:
        """The highlighted completion, or ``None``."""
        option = self.highlighted_option
        return option.id if option is not None and self.is_open else None

    def move(self, step: int) -> None:
        """Move the highlight by ``step``, wrapping around."""
        if self.option_count:
            self.highlighted = ((self.highlighted or 0) + step) % self.option_count

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.target.post_message(self.Picked(event.option.id))


def command_option(name: str, help_text: str) -> Option:
    """A slash command as a list entry: the name, then its help, muted.

    Markup variables are inserted as literal text, never parsed; escapes are made visible
    (a command's help may quote a model name or a theme from outside).
    """
    return Option(Content.from_markup("[b]$name[/b]  [$foreground-muted]$help",
                                      name=visible(name), help=visible(help_text)), id=name)


def file_option(path: str) -> Option:
    """A file as a list entry: its name, then its folder muted (a narrow list cuts the folder).

    File names are outside text: inserted as markup variables (literal, never parsed) with
    escape sequences and invisible characters made visible; the id keeps the real path.
    """
    folder, _, name = path.rpartition("/")
    return Option(Content.from_markup("$name  [$foreground-muted]$folder", name=visible(name),
                                      folder=visible(folder)), id=path)
