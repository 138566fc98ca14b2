"""The embedded llama.cpp runtime: a GGUF model run inside agent-tui's own process, for
models named ``llamacpp/PATH.gguf`` (llama-cpp-python, the ``local`` extra).

litellm reaches it through its custom-provider hook (set up in :mod:`.litellm`), so the
agent loop, retries and reply assembly are those of every other model. Generation is
blocking C code: it runs in a thread that hands pieces to the event loop, and stops between
two tokens when the caller stops reading.
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PREFIX = "llamacpp/"
DEFAULT_WINDOW = 16384
"""The window of a model run without ``context_window``: its trained length, at most this
(agent-tui's instructions and tools take ~7K tokens; the KV cache grows with the window:
16K of a 7B model takes about 2 GB)."""
READ_AHEAD = 32
"""Tokens generated before the reader has taken them, at most."""
INSTALL_HINT = (
    "llamacpp/ models run in agent-tui through llama-cpp-python, which is not installed; "
    "install the local extra: pip install 'agent-tui[local]' (it builds llama.cpp, ~10 min)"
)


class EmbeddedModelError(Exception):
    """The embedded model cannot run: llama-cpp-python missing, or a bad model file.
    Retrying does not help; the message says what to do."""


class PromptTooLong(Exception):
    """The prompt, in the model's own tokens, does not fit the window it runs with."""


@dataclass(frozen=True, slots=True)
class Piece:
    """A streamed piece of a reply; the last one has ``finish_reason`` and the usage."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


def is_embedded(model: str) -> bool:
    """Whether ``model`` names an embedded GGUF model."""
    return model.startswith(PREFIX)


def model_path(model: str) -> Path:
    """The GGUF file of ``llamacpp/PATH`` (or of a bare PATH), ``~`` expanded."""
    return Path(model.removeprefix(PREFIX)).expanduser()


def available() -> bool:
    """Whether llama-cpp-python is installed."""
    try:
        _llama_cpp()
    except EmbeddedModelError:
        return False
    return True


def context_window(model: str, configured: int | None) -> int:
    """Tokens ``model`` is run with: ``configured``, else its trained length capped at
    :data:`DEFAULT_WINDOW`."""
    if configured:
        return configured
    trained = _trained_context(model_path(model))
    return min(trained, DEFAULT_WINDOW) if trained else DEFAULT_WINDOW


async def stream_chat(
    model: str, messages: list[dict[str, Any]], *, n_ctx: int | None = None,
    max_tokens: int | None = None, temperature: float | None = None,
) -> AsyncIterator[Piece]:
    """Generate a chat reply to ``messages`` with the GGUF model, in pieces.

    Raises:
        EmbeddedModelError: llama-cpp-python is missing or the model cannot be loaded.
        PromptTooLong: the prompt, in the model's tokens, does not fit ``n_ctx``.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Piece | BaseException | None] = asyncio.Queue()
    stop = threading.Event()
    # The generating thread runs at most READ_AHEAD tokens ahead of the reader, so that a
    # reader who stops (an interrupt) stops the model within as many tokens.
    ahead = threading.Semaphore(READ_AHEAD)

    def put(item: Piece | BaseException | None) -> None:
        while not ahead.acquire(timeout=0.1):
            if stop.is_set():
                return
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop has closed: nobody reads any more
            stop.set()

    def generate() -> None:
        try:
            loaded = _load(model_path(model), context_window(model, n_ctx))
            for piece in loaded.chat(messages, max_tokens, temperature, stop):
                put(piece)
            put(None)
        except BaseException as exc:  # handed to the reader, which raises it
            put(exc)

    thread = threading.Thread(target=generate, name="llamacpp-generate", daemon=True)
    thread.start()
    try:
        while (item := await queue.get()) is not None:
            ahead.release()
            if isinstance(item, BaseException):
                raise item
            if item.text or item.finish_reason:
                yield item
    finally:
        stop.set()


# -- the model ---------------------------------------------------------------------------

class _Loaded:
    """One loaded model; llama.cpp contexts take one generation at a time."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.lock = threading.Lock()

    def chat(self, messages: list[dict[str, Any]], max_tokens: int | None,
             temperature: float | None, stop: threading.Event) -> Iterator[Piece]:
        options: dict[str, Any] = {"max_tokens": max_tokens}
        if temperature is not None:
            options["temperature"] = temperature
        prompt: list[int] = []

        def count_prompt(input_ids: Any, scores: Any) -> Any:
            if not prompt:  # first sampling: the context holds the prompt alone
                prompt.append(len(input_ids))
            return scores

        with self.lock:
            stream = self.llama.create_chat_completion(
                [_plain(m) for m in messages], stream=True, logits_processor=[count_prompt],
                **options)
            try:
                first = next(stream)
            except ValueError as exc:
                if "exceed context window" in str(exc):
                    raise PromptTooLong(f"{exc} (in the model's own tokens)") from None
                raise
            finish = "stop"
            try:
                for chunk in itertools.chain([first], stream):
                    choice = chunk["choices"][0]
                    delta = choice.get("delta") or {}
                    if "content" in delta:
                        yield Piece(delta["content"] or "")
                    if choice.get("finish_reason"):
                        finish = choice["finish_reason"]
                    if stop.is_set():
                        return
            finally:
                stream.close()
            # The context now holds the prompt and each generated token but the last one
            # sampled: an end-of-text token, or one past which a length stop did not go on.
            prompt_tokens = prompt[0] if prompt else 0
            generated = self.llama.n_tokens - prompt_tokens + (1 if finish == "length" else 0)
            yield Piece("", finish, prompt_tokens, max(generated, 0))


_models: dict[tuple[Path, int], _Loaded] = {}
_models_lock = threading.Lock()


def _load(path: Path, n_ctx: int) -> _Loaded:
    key = (path.resolve(), n_ctx)
    with _models_lock:
        if key not in _models:
            llama_cpp = _llama_cpp()
            _check_file(path)
            try:
                llama = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, verbose=False)
            except (ValueError, RuntimeError) as exc:
                raise EmbeddedModelError(
                    f"llama.cpp could not load {path}: {exc}; is it a GGUF model file?"
                ) from None
            if not _models:
                atexit.register(_close_all)
            _models[key] = _Loaded(llama)
        return _models[key]


def _close_all() -> None:
    # llama-cpp-python frees a model in __del__, which fails once the interpreter has torn
    # down its module globals, and says so on stderr.
    with _models_lock:
        for loaded in _models.values():
            loaded.llama.close()
        _models.clear()


def _trained_context(path: Path) -> int | None:
    """The model's trained context length from its GGUF metadata (read without weights)."""
    try:
        llama_cpp = _llama_cpp()
        _check_file(path)
        vocab = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    except (EmbeddedModelError, ValueError, RuntimeError):
        return None
    metadata: dict[str, str] = dict(vocab.metadata)
    vocab.close()
    architecture = metadata.get("general.architecture", "")
    value = metadata.get(f"{architecture}.context_length", "")
    return int(value) if value.isdigit() else None


def _check_file(path: Path) -> None:
    if not path.is_file():
        raise EmbeddedModelError(
            f"no model file at {path}; name a GGUF file: --model llamacpp/PATH/TO/model.gguf")


_quiet_logs: Any = None


def _llama_cpp() -> Any:
    global _quiet_logs
    try:
        import llama_cpp
    except ImportError:
        raise EmbeddedModelError(INSTALL_HINT) from None
    if _quiet_logs is None:
        # llama.cpp logs from C to stderr, which the workbench draws on.
        @llama_cpp.llama_log_callback
        def quiet(level: int, text: bytes, user_data: Any) -> None:
            pass

        _quiet_logs = quiet
        llama_cpp.llama_log_set(quiet, None)
    return llama_cpp


def _plain(message: dict[str, Any]) -> dict[str, Any]:
    """A message as llama.cpp's chat templates take it: a role and text content."""
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content
                          if isinstance(part, dict) and part.get("type") == "text")
    return {"role": message.get("role", "user"), "content": content or ""}
