"""The workbench never shows a key: tool output, arguments and assistant text are redacted."""

from __future__ import annotations

import asyncio

from agent_tui.core.events import (
    AssistantMessage,
    StreamRestart,
    TextDelta,
    ToolCallStarted,
    ToolOutput,
    ToolResultEvent,
)
from agent_tui.core.safety.redaction import REDACTED
from agent_tui.tui.app import make_app
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import ToolBlock
from agent_tui.tui.widgets.tool_log import ToolLog
from agent_tui.tui.workbench.bridge import TEXT_GATHER_S, EventBridge
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, type_prompt, until

KEY = "sk-proj-Ab3dEfGh1jKlMnOpQrStUv"
ENV_SECRET = "hunter2hunter2hunter2"


async def test_a_key_in_shell_output_and_assistant_text_is_shown_redacted(
        fake_provider, tmp_path, monkeypatch):
    monkeypatch.setenv("ACME_DEPLOY_SECRET", ENV_SECRET)
    go = tmp_path / "go"
    command = (f"echo 'key {KEY} and {ENV_SECRET}'; "
               f"for i in $(seq 200); do [ -f {go} ] && break; sleep 0.05; done; echo end")
    fake_provider.script(
        Reply(text=f"Found {KEY} in the config.", tool_calls=[ToolCall("shell",
                                                                        {"command": command})],
              chunk_size=7),
        Reply(text="done"),
    )
    app = make_app(settings_for(fake_provider, approval_mode="yolo"), tmp_path,
                   load_litellm=False)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "look for keys")
        await until(pilot, lambda: app.query(ToolBlock) and "key" in app.query_one(
            ToolBlock).output)
        live = app.query_one(ToolBlock)
        # While the command still runs, the streamed output is already redacted.
        assert KEY not in live.output and ENV_SECRET not in live.output
        assert f"key {REDACTED} and {REDACTED}" in live.output
        go.touch()
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        await pilot.pause(0.1)

        block = app.query_one(ToolBlock)
        block.focus()
        await pilot.press("enter")
        shown = str(block.render())
        assert f"key {REDACTED} and {REDACTED}" in shown and "end" in shown
        assert KEY not in shown and ENV_SECRET not in shown

        record = app.query_one(ToolLog).records[block.call_id]
        assert KEY not in record.output and ENV_SECRET not in record.output
        assert ENV_SECRET not in str(record.args) and REDACTED in record.args["command"]

        texts = [b.text for b in app.query(AssistantBlock)]
        assert texts[0] == f"Found {REDACTED} in the config."
    # The model itself saw the real output: redaction is for people and files only.
    assert KEY in fake_provider.requests[1].tool_results()[0]["content"]


class _Recorder:
    """Stands in for the app as the bridge's target: keeps what was posted."""

    def __init__(self) -> None:
        self.events: list = []

    def post_message(self, message) -> bool:
        self.events.append(message.event)
        return True


def test_a_key_split_across_streamed_pieces_is_never_posted_whole_or_in_part():
    target = _Recorder()
    bridge = EventBridge(target, secrets=[ENV_SECRET])  # type: ignore[arg-type]
    for piece in ("Your key is sk-proj-Ab3d", "EfGh1jKlMnOpQrStUv and the pass", "word is hunt",
                  "er2hunter2hunter2", " ok"):
        bridge(TextDelta(piece))
    bridge(AssistantMessage("whole text is sent redacted"))
    streamed = "".join(e.text for e in target.events if isinstance(e, TextDelta))
    assert streamed == f"Your key is {REDACTED} and the password is {REDACTED} ok"
    assert all("sk-proj" not in e.text and "hunt" not in e.text
               for e in target.events if isinstance(e, TextDelta))

    bridge(ToolCallStarted("c1", "shell", {"command": f"echo {ENV_SECRET}"}, "shell: echo"))
    bridge(ToolOutput("c1", "Authorization: Bearer abc.def"))
    bridge(ToolOutput("c1", "-123456\ntail without newline"))
    bridge(ToolResultEvent("c1", "shell", True, f"{KEY}\nExit code: 0"))
    started = next(e for e in target.events if isinstance(e, ToolCallStarted))
    assert started.args == {"command": f"echo {REDACTED}"}
    output = "".join(e.text for e in target.events if isinstance(e, ToolOutput))
    assert output == f"Authorization: Bearer {REDACTED}\ntail without newline"
    assert target.events[-1].output == f"{REDACTED}\nExit code: 0"


def test_a_void_stream_is_dropped_on_retry():
    target = _Recorder()
    bridge = EventBridge(target, secrets=[])  # type: ignore[arg-type]
    bridge(TextDelta("held sk-12"))  # the start of a key is held back
    bridge(StreamRestart(1, 0.1, "dropped"))
    bridge(TextDelta("fresh "))
    bridge(AssistantMessage("fresh"))
    texts = [e.text for e in target.events if isinstance(e, TextDelta)]
    assert texts == ["held ", "fresh "]


async def test_text_of_one_loop_turn_is_posted_once_and_before_what_follows():
    target = _Recorder()
    bridge = EventBridge(target, secrets=[])  # type: ignore[arg-type]
    for piece in ("The ", "answer ", "is "):
        bridge(TextDelta(piece))
    assert target.events == []  # gathered until the loop turns
    bridge(ToolCallStarted("c1", "shell", {"command": "ls"}, "shell: ls"))
    assert [type(e).__name__ for e in target.events] == ["TextDelta", "ToolCallStarted"]
    assert target.events[0].text == "The answer is "
    bridge(TextDelta("more"))
    await asyncio.sleep(TEXT_GATHER_S * 3)
    assert target.events[-1].text == "more"


async def test_the_text_of_one_loop_turn_is_redacted_once_even_a_key_split_in_it(monkeypatch):
    from agent_tui.core.safety import redaction

    fed: list[str] = []
    feed = redaction.StreamRedactor.feed
    monkeypatch.setattr(redaction.StreamRedactor, "feed",
                        lambda self, text: fed.append(text) or feed(self, text))
    target = _Recorder()
    bridge = EventBridge(target, secrets=[ENV_SECRET])  # type: ignore[arg-type]
    for piece in ("Your key is sk-proj-Ab3d", "EfGh1jKlMnOpQrStUv and the pass", "word is hunt",
                  "er2hunter2hunter2", " ok "):
        bridge(TextDelta(piece))
    await asyncio.sleep(TEXT_GATHER_S * 3)
    assert len(fed) == 1  # one redaction for the turn's five pieces
    assert [e.text for e in target.events] == [f"Your key is {REDACTED} and the password is "
                                               f"{REDACTED} ok "]
