"""``/auto`` in the workbench (pilot): the coach is opened as every agent is, with the
project's instructions and the coach's role and tools, against a fake provider through
litellm and real HTTP that tells the player and the coach apart by the coach's prompt."""

from __future__ import annotations

from agent_tui.tui.widgets.conversation import NoticeBlock
from tests.fakes.providers import FakeProvider
from tests.tui.cli.test_autonomous import Pair, is_coach
from tests.tui.test_app import SIZE, app_for, type_prompt, until

INSTRUCTIONS = "Name every function in snake_case."


async def test_the_coach_has_the_projects_knowledge_and_the_coachs_role(tmp_path):
    (tmp_path / "AGENTS.md").write_text(INSTRUCTIONS + "\n")
    with FakeProvider(responder=Pair()) as fake:
        app = app_for(fake, tmp_path, approval_mode="yolo")
        async with app.run_test(size=SIZE) as pilot:
            await type_prompt(pilot, "/auto answer() returns 2")
            await until(pilot, lambda: any("the coach approved" in str(n.render())
                                           for n in app.query(NoticeBlock)), timeout=60)
        posts = [r for r in fake.requests if r.method == "POST"]
    coach = [r for r in posts if is_coach(r)]
    player = [r for r in posts if not is_coach(r)]
    assert coach and player
    assert all(INSTRUCTIONS in str(r.messages[0]["content"]) for r in coach + player)
    offered = {tool["function"]["name"] for tool in coach[0].tools}
    assert "read_file" in offered and "write_file" not in offered
    assert (tmp_path / "answer.py").read_text() == "def answer():\n    return 2\n"
