"""Each way a model call fails: retried only when a retry can succeed, and told in one line
that names the URL, the model and the fix. The real agent loop, litellm and real HTTP to the
fake providers (or to a port nobody listens on)."""

from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest

from agent_tui.core.providers.failures import shown
from tests.core.loop_helpers import run
from tests.fakes.providers import Fault, Reply

NOWHERE = SimpleNamespace(openai_base=None, anthropic_base=None)
"""No fake provider: the run's api_base comes from the test."""
KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
)


def closed_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def the_error(outcome) -> str:
    """The run's one error message, checked to be one line with no object repr."""
    [error] = outcome.of_type("error")
    message = error["message"]
    assert "\n" not in message and "object at 0x" not in message
    assert outcome.code == 1 and outcome.result["error"] == message
    return message


@pytest.fixture
def no_keys(monkeypatch):
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


async def test_a_refused_connection_says_to_start_the_server_and_is_not_retried(tmp_path):
    base = f"http://127.0.0.1:{closed_port()}/v1"

    outcome = await run(NOWHERE, tmp_path, api_base=base, max_retries=3)

    message = the_error(outcome)
    assert not outcome.of_type("retry")
    assert base in message and "openai/fake-model" in message
    assert "is the server running? start it or pass --api-base" in message


async def test_https_to_a_closed_port_shows_no_object_repr(tmp_path):
    # aiohttp's own text is "Cannot connect to host … ssl:<ssl.SSLContext object at 0x…>".
    base = f"https://127.0.0.1:{closed_port()}/v1"

    outcome = await run(NOWHERE, tmp_path, api_base=base, max_retries=3)

    assert base in the_error(outcome)
    assert not outcome.of_type("retry")


async def test_an_unknown_host_is_not_retried(tmp_path):
    outcome = await run(NOWHERE, tmp_path, api_base="http://no-such-host.invalid/v1", max_retries=3)

    message = the_error(outcome)
    assert not outcome.of_type("retry")
    assert "could not resolve no-such-host.invalid" in message and "--api-base" in message


async def test_a_missing_key_names_the_variable_and_sends_nothing(tmp_path, no_keys):
    outcome = await run(
        NOWHERE, tmp_path, model="openai/gpt-4.1", api_base=None, api_key=None, max_retries=3
    )

    message = the_error(outcome)
    assert not outcome.of_type("retry")
    assert "no API key for openai/gpt-4.1 at https://api.openai.com/v1" in message
    assert "set OPENAI_API_KEY" in message


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("anthropic/claude-sonnet-4-20250514", "ANTHROPIC_API_KEY"),
        ("gemini/gemini-2.5-pro", "GEMINI_API_KEY"),
        ("openrouter/anthropic/claude-sonnet-4", "OPENROUTER_API_KEY"),
    ],
)
async def test_each_provider_names_its_own_key_variable(tmp_path, no_keys, model, variable):
    outcome = await run(NOWHERE, tmp_path, model=model, api_base=None, api_key=None)

    assert f"set {variable}" in the_error(outcome)


async def test_a_refused_key_names_the_key_variable(fake_provider, tmp_path):
    fake_provider.script(Fault.unauthorized(), Reply(text="never sent"))

    outcome = await run(fake_provider, tmp_path, max_retries=3)

    message = the_error(outcome)
    assert len(fake_provider.requests) == 1 and not outcome.of_type("retry")
    assert fake_provider.openai_base in message and "openai/fake-model" in message
    assert "set OPENAI_API_KEY to a valid key" in message


async def test_a_model_without_a_provider_prefix_gets_a_suggestion(tmp_path):
    outcome = await run(NOWHERE, tmp_path, model="gpt-9-ultra", api_base=None, max_retries=3)

    message = the_error(outcome)
    assert not outcome.of_type("retry")
    assert "did you mean openai/gpt-9-ultra?" in message
    assert "Huggingface" not in message and "--model" in message


async def test_an_unknown_provider_prefix_is_named(tmp_path):
    outcome = await run(NOWHERE, tmp_path, model="opnai/gpt-4.1", api_base=None)

    message = the_error(outcome)
    assert "unknown provider 'opnai'" in message and "openai/gpt-4.1" in message


async def test_a_model_the_server_does_not_have_says_to_check_the_model(fake_provider, tmp_path):
    fake_provider.script(Fault.model_not_found(), Reply(text="never sent"))

    outcome = await run(fake_provider, tmp_path, max_retries=3)

    message = the_error(outcome)
    assert len(fake_provider.requests) == 1 and not outcome.of_type("retry")
    assert "has no model fake-model (404" in message and "--model" in message


async def test_a_rate_limit_is_retried_after_the_wait_it_asks_for(fake_provider, tmp_path):
    fake_provider.script(Fault.rate_limit(retry_after=0.2), Reply(text="after the wait"))

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0 and len(fake_provider.requests) == 2
    [retry] = outcome.of_type("retry")
    assert retry["delay"] == pytest.approx(0.2)
    assert "rate limiting openai/fake-model (429" in retry["reason"]


async def test_a_server_error_is_retried(fake_provider, tmp_path):
    fake_provider.script(Fault.server_error(500, "upstream exploded"), Reply(text="recovered"))

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0 and len(fake_provider.requests) == 2
    [retry] = outcome.of_type("retry")
    assert "failed with 500" in retry["reason"] and "upstream exploded" in retry["reason"]


async def test_a_context_overflow_is_not_retried_as_it_was(fake_provider, tmp_path):
    # With nothing older to summarize, compaction cannot help: it says what can.
    fake_provider.script(*[Fault.context_overflow()] * 3)

    outcome = await run(fake_provider, tmp_path, max_retries=3)

    message = the_error(outcome)
    assert len(fake_provider.requests) == 1 and not outcome.of_type("retry")
    assert "the context is full" in message and "--context-window" in message


def test_object_reprs_and_litellm_prefixes_are_not_shown():
    text = (
        "litellm.InternalServerError: InternalServerError: OpenAIException - Cannot "
        "connect to host 127.0.0.1:9 ssl:<ssl.SSLContext object at 0x7f3a1c2b9d40>\n"
        "[Errno 111]"
    )
    assert shown(text) == "Cannot connect to host 127.0.0.1:9 ssl: [Errno 111]"


async def test_the_workbench_shows_the_same_line(tmp_path):
    from agent_tui.tui.widgets.conversation import NoticeBlock
    from tests.tui.test_app import SIZE, app_for, type_prompt, until

    base = f"http://127.0.0.1:{closed_port()}/v1"
    app = app_for(NOWHERE, tmp_path, api_base=base, max_retries=3)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "hi")

        def errors():
            return [text for n in app.query(NoticeBlock) if "refused" in (text := str(n.render()))]

        await until(pilot, lambda: not app.busy and errors())
        [notice] = errors()
    assert "connection refused by " + base in notice
    assert "is the server running? start it or pass --api-base" in notice


async def test_https_to_a_plain_http_server_is_a_tls_error_not_retried(fake_provider, tmp_path):
    base = fake_provider.openai_base.replace("http://", "https://")

    outcome = await run(fake_provider, tmp_path, api_base=base, max_retries=3)

    message = the_error(outcome)
    assert not outcome.of_type("retry")
    assert f"TLS handshake with {base} failed" in message and "http://" in message


async def test_a_gemini_key_in_google_api_key_is_found(tmp_path, no_keys, monkeypatch):
    from agent_tui.core.config import Settings
    from agent_tui.core.providers.litellm import LitellmProvider

    provider = LitellmProvider(Settings(model="gemini/gemini-2.5-pro"))
    assert provider.preflight() is not None
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key")
    assert provider.preflight() is None
