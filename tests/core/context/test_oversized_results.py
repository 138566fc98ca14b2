"""One tool result larger than the room left in a small window: cut to fit, run goes on."""

from __future__ import annotations

import re
from pathlib import Path

from agent_tui.core.context.fragments import FragmentStore
from agent_tui.core.context.oversized import MIN_RESULT_TOKENS, cut_to_fit
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall

PRINT_LINES = "python3 -c \"for n in range(1, 501): print(f'line {n:05d} ' + 'x' * 40)\""


def tokens(text: str) -> int:
    return len(text) // 4 + 1


def test_a_result_within_budget_is_left_alone(tmp_path: Path) -> None:
    store = FragmentStore(tmp_path)
    assert cut_to_fit("short\n", 500, tokens, store, call_id="c1", tool_name="shell").content \
        == "short\n"
    assert store.ids() == []


def test_a_large_result_keeps_head_and_tail_and_saves_the_whole(tmp_path: Path) -> None:
    store = FragmentStore(tmp_path)
    text = "".join(f"line {n}\n" for n in range(1, 5001))
    cut = cut_to_fit(text, 1000, tokens, store, call_id="call/1", tool_name="shell")
    assert cut.fragment_id == "call_1-whole"
    assert cut.content.startswith("line 1\nline 2\n") and cut.content.endswith("line 5000\n")
    assert tokens(cut.content) <= 1000
    assert re.search(r"\[\.\.\. lines [\d,]+-[\d,]+ of 5,000 \(", cut.content)
    assert 'rehydrate(fragment_id="call_1-whole", start_line=' in cut.content
    saved = store.load("call_1-whole")
    assert saved is not None and saved.content == text


def test_one_enormous_line_is_cut_by_characters(tmp_path: Path) -> None:
    cut = cut_to_fit("y" * 100_000, 10, tokens, FragmentStore(tmp_path), call_id="c",
                     tool_name="read_file")
    assert len(cut.content) < 4 * MIN_RESULT_TOKENS + 600
    assert "characters were cut here" in cut.content


async def test_loop_a_shell_result_larger_than_an_8k_window_does_not_end_the_run(
        fake_provider, tmp_path: Path) -> None:
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": PRINT_LINES}, id="call_big")]),
        Reply(tool_calls=[ToolCall("rehydrate", {"fragment_id": "call_big-whole",
                                                 "start_line": 250, "end_line": 252})]),
        Reply(text="Read it all."),
    )
    outcome = await run(fake_provider, tmp_path, approval_mode="yolo", context_window=8000,
                        tool_set="full")

    assert outcome.code == 0, outcome.stderr
    assert outcome.result["ok"] and outcome.result["text"] == "Read it all."
    assert not outcome.of_type("error")
    seen = fake_provider.requests[1].tool_results()[-1]["content"]
    assert "line 00001" in seen and "line 00500" in seen and "line 00250" not in seen
    assert "were cut here to fit the context window" in seen
    assert 'rehydrate(fragment_id="call_big-whole", start_line=' in seen
    paged = fake_provider.requests[2].tool_results()[-1]["content"]
    assert paged.startswith("[lines 250-252 of 50")
    assert "line 00250" in paged and "line 00252" in paged and "line 00253" not in paged
    # The whole output is in the stream (and the session log), not only the cut.
    assert "line 00250" in outcome.of_type("tool_result")[0]["output"]


async def test_loop_read_file_and_read_many_files_of_huge_files(fake_provider,
                                                                tmp_path: Path) -> None:
    (tmp_path / "big.log").write_text("".join(f"entry {n}\n" for n in range(1, 4001)))
    (tmp_path / "other.log").write_text("".join(f"other {n}\n" for n in range(1, 3001)))
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "big.log"})]),
        Reply(tool_calls=[ToolCall("read_many_files", {"paths": ["*.log"]})]),
        Reply(text="Done."),
    )
    outcome = await run(fake_provider, tmp_path, approval_mode="yolo", context_window=8000,
                        tool_set="full")
    assert outcome.code == 0, outcome.stderr
    assert [r["ok"] for r in outcome.of_type("tool_result")] == [True, True]
    for request in fake_provider.requests[1:3]:
        assert "were cut here to fit the context window" in request.tool_results()[-1]["content"]


async def test_workbench_a_huge_shell_result_in_an_8k_window_ends_with_the_answer(
        fake_provider, tmp_path: Path) -> None:
    from agent_tui.tui.app import make_app
    from agent_tui.tui.widgets.assistant_block import AssistantBlock
    from agent_tui.tui.widgets.conversation import NoticeBlock, ToolBlock
    from tests.core.loop_helpers import settings_for
    from tests.tui.test_app import SIZE, type_prompt, until

    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": PRINT_LINES})]),
        Reply(text="All 500 lines read."),
    )
    settings = settings_for(fake_provider, approval_mode="yolo", context_window=8000,
                            tool_set="full")
    app = make_app(settings, tmp_path, load_litellm=False)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "print the lines")
        await until(pilot, lambda: len(fake_provider.requests) == 2 and not app.busy)
        await pilot.pause()
        assert [b.status for b in app.query(ToolBlock)] == ["ok"]
        answers = [b for b in app.query(AssistantBlock) if "All 500 lines read." in b.text]
        assert answers
        assert not [n for n in app.query(NoticeBlock) if "context is full" in str(n.content)]
    seen = fake_provider.requests[1].tool_results()[-1]["content"]
    assert "were cut here to fit the context window" in seen
