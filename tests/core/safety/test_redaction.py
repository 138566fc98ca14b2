"""Redaction of secrets: which values count, streams split anywhere, events copied."""

from __future__ import annotations

from agent_tui.core.config import Settings
from agent_tui.core.events import ToolCallStarted, TurnUsage, Usage
from agent_tui.core.safety.redaction import (
    REDACTED,
    StreamRedactor,
    env_secrets,
    redact_fields,
    settings_secrets,
)


def test_env_secrets_follow_the_secret_name_patterns():
    environ = {
        "DB_PASSWORD": "correct-horse-battery",
        "OPENAI_API_KEY": "sk-env-value-123456",
        "GITHUB_TOKEN": "ghs_valuevaluevalue",
        "SHORT_TOKEN": "abc",  # too short to hide without blanking words
        "GOOGLE_APPLICATION_CREDENTIALS": "/home/me/creds.json",  # not a secret name
        "PASSWORD_STORE_DIR": "/home/me/.password-store",  # a path, not a secret
        "EDITOR": "vim-is-not-a-secret",
    }
    assert set(env_secrets(environ)) == {
        "correct-horse-battery", "sk-env-value-123456", "ghs_valuevaluevalue"}


def test_env_secrets_are_longest_first_so_a_longer_secret_is_hidden_whole():
    found = env_secrets({"A_TOKEN": "abcdefgh", "B_TOKEN": "abcdefgh-and-more"})
    assert found == ("abcdefgh-and-more", "abcdefgh")


def test_settings_secrets_add_the_key_and_the_variables_the_settings_name():
    settings = Settings(api_key="local-server-key-42", api_key_env="LLM_CREDS",
                        web_search_key_env="SEARCH_CREDS")
    environ = {"LLM_CREDS": "llm-creds-value", "SEARCH_CREDS": "search-creds-value",
               "OTHER": "other-value-xyz"}
    assert set(settings_secrets(settings, environ)) == {
        "local-server-key-42", "llm-creds-value", "search-creds-value"}


def test_a_stream_redactor_catches_a_secret_split_at_every_position():
    secret = "p4ssw0rd-secret-value"
    text = f"first line\nthe value {secret} is here and sk-abcdef1234567890XYZ too\n"
    for cut in range(1, len(text)):
        stream = StreamRedactor([secret])
        shown = stream.feed(text[:cut]) + stream.feed(text[cut:]) + stream.flush()
        assert shown == f"first line\nthe value {REDACTED} is here and {REDACTED} too\n", cut


def test_a_stream_redactor_keeps_a_bearer_with_its_token():
    stream = StreamRedactor([])
    shown = stream.feed("curl -H 'Authorization: Bearer ")
    shown += stream.feed("tok.en-123456789' x") + stream.flush()
    assert shown == f"curl -H 'Authorization: Bearer {REDACTED}' x"


def test_a_stream_redactor_holds_back_only_what_could_start_a_secret():
    stream = StreamRedactor(["hunter2hunter2"])
    assert stream.feed("Reading the project layout first") == "Reading the project layout first"
    assert stream.feed(" then s") == " then "  # "s" may begin "sk-..."
    assert stream.feed("k-abcdef1234567890XYZ and hun") == f"{REDACTED} and "
    assert stream.feed("ter2hunter2.") == ""  # whole, but the word may go on
    assert stream.flush() == f"{REDACTED}."


def test_a_stream_redactor_does_not_hold_back_an_endless_word():
    stream = StreamRedactor([])
    blob = "sk-" + "a1" * 5000  # looks like the start of a key, and never ends
    shown = stream.feed(blob)
    assert shown == REDACTED
    assert 0 < len(stream.flush()) < 1000


def test_redact_fields_copies_only_when_something_changed():
    call = ToolCallStarted("c1", "shell", {"command": "echo sk-abcdef1234567890XYZ"}, "shell")
    clean = redact_fields(call, [])
    assert clean.args == {"command": f"echo {REDACTED}"}
    assert call.args == {"command": "echo sk-abcdef1234567890XYZ"}
    usage = TurnUsage(Usage(1, 2), Usage(3, 4))
    assert redact_fields(usage, ["secret-value"]) is usage
    plain = ToolCallStarted("c2", "read_file", {"file_path": "a.py"}, "read_file a.py")
    assert redact_fields(plain, ["secret-value"]) is plain


async def test_headless_output_shows_no_key_in_any_format(fake_provider, tmp_path):
    import io

    from agent_tui.tui.cli.headless import run_headless
    from tests.core.loop_helpers import run, settings_for
    from tests.fakes.providers import Reply, ToolCall

    key = "sk-proj-abcdef0123456789abcdef"
    (tmp_path / "k.txt").write_text(f"token={key}\n")
    script = (Reply(tool_calls=[ToolCall("shell", {"command": "cat k.txt"})]),
              Reply(text=f"The file holds {key}, a key."))
    fake_provider.script(*script)
    streamed = await run(fake_provider, tmp_path, approval_mode="yolo")
    assert streamed.code == 0, streamed.stderr
    lines = "\n".join(str(e) for e in streamed.events)
    assert key not in lines and REDACTED in lines
    assert streamed.result["text"] == f"The file holds {REDACTED}, a key."

    fake_provider.script(*script)
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(settings_for(fake_provider, approval_mode="yolo"), tmp_path,
                              "what is in k.txt?", "text", out, err)
    assert code == 0
    assert key not in out.getvalue() + err.getvalue()
    assert out.getvalue() == f"The file holds {REDACTED}, a key.\n"
    # The model itself still saw the real output: redaction is for what people see.
    assert key in fake_provider.requests[-1].tool_results()[0]["content"]


async def test_an_api_key_of_no_known_shape_stays_out_of_the_session_log(fake_provider,
                                                                         tmp_path):
    import io

    from agent_tui.core.sessions.log import read_events
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.cli.headless import run_headless
    from tests.core.loop_helpers import settings_for
    from tests.fakes.providers import Reply

    key = "local-gateway-key-0042"  # what --api-key gave: no provider's key shape
    fake_provider.script(Reply(text=f"I was told the key is {key}."))
    settings = settings_for(fake_provider, api_key=key)
    opened = open_session(tmp_path, settings.model)
    await run_headless(settings, tmp_path, f"the key is {key}", "text", io.StringIO(),
                       io.StringIO(), session=opened)
    close_session(opened)

    written = opened.store.path.read_text()
    assert key not in written and REDACTED in written
    assert read_events(opened.store.session_id).events[0]["text"] == f"the key is {REDACTED}"
