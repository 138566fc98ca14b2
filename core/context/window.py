"""The context window (g3): token accounting, thinning, compaction and its loop guard.

``TokenLedger`` counts each message once (cached by identity and content hash), so a turn
costs one counter call per new message. ``ContextManager.after_turn`` thins the context at
50/60/70/80 %: large old tool results become a ``[DEHYDRATED CONTEXT: fragment …]`` stub
and their text moves to a fragment file that the ``rehydrate`` tool reads back. When
thinning is not enough, the caller asks the model for a summary
(``build_compaction_request``) and replaces the history with it (``apply_compaction``).

Everything here is synchronous and knows no model: the agent calls the model itself.
Messages are OpenAI-format dicts, the system prompt first. Tool results are ``tool``
messages or, in the text protocol, user messages starting "Tool results:".
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Collection, Hashable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..providers.base import Message
from ..sessions.history import (
    DEHYDRATED_PREFIX,
    SUMMARY_PREFIX,
    TOOL_RESULTS_PREFIX,
    files_touched,
    is_dehydrated,
    is_prompt,
    kind_of,
    last_exchange_start,
    last_todo_list,
    message_spans,
    preview,
    render_transcript,
    tool_names,
)
from .fragments import Fragment, FragmentStore

Counter = Callable[[list[Message]], int]
"""Tokens of a list of messages: the provider's ``count_tokens``."""

DROPPED_RESULT = "[This tool result was removed from the context by the person.]"
_TEXT_RESULT = re.compile(r'<tool_result name="([^"]*)" id="([^"]*)"')
_SUMMARIZER = ("You condense a coding agent's conversation into a summary that replaces it. "
               "The agent continues from your summary alone.")
_SUMMARY_REQUEST = """The conversation so far:

{transcript}

---
Write a summary of the conversation above. It replaces that part of the conversation in your
context, so keep everything needed to go on with the work, under these headings:
## Task: what the person asked for and every constraint they gave.
## Decisions: what was decided and why; approaches that failed and why.
## Files touched: each file and what was done to it. The tool calls named:
- changed: {changed}
- read: {read}
## Open todos: what is left to do. The todo list has open:
{todos}
## State: where the work stands now, and the next step.
{kept} will stay verbatim after your summary: do not repeat them. Keep the fragment ids of
DEHYDRATED CONTEXT stubs that still matter (rehydrate brings them back).
Answer with the summary only."""


class ContextError(Exception):
    """An inspector action that cannot be done; the message says why and what to do."""


class CompactionLoop(Exception):
    """Compaction cannot bring the conversation under the window; the message says what to do."""


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One row of the context inspector.

    Attributes:
        kind: ``system``, ``tools`` (the tool schemas), ``user``, ``assistant`` or
            ``tool_result``.
        index: The message's index in the history; -1 for the tool schemas.
        tokens: What the item costs.
        preview: The start of its text on one line.
        pinned: Compaction keeps it verbatim and thinning leaves it alone.
        dehydrated: It is a stub whose text waits in a fragment file.
    """

    kind: str
    index: int
    tokens: int
    preview: str
    pinned: bool = False
    dehydrated: bool = False


@dataclass(frozen=True, slots=True)
class ContextReport:
    """How full the context is after a turn, and what ``after_turn`` did about it.

    Attributes:
        tokens: Tokens now (after thinning), tool schemas included.
        window: The model's window.
        percent: ``tokens`` as a percentage of ``window``.
        level: The highest thinning threshold crossed before thinning (0: none).
        thinned: Ids of the fragments made by this call.
        needs_compaction: Still at or over ``compact_at`` after thinning.
        tokens_before: Tokens before thinning.
        error: Why thinning stopped early (a fragment could not be saved), or None.
    """

    tokens: int
    window: int
    percent: float
    level: int
    thinned: list[str] = field(default_factory=list)
    needs_compaction: bool = False
    tokens_before: int = 0
    error: str | None = None


@dataclass(slots=True)
class _Entry:
    message: object  # held so that its id cannot be reused while cached
    fingerprint: int
    tokens: int


class TokenLedger:
    """Token counts per message, each message counted once.

    A cached count is reused while the list holds the same dict object with the same
    content (strings hash once in CPython, so checking costs little). The counter is
    calibrated on an empty list, whose count (litellm's reply priming) is paid once per
    transcript rather than once per message.

    Args:
        counter: Tokens of a list of messages (called with one message at a time).
        overhead: Tokens to add per message beyond what ``counter`` reports.
    """

    def __init__(self, counter: Counter, overhead: int = 0) -> None:
        self._counter = counter
        self.overhead = overhead
        self._cache: dict[int, _Entry] = {}
        self._schemas: tuple[int, int] | None = None
        self._base: int | None = None

    @property
    def base(self) -> int:
        """What ``counter`` says about an empty list (counted once)."""
        if self._base is None:
            try:
                self._base = max(0, int(self._counter([])))
            except Exception:
                self._base = 0
        return self._base

    def tokens(self, message: Message) -> int:
        """Tokens of one message, from the cache when it has not changed."""
        fingerprint = hash(_fingerprint(message))
        entry = self._cache.get(id(message))
        if entry is not None and entry.message is message and entry.fingerprint == fingerprint:
            return entry.tokens
        tokens = max(0, int(self._counter([message])) - self.base) + self.overhead
        self._cache[id(message)] = _Entry(message, fingerprint, tokens)
        return tokens

    def count(self, messages: list[Message]) -> int:
        """Tokens of the whole list: cached messages cost a lookup, new ones one count."""
        total = self.base + sum(self.tokens(m) for m in messages)
        if len(self._cache) > 2 * len(messages) + 64:
            keep = {id(m) for m in messages}
            self._cache = {k: v for k, v in self._cache.items() if k in keep}
        return total

    def schema_tokens(self, schemas: list[dict[str, Any]] | None) -> int:
        """Tokens of the tool schemas sent beside the messages (0 for none)."""
        if not schemas:
            return 0
        fingerprint = hash(_fingerprint(schemas))
        if self._schemas is None or self._schemas[0] != fingerprint:
            text = json.dumps(schemas, ensure_ascii=False)
            tokens = max(0, int(self._counter([{"role": "system", "content": text}])) - self.base)
            self._schemas = (fingerprint, tokens)
        return self._schemas[1]

    def items(self, messages: list[Message], tool_schemas: list[dict[str, Any]] | None = None,
              pinned: Collection[int] = ()) -> list[ContextItem]:
        """Every item of the context with its tokens: messages, and the tool schemas
        right after the system prompt."""
        items = [ContextItem(kind_of(messages, i), i, self.tokens(m), preview(m),
                             i in pinned, is_dehydrated(m)) for i, m in enumerate(messages)]
        if tool_schemas:
            names = ", ".join(s.get("function", {}).get("name", "?") for s in tool_schemas)
            tools = ContextItem("tools", -1, self.schema_tokens(tool_schemas),
                                f"{len(tool_schemas)} tools: {names}"[:120])
            at = 1 if items and items[0].kind == "system" else 0
            items.insert(at, tools)
        return items


class CompactionGuard:
    """Stops compaction that keeps coming back: more than ``max_compactions`` within
    ``within_turns`` turns means the conversation cannot fit however it is summarized."""

    def __init__(self, max_compactions: int = 3, within_turns: int = 5) -> None:
        self.max_compactions = max_compactions
        self.within_turns = within_turns
        self._turns: list[int] = []

    def check(self, turn: int, detail: str = "") -> None:
        """Raise ``CompactionLoop`` if one more compaction at ``turn`` would be too many."""
        recent = [t for t in self._turns if t > turn - self.within_turns]
        if len(recent) >= self.max_compactions:
            raise CompactionLoop(
                f"the conversation was compacted {len(recent)} times in the last "
                f"{self.within_turns} turns and still does not fit{detail}, so agent-tui "
                "stopped instead of compacting again. Raise the window (--context-window), "
                "drop or unpin large items in /context, or start a new session.")

    def record(self, turn: int) -> None:
        """Note a compaction at ``turn``."""
        self._turns = [t for t in self._turns if t > turn - self.within_turns] + [turn]


class ContextManager:
    """Keeps one conversation inside the model's window.

    Args:
        window: Tokens the model accepts.
        counter: Tokens of a list of messages (the provider's ``count_tokens``).
        fragments_dir: Where dehydrated tool results go (``<session dir>/fragments``).
        thresholds: Percentages at which to thin.
        compact_at: Percentage at or over which, after thinning, compaction is needed.
        thin_min_tokens: Tool results smaller than this are never thinned.
        margin: Thinning goes on until the context is this many points under the
            threshold it crossed.
        recent_percent: The verbatim tail kept by compaction may take at most this share
            of the window; past it fewer turns are kept, down to the last prompt and its
            newest steps.
        guard: The compaction loop guard.
        overhead: Tokens per message beyond what ``counter`` reports.
    """

    def __init__(self, window: int, counter: Counter, fragments_dir: Path, *,
                 thresholds: Iterable[int] = (50, 60, 70, 80), compact_at: int = 80,
                 thin_min_tokens: int = 1000, margin: int = 5, recent_percent: int = 30,
                 guard: CompactionGuard | None = None, overhead: int = 0) -> None:
        self.window = window
        self.ledger = TokenLedger(counter, overhead)
        self.fragments = FragmentStore(fragments_dir)
        self.thresholds = tuple(sorted(thresholds))
        self.compact_at = compact_at
        self.thin_min_tokens = thin_min_tokens
        self.margin = margin
        self.recent_percent = recent_percent
        self.guard = guard or CompactionGuard()
        self.turn = 0
        self.last_report: ContextReport | None = None
        self.error: str | None = None
        self.reserved: Callable[[], int] = lambda: 0
        """Tokens each request sends besides the history and the tools (the repository
        map), counted when measuring the context."""
        self._pins: dict[int, Message] = {}

    # -- every turn --------------------------------------------------------------------

    def after_turn(self, messages: list[Message],
                   tools: list[dict[str, Any]] | None = None) -> ContextReport:
        """Measure the context and thin it (in place) if it crossed a threshold.

        Call it before each model call. Fragment files are written here (blocking).
        """
        self.turn += 1
        self.error = None
        before = (self.ledger.count(messages) + self.ledger.schema_tokens(tools)
                  + self.reserved())
        level = max((t for t in self.thresholds if before * 100 >= t * self.window), default=0)
        thinned: list[str] = []
        tokens = before
        if level:
            target = self.window * (level - self.margin) / 100
            tokens = self._thin(messages, target, tokens, thinned)
        percent = round(tokens * 100 / self.window, 1) if self.window else 100.0
        report = ContextReport(tokens, self.window, percent, level, thinned,
                               tokens * 100 >= self.compact_at * self.window, before, self.error)
        self.last_report = report
        return report

    def _thin(self, messages: list[Message], target: float, tokens: int,
              made: list[str]) -> int:
        protected_from = last_exchange_start(messages)
        for index in range(protected_from):
            if tokens < target:
                break
            message = messages[index]
            if (kind_of(messages, index) != "tool_result" or self.is_pinned(messages, index)
                    or is_dehydrated(message) or not isinstance(message.get("content"), str)):
                continue
            old = self.ledger.tokens(message)
            if old < self.thin_min_tokens:
                continue
            try:
                made.append(self.dehydrate(messages, index))
            except OSError as exc:
                self.error = (f"could not save a fragment under {self.fragments.directory} "
                              f"({exc}); thinning stopped. Free some disk space.")
                break
            tokens += self.ledger.tokens(messages[index]) - old
        return tokens

    # -- the inspector -----------------------------------------------------------------

    def items(self, messages: list[Message],
              tools: list[dict[str, Any]] | None = None) -> list[ContextItem]:
        """Every item of the context with its token count, for ``/context``."""
        return self.ledger.items(messages, tools, set(self.pinned_indices(messages)))

    def is_pinned(self, messages: list[Message], index: int) -> bool:
        """Whether the message at ``index`` is pinned."""
        return self._pins.get(id(messages[index])) is messages[index]

    def pinned_indices(self, messages: list[Message]) -> list[int]:
        """Indices of the pinned messages (what a session saves to restore pins)."""
        return [i for i, m in enumerate(messages) if self._pins.get(id(m)) is m]

    def pin(self, messages: list[Message], index: int) -> None:
        """Keep a message through thinning and compaction (a tool call keeps its results)."""
        self._pins[id(_at(messages, index))] = messages[index]

    def unpin(self, messages: list[Message], index: int) -> None:
        """Undo ``pin``."""
        self._pins.pop(id(_at(messages, index)), None)

    def dehydrate(self, messages: list[Message], index: int) -> str:
        """Move a tool result's text to a fragment file, leaving a stub; returns its id."""
        message = _at(messages, index)
        content = message.get("content")
        if kind_of(messages, index) != "tool_result" or not isinstance(content, str):
            raise ContextError("only tool results can be dehydrated; drop other items instead.")
        if is_dehydrated(message):
            raise ContextError("this tool result is already dehydrated.")
        if self.is_pinned(messages, index):
            raise ContextError("this item is pinned; unpin it before dehydrating it.")
        tokens = self.ledger.tokens(message)
        if message.get("role") == "tool":
            call_id = str(message.get("tool_call_id", ""))
            name = tool_names(messages).get(call_id, "tool")
        else:
            found = _TEXT_RESULT.findall(content)
            name = ", ".join(dict.fromkeys(n for n, _ in found)) or "tool"
            call_id = ", ".join(i for _, i in found)
        fragment_id = secrets.token_hex(6)
        self.fragments.save(Fragment(fragment_id, content, call_id, name, tokens))
        stub = (f'{DEHYDRATED_PREFIX}{fragment_id}, {tokens} tokens of {name} output; call '
                f'rehydrate with fragment_id="{fragment_id}" to bring it back]')
        if message.get("role") != "tool":
            stub = f"{TOOL_RESULTS_PREFIX}\n\n{stub}"
        messages[index] = {**message, "content": stub}
        return fragment_id

    def drop(self, messages: list[Message], index: int) -> int:
        """Take an item out of the context, in place, keeping the history valid; returns the
        tokens freed.

        A tool call goes with its results; a tool result alone becomes a one-line note (its
        call still needs an answer); the system prompt stays.
        """
        message = _at(messages, index)
        if message.get("role") == "system":
            raise ContextError("the system prompt cannot be dropped; start a new session to "
                               "change it.")
        before = self.ledger.count(messages)
        if kind_of(messages, index) == "tool_result":
            note = DROPPED_RESULT if message.get("role") == "tool" else (
                f"{TOOL_RESULTS_PREFIX} {DROPPED_RESULT}")
            messages[index] = {**message, "content": note}
        else:
            span = next(s for s in message_spans(messages) if index in s)
            gone = span if message.get("role") == "assistant" else range(index, index + 1)
            for i in gone:
                self._pins.pop(id(messages[i]), None)
            del messages[gone.start:gone.stop]
        return before - self.ledger.count(messages)

    # -- oversized results -------------------------------------------------------------

    def result_budget(self, messages: list[Message], tools: list[dict[str, Any]] | None,
                      results: int, answer_tokens: int) -> int:
        """Tokens each of ``results`` new tool results may take, so that with them the
        context still leaves ``answer_tokens`` of the window for the model's answer."""
        used = (self.ledger.count(messages) + self.ledger.schema_tokens(tools)
                + self.reserved())
        room = self.window - answer_tokens - used - 20 * results  # message overheads
        return max(room // max(results, 1), 0)

    def can_compact(self, messages: list[Message]) -> bool:
        """Whether the history holds anything older than the current step to summarize."""
        return bool(self._plan(messages, 2)[1])

    # -- compaction --------------------------------------------------------------------

    def build_compaction_request(self, messages: list[Message], *, todos: str | None = None,
                                 keep_recent_turns: int = 2, focus: str = "",
                                 guarded: bool = True) -> list[Message]:
        """The messages asking the model for a summary to replace the older history.

        Args:
            messages: The history.
            todos: The session's todo list; by default the last todo_write in the history.
            keep_recent_turns: Turns ``apply_compaction`` will keep verbatim.
            focus: What the person wants the summary to dwell on (``/compact FOCUS``).
            guarded: Whether the loop guard may refuse it (a person's ``/compact`` is no
                sign of a loop).

        Raises:
            CompactionLoop: compaction came back too often, or there is nothing to summarize.
        """
        if guarded:
            self.guard.check(self.turn, self._detail())
        pinned, older, recent = self._plan(messages, keep_recent_turns)
        if not older:
            raise CompactionLoop(
                f"the context is full{self._detail()} and holds nothing older than the "
                "current step to summarize. Raise the window (--context-window), drop large "
                "items in /context, or start a new session.")
        changed, read = files_touched(messages)
        todo_text = todos if todos is not None else last_todo_list(messages)
        turns = sum(1 for i in recent if is_prompt(messages, i))
        kept = ("Nothing of the conversation" if not recent else
                f"The person's latest {turns} request(s) and all that followed"
                if recent == list(range(recent[0], len(messages))) else
                "The person's latest request and its newest steps")
        if pinned:
            kept += f", and {len(pinned)} pinned message(s),"
        text = _SUMMARY_REQUEST.format(
            transcript=render_transcript([messages[i] for i in older],
                                         max(2000, self.window * 2)),
            changed=", ".join(changed) or "(none)", read=", ".join(read) or "(none)",
            todos="\n".join(f"  {line.strip()}" for line in todo_text.splitlines()
                            if "[ ]" in line) or "  (none recorded)",
            kept=kept)
        if focus.strip():
            text += ("\n\nThe person asked for this summary and wants it to focus on: "
                     f"{focus.strip()}")
        return [{"role": "system", "content": _SUMMARIZER}, {"role": "user", "content": text}]

    def apply_compaction(self, messages: list[Message], summary: str,
                         keep_recent_turns: int = 2, *, guarded: bool = True) -> list[Message]:
        """The compacted history: system prompt, pinned items, the summary, recent turns.

        Returns a new list (the message dicts kept are the same objects). ``guarded``: the
        loop guard counts it.
        """
        pinned, _, recent = self._plan(messages, keep_recent_turns)
        if guarded:
            self.guard.record(self.turn)
        head = [messages[0]] if messages and messages[0].get("role") == "system" else []
        note = {"role": "user", "content": f"{SUMMARY_PREFIX}\n\n{summary.strip()}"}
        compacted = [*head, *(messages[i] for i in pinned), note, *(messages[i] for i in recent)]
        alive = {id(m) for m in compacted}
        self._pins = {k: v for k, v in self._pins.items() if k in alive}
        return compacted

    def _plan(self, messages: list[Message],
              keep_recent_turns: int) -> tuple[list[int], list[int], list[int]]:
        """Indices (pinned, to summarize, kept verbatim), pairs of call and result unsplit."""
        start = 1 if messages and messages[0].get("role") == "system" else 0
        n = len(messages)
        prompts = [i for i in range(start, n) if is_prompt(messages, i)]
        budget = self.window * self.recent_percent / 100
        recent: list[int] = []
        k = min(keep_recent_turns, len(prompts))
        while k > 0:
            recent = list(range(prompts[-k], n))
            if self._tokens(messages, recent) <= budget:
                break
            if k == 1:  # one turn too big: keep its prompt and its newest steps
                spans = [s for s in message_spans(messages) if s.start > prompts[-1]]
                tail: list[int] = list(spans.pop()) if spans else []
                while spans and self._tokens(messages, [*spans[-1], *tail]) <= budget:
                    tail = [*spans.pop(), *tail]
                recent = [prompts[-1], *tail]
                break
            k -= 1
        kept = set(recent)
        pinned: list[int] = []
        for span in message_spans(messages):
            if any(self.is_pinned(messages, i) for i in span) and not kept & set(span):
                pinned.extend(i for i in span if i >= start)
        kept.update(pinned)
        older = [i for i in range(start, n) if i not in kept]
        return pinned, older, recent

    def _tokens(self, messages: list[Message], indices: Iterable[int]) -> int:
        return sum(self.ledger.tokens(messages[i]) for i in indices)

    def _detail(self) -> str:
        report = self.last_report
        if report is None:
            return ""
        return f" ({report.tokens:,} of {report.window:,} tokens, {report.percent:g} %)"


def _at(messages: list[Message], index: int) -> Message:
    if not 0 <= index < len(messages):
        raise ContextError(f"there is no item {index} in the context (it has "
                           f"{len(messages)} messages); refresh the list and try again.")
    return messages[index]


def _fingerprint(value: object) -> Hashable:
    if isinstance(value, str):
        return hash(value)  # CPython caches a str's hash: a repeat costs nothing
    if isinstance(value, dict):
        return tuple((k, _fingerprint(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(_fingerprint(v) for v in value)
    return value if isinstance(value, int | float | bool | None) else repr(value)
