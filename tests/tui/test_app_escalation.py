"""The workbench shows when a stronger model takes over, and /model names both models."""

from __future__ import annotations

from agent_tui.core import events as ev
from agent_tui.tui.acp.updates import UpdateTranslator
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import NoticeBlock
from tests.fakes.providers import Reply
from tests.tui.test_app import SIZE, app_for, type_prompt, until

EFFORT_USAGE = ("; reasoning effort: the provider's default. Usage: /model NAME, /model NAME "
                "EFFORT or /model --effort EFFORT (EFFORT: off|low|medium|high, or default for "
                "the provider's own)")
"""How /model alone ends, after the model names: the effort and the syntax."""


def _notices(app) -> list[str]:
    return [str(block.render()) for block in app.query(NoticeBlock)]


async def test_an_escalation_is_a_notice_in_the_conversation_and_model_lists_both(
        fake_provider, tmp_path):
    fake_provider.script(Reply(text="I cannot proceed with this bug."),
                         Reply(text="Found it: an off-by-one."))
    app = app_for(fake_provider, tmp_path, escalation_model="openai/strong-model")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "find the bug")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        await pilot.pause(0.2)

        assert ("↑ Escalated to openai/strong-model: I cannot proceed with this bug."
                in _notices(app))
        assert [b.text for b in app.query(AssistantBlock)] == [
            "I cannot proceed with this bug.", "Found it: an off-by-one."]
        assert [r.body["model"] for r in fake_provider.requests] == ["fake-model",
                                                                     "strong-model"]
        # The status bar says who answers now, until the next prompt.
        assert "↑ openai/strong-model" in str(app.status.render())

        await type_prompt(pilot, "/model")
        await pilot.pause(0.1)
        assert _notices(app)[-1] == ("Model: openai/fake-model; escalation model: "
                                     "openai/strong-model" + EFFORT_USAGE)
        fake_provider.script(Reply(text="Fixed."))
        await type_prompt(pilot, "fix it")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        assert "↑" not in str(app.status.render())


async def test_model_without_an_escalation_model_names_one(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/model")
        await pilot.pause(0.1)
        assert _notices(app)[-1] == "Model: openai/fake-model" + EFFORT_USAGE


def test_an_acp_client_reads_the_escalation_as_a_line_of_the_answer(tmp_path):
    [update] = UpdateTranslator(tmp_path).updates(
        ev.Escalated("openai/strong-model", "I am stuck.", "answer"))
    assert update.content.text == "\n\n*(escalated to openai/strong-model: I am stuck.)*\n\n"
