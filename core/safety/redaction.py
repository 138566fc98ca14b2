"""Hiding secrets before they reach disk or the screen: API key shapes, bearer tokens and
the values of environment variables named like secrets become ``[REDACTED]``."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from .secret_names import is_secret_name, settings_secret_names

if TYPE_CHECKING:
    from ..events import Event, EventSink
    from ..settings import Settings

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
# Python's re tries a pattern at every position; a substring test is far cheaper, and most
# text holds none of these.
_KEY_MARKERS = ("sk-", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox")
_BEARER_MARKERS = ("earer", "EARER")
_MIN_SECRET_LENGTH = 8
# Text held back by a StreamRedactor when a "word" never ends (e.g. base64 without breaks).
_STREAM_HOLD_MAX = 4096
_STREAM_HOLD_KEEP = 256
_TRAILING_BEARER = re.compile(r"(?i)\bbearer\s+$")
_T = TypeVar("_T")


def env_secrets(environ: Mapping[str, str] | None = None, *, extra_names: Iterable[str] = (),
                extra_values: Iterable[str | None] = ()) -> tuple[str, ...]:
    """The secret values to hide, longest first.

    Values of environment variables named like secrets (see
    :data:`~agent_tui.core.safety.secret_names.SECRET_NAME_PATTERNS`) or named in ``extra_names``,
    plus ``extra_values`` (e.g. a key given on the command line). Values shorter than 8
    characters are left alone (hiding them would blank ordinary words), and so are paths:
    for ``GOOGLE_APPLICATION_CREDENTIALS=/path`` the file is the secret, not its name.
    """
    env = os.environ if environ is None else environ
    names = tuple(extra_names)
    found = {value for name, value in env.items() if is_secret_name(name, names)}
    found.update(value for value in extra_values if value)
    return tuple(sorted((v for v in found if len(v) >= _MIN_SECRET_LENGTH
                         and not v.startswith(("/", "~"))), key=len, reverse=True))


def settings_secrets(settings: Settings,
                     environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """:func:`env_secrets` plus what ``settings`` knows: the key itself (``api_key``, e.g.
    from ``--api-key``) and the variables it names (``api_key_env``, ``web_search_key_env``)."""
    return env_secrets(environ, extra_names=settings_secret_names(settings),
                       extra_values=(getattr(settings, "api_key", None),))


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


def redact_fields(obj: _T, secrets: Iterable[str]) -> _T:
    """A copy of the dataclass ``obj`` with every string in its fields redacted.

    The object itself is returned when nothing in it changed, so the common case costs no
    copy.
    """
    found = tuple(secrets)
    changes = {}
    for f in dataclasses.fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, f.name)
        if isinstance(value, str | dict | list | tuple):
            redacted = _redact(value, found)
            if redacted != value:
                changes[f.name] = redacted
    return dataclasses.replace(obj, **changes) if changes else obj  # type: ignore[type-var]


class StreamRedactor:
    """Redacts text that arrives in pieces, where a key may be split across two of them.

    ``feed`` returns what is safe to show now and holds back only the end of the last word
    when it could be the beginning of a secret that the next piece completes (the start of
    a key shape such as ``sk-``, a ``Bearer`` and its token, or the start of a secret value).
    A key or token never holds whitespace, so nothing before the last whitespace is held.
    ``flush`` returns the rest once the stream has ended.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(secrets)
        self._pending = ""

    def feed(self, text: str) -> str:
        """Take the next piece; return the redacted text that can be shown now."""
        text = self._pending + text
        cut = max(text.rfind(c) for c in " \t\r\n\f\v") + 1
        if bearer := _TRAILING_BEARER.search(text, 0, cut):
            cut = bearer.start()
        else:
            cut += self._safe_length(text[cut:])
        if len(text) - cut > _STREAM_HOLD_MAX:
            cut = len(text) - _STREAM_HOLD_KEEP
        self._pending = text[cut:]
        return redact_text(text[:cut], self.secrets) if cut else ""

    def _safe_length(self, word: str) -> int:
        """How much of ``word`` (the text after the last whitespace) can be shown now."""
        for start in range(len(word)):
            rest = word[start:]
            if any(s.startswith(rest) or rest.startswith(s) for s in self.secrets):
                return start  # a secret's start, or a whole one: shown once the word ends
            if start and (word[start - 1].isalnum() or word[start - 1] in "_-"):
                continue  # a key shape or a Bearer starts at a word boundary only
            if "bearer".startswith(rest.lower()) or any(
                    marker.startswith(rest) or rest.startswith(marker)
                    for marker in _KEY_MARKERS):
                return start
        return len(word)

    def flush(self) -> str:
        """The redacted text still held back; the stream starts afresh."""
        text, self._pending = self._pending, ""
        return redact_text(text, self.secrets) if text else ""


class RedactingSink:
    """An ``EventSink`` that passes every event on to ``sink`` with its secrets redacted.

    What a front end shows (the workbench, headless output) goes through one of these, so no
    screen or log shows an API key, a bearer token or the value of a secret environment
    variable. Streamed text (assistant deltas, each call's live output) goes through a
    :class:`StreamRedactor` per stream, so a key split across two pieces is caught too; what
    a stream held back is passed on before the event that ends it.

    Args:
        sink: Where the redacted events go.
        secrets: Exact values to hide besides key shapes (see :func:`settings_secrets`).
    """

    def __init__(self, sink: EventSink, secrets: Iterable[str]) -> None:
        # The event types load with the first sink, not with this module: a session log,
        # opened before the workbench's first frame, redacts without them.
        from .. import events

        self._events = events
        self.sink = sink
        self.secrets = tuple(secrets)
        self._text = StreamRedactor(self.secrets)
        self._outputs: dict[str, StreamRedactor] = {}

    def __call__(self, event: Event) -> None:
        ev = self._events
        if isinstance(event, ev.TextDelta):
            if text := self._text.feed(event.text):
                self.sink(ev.TextDelta(text))
            return
        if isinstance(event, ev.StreamRestart):
            self._text.flush()  # the text streamed so far is void; front ends drop it
        elif isinstance(event, ev.ToolOutput):
            stream = self._outputs.setdefault(event.id, StreamRedactor(self.secrets))
            if text := stream.feed(event.text):
                self.sink(ev.ToolOutput(event.id, text))
            return
        # Anything else ends the assistant's stream (its message, a tool call, an error),
        # so what it held back comes first.
        if rest := self._text.flush():
            self.sink(ev.TextDelta(rest))
        if isinstance(event, ev.ToolResultEvent) and (ended := self._outputs.pop(event.id, None)):
            if rest := ended.flush():
                self.sink(ev.ToolOutput(event.id, rest))
        self.sink(redact_fields(event, self.secrets))
