"""The model's reasoning in the workbench: streamed into a "thinking" block that folds when
the answer starts and unfolds with Enter or a click; resumed and replayed folded; its tokens
on the context gauge; and ``/model NAME EFFORT``."""

from __future__ import annotations

import pytest

from agent_tui.core import events as ev
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import ConversationView, ToolBlock
from agent_tui.tui.widgets.panels import ContextGauge
from agent_tui.tui.widgets.thinking_block import (
    REDRAW_INTERVAL,
    STREAMED_LINES,
    ThinkingBlock,
)
from agent_tui.tui.workbench.bridge import AgentEvent
from agent_tui.tui.workbench.commands import model_and_effort
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until
from tests.tui.test_snapshots import SIZE as SNAPSHOT_SIZE
from tests.tui.test_snapshots import _submit, _until, project, snapshot_app  # noqa: F401

THOUGHT = "The person asks what hello.txt says.\nI will read it first, then answer."


def _blocks(app):
    return [
        b
        for b in app.query_one(ConversationView).children
        if isinstance(b, ThinkingBlock | AssistantBlock | ToolBlock)
    ]


async def test_a_turn_shows_each_responses_reasoning_folded_above_its_answer(
    fake_provider, tmp_path
):
    (tmp_path / "hello.txt").write_text("hello\n")
    fake_provider.script(
        Reply(
            text="Let me look.",
            thinking=THOUGHT,
            reasoning_tokens=30,
            tool_calls=[ToolCall("read_file", {"file_path": "hello.txt"})],
        ),
        Reply(
            text="It says hello.",
            thinking="It says hello; that is all.",
            reasoning_tokens=12,
            usage=(900, 40),
        ),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "what does hello.txt say?")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2, timeout=60)
        await pilot.pause(0.2)
        kinds = [type(b).__name__ for b in _blocks(app)]
        assert kinds == [
            "ThinkingBlock",
            "AssistantBlock",
            "ToolBlock",
            "ThinkingBlock",
            "AssistantBlock",
        ]
        first, second = app.query(ThinkingBlock)
        assert (first.text, second.text) == (THOUGHT, "It says hello; that is all.")
        assert not first.streaming and not first.expanded
        assert str(first.render()) == "▸ thinking · 13 words"
        first.focus()
        await pilot.press("enter")
        assert first.expanded and "then answer." in str(first.render())
        await pilot.click(second)
        assert second.expanded
        gauge = str(app.query_one(ContextGauge).render())
        assert "reasoning: 42 of " in gauge


async def test_reasoning_streams_its_last_lines_then_folds_when_the_answer_starts(
    fake_provider, tmp_path
):
    lines = [f"step {n}: check the next thing" for n in range(12)]
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for line in lines:
            app.post_message(AgentEvent(ev.ThinkingDelta(line + "\n")))
        await pilot.pause(REDRAW_INTERVAL * 4)
        block = app.query_one(ThinkingBlock)
        shown = str(block.render()).splitlines()
        assert block.streaming and shown[0] == "✻ thinking…"
        assert shown[1:] == lines[-STREAMED_LINES:]  # its end, not all of it
        app.post_message(AgentEvent(ev.TextDelta("The answer")))
        await pilot.pause(0.2)
        assert not block.streaming and str(block.render()) == "▸ thinking · 72 words"
        app.post_message(AgentEvent(ev.Thinking("".join(f"{line}\n" for line in lines))))
        app.post_message(AgentEvent(ev.AssistantMessage("The answer")))
        await pilot.pause(0.2)
        assert len(app.query(ThinkingBlock)) == 1  # the same block, not another


async def test_a_resumed_session_redraws_its_reasoning_folded(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await app.view.restore(
            [ev.UserMessage("hi"), ev.Thinking(THOUGHT), ev.AssistantMessage("Hello.")]
        )
        await pilot.pause(0.1)
        assert [type(b).__name__ for b in _blocks(app)] == ["ThinkingBlock", "AssistantBlock"]
        block = app.query_one(ThinkingBlock)
        assert block.text == THOUGHT and not block.expanded


def test_model_takes_an_effort_after_the_name_or_with_effort():
    assert model_and_effort("openai/o3") == ("openai/o3", None)
    assert model_and_effort("openai/o3 high") == ("openai/o3", "high")
    assert model_and_effort("--effort low") == ("", "low")
    assert model_and_effort("openai/o3 --effort off") == ("openai/o3", "off")
    assert model_and_effort("openai/o3 default") == ("openai/o3", "default")
    assert model_and_effort("openai/o3 extreme") is None
    assert model_and_effort("--effort") is None


async def test_model_effort_switches_the_agents_reasoning_effort(fake_provider, tmp_path):
    fake_provider.script(Reply(text="ok"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/model openai/o3-mini high")
        await pilot.pause(0.1)
        assert (app.settings.model, app.settings.reasoning_effort) == ("openai/o3-mini", "high")
        await type_prompt(pilot, "/model --effort default")
        await pilot.pause(0.1)
        assert (app.settings.model, app.settings.reasoning_effort) == ("openai/o3-mini", None)
        await type_prompt(pilot, "/model --effort low")
        await pilot.pause(0.1)
        await type_prompt(pilot, "hi")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1, timeout=60)
        assert fake_provider.requests[0].body["reasoning_effort"] == "low"


@pytest.mark.usefixtures("project")
def test_snapshot_of_a_turn_with_reasoning(snap_compare, fake_provider):
    """After one turn of two responses: each response's reasoning above its answer, the
    first unfolded by Enter ("▾ thinking · 13 words" over its two dimmed lines), the second
    folded to "▸ thinking · 6 words"; the read_file call between them; the gauge's last line
    "reasoning: 42 of 60 output tokens"."""
    fake_provider.script(
        Reply(
            text="Let me look.",
            thinking=THOUGHT,
            reasoning_tokens=30,
            usage=(1200, 20),
            tool_calls=[ToolCall("read_file", {"file_path": "hello.txt"})],
        ),
        Reply(
            text="It says **hello**.",
            thinking="It says hello; that is all.",
            reasoning_tokens=12,
            usage=(1500, 40),
        ),
    )
    submit = _submit("what does hello.txt say?")

    async def run_before(pilot):
        await submit(pilot)
        await _until(
            pilot, lambda: len(fake_provider.requests) == 2 and not pilot.app.busy, timeout=60
        )
        pilot.app.query(ThinkingBlock).first().focus()
        await pilot.press("enter")
        await pilot.pause(0.3)

    assert snap_compare(
        snapshot_app(fake_provider), terminal_size=SNAPSHOT_SIZE, run_before=run_before
    )


async def test_replay_types_the_reasoning_out_then_folds_it(fake_provider, tmp_path):
    import io

    from agent_tui.core.sessions.log import read_events
    from agent_tui.core.sessions.replay import replay
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from agent_tui.tui.cli.headless import run_headless
    from agent_tui.tui.widgets.conversation import NoticeBlock
    from tests.core.loop_helpers import settings_for

    fake_provider.script(Reply(text="Hello.", thinking=THOUGHT))
    settings = settings_for(fake_provider)
    opened = open_session(tmp_path, settings.model)
    await run_headless(
        settings, tmp_path, "hi", "json", io.StringIO(), io.StringIO(), session=opened
    )
    close_session(opened)
    log = read_events(opened.store.session_id)

    played = [event async for event in replay(log, speed=1000.0)]
    kinds = [event.type for event in played]
    first = kinds.index("thinking_delta")
    assert first < kinds.index("thinking") < kinds.index("text_delta")
    assert "".join(e.text for e in played if e.type == "thinking_delta") == THOUGHT

    app = make_app(settings, tmp_path, load_litellm=False, replay=(log, 50.0))
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: any("End of the replay" in str(n.render()) for n in app.query(NoticeBlock)),
        )
        [block] = app.query(ThinkingBlock)
        assert block.text == THOUGHT and not block.streaming and not block.expanded
        assert [type(b).__name__ for b in _blocks(app)] == ["ThinkingBlock", "AssistantBlock"]
