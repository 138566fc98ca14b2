"""Tool results too large for the room left in the context: cut to fit, the whole kept.

A shell command that prints 6,000 characters fills an 8K window on its own. Such a result is
cut to a budget (its head and tail kept, a marker in the middle saying what was left out) and
the whole of it is saved as a fragment, which ``rehydrate`` reads back a range of lines at a
time, so the run goes on and the model can still read every line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .fragments import Fragment, FragmentStore

MIN_RESULT_TOKENS = 200
"""No result is cut below this, however full the context is."""
HEAD_SHARE = 0.6
"""Of what is kept, the share from the start of the result (the rest from its end)."""
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class CutResult:
    """A result as it goes into the context, and the fragment holding all of it (if cut)."""

    content: str
    fragment_id: str | None = None


def fragment_id_for(call_id: str) -> str:
    """The id of the fragment holding a cut result of the call ``call_id``."""
    return (_UNSAFE_ID.sub("_", call_id)[:58] or "call") + "-whole"


def cut_to_fit(content: str, budget: int, tokens: Callable[[str], int], store: FragmentStore,
               *, call_id: str, tool_name: str) -> CutResult:
    """``content`` itself when it takes at most ``budget`` tokens; else its head and tail
    with a marker between them, the whole saved as a fragment (blocking write)."""
    total = tokens(content)
    budget = max(budget, MIN_RESULT_TOKENS)
    if total <= budget:
        return CutResult(content)
    fragment_id = fragment_id_for(call_id)
    store.save(Fragment(fragment_id, content, call_id, tool_name, total))
    chars_per_token = len(content) / max(total, 1)
    keep = max(int(budget * chars_per_token * 0.9) - 400, 200)  # room for the marker
    lines = content.splitlines(keepends=True)
    head, head_chars = _take(lines, int(keep * HEAD_SHARE))
    tail, tail_chars = _take(lines[len(head):][::-1], keep - head_chars)
    tail.reverse()
    if not head and not tail:  # one enormous line: cut by characters
        return CutResult(_cut_line(content, keep, fragment_id), fragment_id)
    first_cut, last_cut = len(head) + 1, len(lines) - len(tail)
    omitted = content[head_chars:len(content) - tail_chars]
    marker = (f"[... lines {first_cut:,}-{last_cut:,} of {len(lines):,} ({len(omitted):,} "
              "characters) were cut here to fit the context window. The whole output is kept "
              f"as fragment {fragment_id}: read any lines of it with "
              f'rehydrate(fragment_id="{fragment_id}", start_line={first_cut}, '
              f"end_line={min(last_cut, first_cut + max(len(head), 20) - 1)}), a part at a "
              "time ...]\n")
    body = "".join(head)
    if body and not body.endswith("\n"):
        body += "\n"
    return CutResult(body + marker + "".join(tail), fragment_id)


def _take(lines: list[str], chars: int) -> tuple[list[str], int]:
    """Whole lines from the front of ``lines`` while they fit in ``chars``."""
    taken: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) > chars:
            break
        taken.append(line)
        used += len(line)
    return taken, used


def _cut_line(content: str, keep: int, fragment_id: str) -> str:
    head = int(keep * HEAD_SHARE)
    tail = keep - head
    return (f"{content[:head]}\n[... {len(content) - keep:,} characters were cut here to fit "
            f"the context window; the whole output is fragment {fragment_id} "
            f'(rehydrate(fragment_id="{fragment_id}") reads it, in line ranges with '
            f"start_line/end_line) ...]\n{content[-tail:]}")
