"""A 1,000-block conversation keeps a screenful mounted and brings the rest back on demand."""

from __future__ import annotations

from textual.app import App, ComposeResult

from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import (
    ConversationView,
    EarlierMarker,
    NoticeBlock,
    ToolBlock,
    UserBlock,
)

SIZE = (120, 40)
ANSWER = "Here is **answer {i}**.\n\n- one point\n- another point\n"


class Transcript(App[None]):
    """Just the conversation pane."""

    def compose(self) -> ComposeResult:
        yield ConversationView()


def session(count: int) -> list:
    """User, assistant and tool blocks in turn; ``tool-0`` is the oldest tool call."""
    blocks = []
    for i in range(count):
        if i % 3 == 0:
            blocks.append(UserBlock(f"question {i}"))
        elif i % 3 == 1:
            blocks.append(AssistantBlock(ANSWER.format(i=i)))
        else:
            blocks.append(ToolBlock(f"tool-{i}", "shell", f"ls {i}", {"command": "ls"}))
    return blocks


def mounted(view: ConversationView) -> list:
    return [w for w in view.children if not isinstance(w, EarlierMarker)]


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()


async def test_a_thousand_blocks_keep_few_mounted_and_the_newest_in_view():
    app = Transcript()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await view.add_many(session(999))
        await settle(pilot)
        newest = AssistantBlock("the newest answer")
        await view.add(newest)
        await settle(pilot)

        assert len(view.children) <= view.MAX_MOUNTED + 1
        assert view.children[-1] is newest
        assert newest.region.height > 0 and view.region.contains_region(newest.region)
        marker = app.query_one(EarlierMarker)
        assert view.children[0] is marker
        assert view.earlier_count == 1000 - len(mounted(view))
        assert f"▲ {view.earlier_count:,} earlier blocks" in str(marker.render())


async def test_blocks_added_one_by_one_are_trimmed_too():
    app = Transcript()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        for block in session(120):
            await view.add(block)
        await settle(pilot)
        await view.add(NoticeBlock("last"))
        await settle(pilot)
        assert len(view.children) <= view.MAX_MOUNTED + 1
        assert view.earlier_count + len(mounted(view)) == 121


async def test_scrolling_to_the_top_mounts_earlier_blocks_with_their_text():
    app = Transcript()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await view.add_many(session(1000))
        await settle(pilot)
        before = view.earlier_count
        first = mounted(view)[0]

        view.scroll_home(animate=False)
        await settle(pilot)

        assert view.earlier_count == before - view.PAGE
        assert first.parent is view and first.region.height > 0, "the view stays put"
        shown = mounted(view)
        assert shown.index(first) == view.PAGE
        oldest = shown[0]
        index = before - view.PAGE
        if isinstance(oldest, AssistantBlock):
            assert oldest.text == ANSWER.format(i=index)
        elif isinstance(oldest, UserBlock):
            assert oldest.text == f"question {index}"
        else:
            assert oldest.call_id == f"tool-{index}"


async def test_enter_on_the_marker_shows_the_rest_and_the_marker_goes():
    app = Transcript()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await view.add_many(session(100))
        await settle(pilot)
        while view.earlier_count:
            app.query_one(EarlierMarker).focus()
            await pilot.press("enter")
            await settle(pilot)
        assert not app.query(EarlierMarker)
        texts = [b.text for b in view.query(UserBlock)]
        assert texts == [f"question {i}" for i in range(0, 100, 3)]


async def test_an_unmounted_tool_block_takes_updates_and_shows_them_when_back():
    app = Transcript()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        tool = ToolBlock("call-1", "shell", "make test", {"command": "make test"})
        await view.add(tool)
        await view.add_many(session(300))
        await settle(pilot)
        await view.add(NoticeBlock("trim now"))
        await settle(pilot)
        assert tool.parent is None

        tool.set_status("running")
        tool.add_output("compiling\n")
        tool.set_status("error", duration=2.5, output="3 failed\n")

        while view.earlier_count:
            await view.show_earlier()
            await settle(pilot)
        back = view.query(ToolBlock).first()
        assert back.call_id == "call-1" and back is not tool
        assert (back.status, back.duration, back.output) == ("error", 2.5, "3 failed\n")
        assert back.has_class("failed")
        assert "✗" in str(back.render()) and "2.5s" in str(back.render())

        tool.set_status("ok", duration=3.0, output="all passed\n")
        assert back.status == "ok" and "✓" in str(back.render())


async def test_adding_while_reading_history_does_not_yank_the_view():
    app = Transcript()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await view.add_many(session(1000))
        await settle(pilot)
        view.scroll_page_up(animate=False)
        await settle(pilot)
        reading = view.scroll_y
        assert reading < view.max_scroll_y

        for i in range(5):
            await view.add(AssistantBlock(f"new answer {i}"))
        await settle(pilot)

        assert view.scroll_y == reading
        assert isinstance(view.children[-1], AssistantBlock)
        assert view.children[-1].text == "new answer 4"


async def test_k_past_the_first_mounted_block_brings_earlier_ones():
    app = Transcript()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await view.add_many(session(200))
        await settle(pilot)
        first = mounted(view)[0]
        first.focus()
        before = view.earlier_count
        view.focus()
        first.focus()
        await pilot.press("k")
        await settle(pilot)
        assert view.earlier_count == before - view.PAGE
        assert app.focused is mounted(view)[view.PAGE - 1]
