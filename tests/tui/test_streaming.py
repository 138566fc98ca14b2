"""A streamed answer costs the event loop a bounded amount, and ends in view.

The engine runs for real against the fake provider, which sends a long answer in
thousands of small pieces as fast as it can.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock, MarkdownBullet, MarkdownBulletList
from textual.widgets.markdown import MarkdownFence

from agent_tui.core import events as ev
from agent_tui.tui.widgets.assistant_block import FLUSH_INTERVAL, AssistantBlock
from agent_tui.tui.widgets.conversation import ConversationView, ToolBlock
from agent_tui.tui.widgets.markdown_run import RunMarkdown, StreamedRun
from agent_tui.tui.widgets.streamed_markdown import StreamedList
from agent_tui.tui.widgets.tool_block import SHOWN_OUTPUT, live_output
from agent_tui.tui.widgets.tool_log import ToolLog
from agent_tui.tui.workbench.bridge import AgentEvent
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until

PARAGRAPH = ("The parser reads each line of the **config** file and keeps the last value of "
             "every key, so a later table overrides an earlier one.")
ANSWER = "\n\n".join(f"{n}. {PARAGRAPH}" if n % 3 else f"## Step {n}\n\n{PARAGRAPH}"
                     for n in range(60)) + "\n\nTHE END"


def count_appends(monkeypatch) -> list[str]:
    """Count the Markdown appends of every answer (the real append still runs)."""
    calls: list[str] = []
    append = AssistantBlock.append

    def counted(self, markdown):
        calls.append(markdown)
        return append(self, markdown)

    monkeypatch.setattr(AssistantBlock, "append", counted)
    return calls


async def test_thousands_of_pieces_are_shown_in_a_few_appends(fake_provider, tmp_path,
                                                            monkeypatch):
    appends = count_appends(monkeypatch)
    fake_provider.script(Reply(text=ANSWER, chunk_size=3))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "explain")
        await until(pilot, lambda: not app.busy, timeout=60)
        await pilot.pause(0.3)
        pages = list(app.query(AssistantBlock))
        answer = pages[-1].answer
        assert answer.text == ANSWER
        assert all(piece in ANSWER for piece in appends)
        assert len(appends) < len(ANSWER) / 3 / 20, f"{len(appends)} appends"
        # Pages of about PAGE_CHARS, each cut where a block ends.
        assert len(answer.pages) >= 4
        assert all(re.match(r"## Step|THE END", page) for page in answer.pages)
        assert [page.source for page in pages] == [answer.pages[p.page] for p in pages]
        # Framed as one block: the title on the first page, the frame open between pages,
        # and no blank line under the last paragraph (a class on the last block alone).
        first, last = pages[0], pages[-1]
        assert last.page == len(answer.pages) - 1
        assert not last.has_class("-continues") and last.has_class("-continued")
        assert all(page.styles.border_bottom[0] in ("", "none") for page in pages[:-1])
        unspaced = [child for page in pages for child in page.children
                    if child.styles.margin.bottom == 0]
        assert unspaced == [last.children[-1]]
        if first.page == 0:
            assert first.border_title == "agent"


async def test_a_streamed_code_block_of_thousands_of_lines_is_many_pages(fake_provider,
                                                                          tmp_path):
    from textual.widgets._markdown import MarkdownFence

    code = "\n".join(f"def handler_{n}(event):\n    return {n}" for n in range(800))
    text = f"The whole module:\n\n```python\n{code}\n```\n\nTHE END"
    fake_provider.script(Reply(text=text, chunk_size=50))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "show me the module")
        await until(pilot, lambda: not app.busy, timeout=60)
        await pilot.pause(0.3)
        pages = list(app.query(AssistantBlock))
        answer = pages[-1].answer
        assert answer.text == text  # what `c` copies: no fence added between pages
        assert len(answer.pages) >= 8
        assert answer.openers[0] == "" and set(answer.openers[1:]) == {"```python"}
        # Every mounted page draws its piece of the code as a code block, reopened and
        # closed with the same fence.
        for page in pages:
            if page.page < len(answer.pages) - 1:
                assert page.source.endswith("```\n")
                assert page.query(MarkdownFence)
            if page.page:
                assert page.source.startswith("```python\n")
        assert pages[-1].source.endswith("THE END")


async def test_the_end_of_a_long_answer_is_in_view(fake_provider, tmp_path):
    fake_provider.script(Reply(text=ANSWER, chunk_size=40))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "explain")
        await until(pilot, lambda: not app.busy)
        await pilot.pause(0.3)
        conversation = app.query_one(ConversationView)
        assert conversation.max_scroll_y > 50
        assert conversation.is_vertical_scroll_end
        assert "THE END" in "\n".join(str(line.text) for line in app.screen._compositor
                                      .render_strips())


async def test_a_person_who_scrolled_up_stays_where_they_are(fake_provider, tmp_path):
    fake_provider.script(Reply(text=ANSWER, chunk_size=40), Reply(text=ANSWER, chunk_size=40))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "explain")
        await until(pilot, lambda: not app.busy)
        conversation = app.query_one(ConversationView)
        await pilot.pause(0.2)
        conversation.scroll_to(y=5, animate=False, immediate=True)
        await pilot.pause(0.1)
        await type_prompt(pilot, "again")
        await until(pilot, lambda: not app.busy)
        await pilot.pause(0.3)
        assert conversation.scroll_y == 5


def test_long_lived_objects_are_frozen_full_collections_rare_and_thread_switches_quick(
) -> None:
    # In a process of its own: freezing is for the whole process.
    script = ("import gc, sys; from agent_tui.tui.workbench.pauses import *; "
              "pause_collection(); quick_thread_switches(); settle_long_lived(); "
              "print(gc.get_freeze_count() > 1000, gc.get_threshold() == THRESHOLDS, "
              "gc.isenabled(), sys.getswitchinterval() == SWITCH_INTERVAL)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=60)
    assert done.stdout.split() == ["True", "True", "True", "True"]


def test_live_output_keeps_only_what_the_panes_show() -> None:
    shown = ""
    for n in range(2_000):
        shown = live_output(shown, f"line {n:05d}\n")
    assert len(shown) == SHOWN_OUTPUT
    assert shown.endswith("line 01999\n")
    assert live_output("abc", "def") == "abcdef"


async def test_a_5_mb_cat_streams_into_the_tool_log_and_the_run_goes_on(fake_provider,
                                                                      tmp_path):
    (tmp_path / "big.log").write_text("".join(f"{n:07d} INFO served from cache\n"
                                               for n in range(160_000)))
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "cat big.log"})]),
                         Reply(text="Read it."))
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "read the log")
        await until(pilot, lambda: not app.busy, timeout=60)
        await pilot.pause(0.2)
        block = app.query_one(ToolBlock)
        assert block.status == "ok"
        record = app.query_one(ToolLog).records[block.call_id]
        assert "0159999 INFO" in record.output
        assert [b.answer.text for b in app.query(AssistantBlock)] == ["Read it."]


def test_a_turn_is_frozen_without_a_pause_and_everything_collected_when_away() -> None:
    # In a process of its own: freezing is for the whole process.
    script = (
        "import gc, weakref\n"
        "from agent_tui.tui.workbench.pauses import *\n"
        "settle_long_lived()\n"
        "class Node: pass\n"
        "a, b = Node(), Node(); a.b, b.a = b, a  # a cycle a turn left behind\n"
        "gone = weakref.ref(a)\n"
        "before = gc.get_freeze_count()\n"
        "freeze_between_turns()\n"
        "del a, b\n"
        "gc.collect()\n"
        "frozen_survives = gone() is not None and gc.get_freeze_count() > before\n"
        "collect_everything()\n"
        "print(frozen_survives, gone() is None, gc.get_freeze_count() > 0)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=60)
    assert done.stdout.split() == ["True", "True", "True"]


def test_highlighting_a_half_streamed_or_unnamed_fence_imports_nothing_once_preloaded() -> None:
    script = ("import sys\n"
              "from agent_tui.tui.workbench.start_up import preload_highlighting\n"
              "from textual.highlight import highlight\n"
              "preload_highlighting()\n"
              "loaded = set(sys.modules)\n"
              "highlight('x', language='pyt')\n"
              "highlight('def merge(base):\\n    return dict(base)', language=None)\n"
              "print(sorted(set(sys.modules) - loaded))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=60)
    assert done.stdout.strip() == "[]"


async def test_a_burst_of_pieces_within_one_frame_is_one_append_of_all_of_them(
        fake_provider, tmp_path, monkeypatch):
    appends = count_appends(monkeypatch)
    pieces = [f" word{n}" if n % 7 else f"\n\n**{n}**" for n in range(120)]
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for piece in pieces:
            app.post_message(AgentEvent(ev.TextDelta(piece)))
        await pilot.pause(FLUSH_INTERVAL * 5)
        page = app.query_one(AssistantBlock)
        assert appends == ["".join(pieces)]
        assert page.answer.text == page.source == "".join(pieces)


async def test_a_flush_due_a_few_microseconds_from_now_still_happens(fake_provider, tmp_path):
    # A key pressed just under KEY_QUIET before a flush was due left a wait of microseconds;
    # Textual's one-shot timer skips a moment already past when its task first looks, and
    # the answer stopped drawing until it ended (1 run in 8 of the benchmark).
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(AgentEvent(ev.TextDelta("First")))
        await pilot.pause(FLUSH_INTERVAL * 3)
        answer = app.view._assistant
        for delay in (1e-9, 0.0, 1e-6):
            answer.write(" more")
            answer._stop_timer()
            answer._wait(delay)
            await pilot.pause(FLUSH_INTERVAL * 3)
            assert not answer._pending, delay
        assert app.query_one(AssistantBlock).answer.text == "First more more more"


async def test_a_steady_stream_is_shown_as_it_comes_at_most_once_a_flush_interval(
        fake_provider, tmp_path, monkeypatch):
    appends = count_appends(monkeypatch)
    pieces = [f" word{n}" for n in range(60)]
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        started = asyncio.get_running_loop().time()
        for piece in pieces:  # 300 ms of text, a piece every 5 ms
            app.post_message(AgentEvent(ev.TextDelta(piece)))
            await asyncio.sleep(0.005)
        took = asyncio.get_running_loop().time() - started
        await pilot.pause(FLUSH_INTERVAL * 5)
        assert "".join(appends) == app.query_one(AssistantBlock).answer.text == "".join(pieces)
        # Shown while it streams, never more often than once a FLUSH_INTERVAL.
        assert 2 <= len(appends) <= took / FLUSH_INTERVAL + 2, (len(appends), took)


class OnePage(App[None]):
    def __init__(self, block: AssistantBlock) -> None:
        super().__init__()
        self.block = block

    def compose(self):
        yield self.block


async def test_text_streamed_onto_a_page_that_ends_in_an_open_code_block_goes_into_it():
    # A new page starts with the text of its first flush; the next ones are appended.
    block = AssistantBlock("Intro.\n\n```python\nx = 1\n")
    async with OnePage(block).run_test() as pilot:
        await pilot.pause()
        await block.add_text("if x:\n    y = 2\n```\n\nAfter the code.\n")
        await pilot.pause()
        assert [child.name for child in block.children] == [
            "paragraph_open", "fence", "paragraph_open"]
        fence = block.children[1]
        assert isinstance(fence, MarkdownFence)
        assert fence.lexer == "python"
        assert fence.code == "x = 1\nif x:\n    y = 2"


class InConversation(OnePage):
    def compose(self):
        with ConversationView():
            yield self.block


@pytest.mark.parametrize("text", ["y = 2\n" * 4, "```\n\nA paragraph" + " that grows" * 40,
                                  "\n\n- an item\n- and another\n"])
async def test_an_answer_that_grows_is_laid_out_once_not_twice(monkeypatch, text):
    # Textual follows a layout that resizes widgets with a second one; the conversation,
    # its pages, runs and code blocks are sized in the first.
    block = AssistantBlock("Intro.\n\n```python\nx = 1\n")
    async with InConversation(block).run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        layouts = []
        refresh_layout = Screen._refresh_layout

        def counted(screen, *args, **kwargs):
            layouts.append(screen)
            return refresh_layout(screen, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        with pilot.app.batch_update():  # as a flush of the stream shows its text
            await block.add_text(text)
        for _ in range(5):
            await pilot.pause(0.02)
        assert len(layouts) == 1
        assert block.text.endswith(text)


def shown_blocks(widget) -> list[tuple[str, str]]:
    """What a Markdown widget shows: each block, bullet and label, in order, with its
    text (the symbols of bullets; rows and columns of a list are containers; a run, the
    lines it draws)."""
    shown = []
    for node in widget.walk_children(with_self=False):
        if isinstance(node, MarkdownBullet):
            shown.append(("bullet", node.symbol))
        elif isinstance(node, StreamedRun):
            shown.append(("run", node.render().plain))
        elif isinstance(node, MarkdownBlock):
            shown.append((node.name or "", node._content.plain))
    return shown


def screen_lines(app) -> list[str]:
    return ["".join(segment.text for segment in strip)
            for strip in app.screen._compositor.render_strips()]


LISTS = ("Steps:\n\n- load the **config**\n- merge the tables\n  - lists are joined\n"
         "- report unknown keys\n\nThen, in order:\n\n"
         + "".join(f"{n}. step number {n} of the plan\n" for n in range(1, 13))
         + "\nDone, with `merge()` last.\n")


async def test_a_list_streamed_word_by_word_grows_in_place_and_shows_what_a_whole_one_does():
    whole = AssistantBlock(LISTS)
    async with OnePage(whole).run_test(size=SIZE) as pilot:
        await pilot.pause()
        expected = shown_blocks(whole)
        expected_screen = screen_lines(pilot.app)
    assert any("  9. step number 9" in text for _, text in expected)
    assert any(" 12. step number 12" in text for _, text in expected)

    streamed = AssistantBlock("")
    async with OnePage(streamed).run_test(size=SIZE) as pilot:
        await pilot.pause()
        words = re.findall(r"\s*\S+", LISTS) + ["\n"]
        await streamed.add_text(words[0])
        run = streamed.children[0]
        assert isinstance(run, StreamedRun)
        for word in words[1:]:
            await streamed.add_text(word)
            # The text and the lists grow in place, in one widget: nothing is mounted
            # (but while "tables\n  -" is a heading in a list item, which is drawn as rows).
            assert streamed.children[0] is run
            if "tables\n  -" not in streamed.text or "  - lists" in streamed.text:
                assert list(streamed.children) == [run]
        await pilot.pause()
        assert streamed.text == LISTS
        assert shown_blocks(streamed) == expected
        assert screen_lines(pilot.app) == expected_screen


LOOKS = ("# A title long enough to wrap across the line at this width\n\n"
         "Some **bold**, *italic*, ~~struck~~ and `code` text, a [link](https://example.com)"
         "  \nafter a hard break.\n\n## Second *level*\n\n"
         "- load the **config**, a long item that wraps across the line because it has "
         "many words in it\n- merge the `tables`\n  - lists are joined, and this nested "
         "one wraps at the edge when it is long enough\n    1. deep and ordered\n"
         "- a [link](https://example.com)\n\n"
         + "".join(f"{n}. step {n}\n" for n in range(8, 12))
         + "\n### Third\n\n```python\nx = 1\n```\n\n#### Fourth\n\n> a quote\n\n"
         "##### Fifth\n\ntext\n\n###### Sixth\n\nThe end.\n")


class TextualPage(App[None]):
    """Textual's own Markdown widget: a widget for every block (four for a list item)."""

    def __init__(self, theme: str) -> None:
        super().__init__()
        self.theme = theme

    def compose(self) -> ComposeResult:
        yield Markdown(LOOKS)


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("width", [60, 33])
async def test_text_drawn_in_runs_looks_as_textuals_widgets_do(theme, width):
    async with TextualPage(theme).run_test(size=(width, 70)) as pilot:
        await pilot.pause()
        textual_screen = pilot.app.export_screenshot()
        textual_lines = screen_lines(pilot.app)

    class RunPage(TextualPage):
        def compose(self) -> ComposeResult:
            yield RunMarkdown(LOOKS)

    async with RunPage(theme).run_test(size=(width, 70)) as pilot:
        await pilot.pause()
        blocks = [type(block).__name__ for block in pilot.app.query_one(RunMarkdown).children]
        assert blocks == ["StreamedRun", "StreamedFence", "StreamedRun", "MarkdownBlockQuote",
                          "StreamedRun"]
        assert not pilot.app.query(StreamedRun).first().children
        assert any("The end." in line for line in textual_lines)  # all of it on screen
        assert screen_lines(pilot.app) == textual_lines
        # Colours and styles too, cell by cell (the picture's text runs are cut differently).
        assert cells(pilot.app.export_screenshot()) == cells(textual_screen)


MIXED = ("Setext heading\n===\n\nIntro with `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
         "After the table.\n\n- item\n\n  ```sh\n  make\n  ```\n- next\n\nText again.\n\n"
         "Second\n------\n\n```\ncode\n```\nRight after the code.\n\n---\n\n"
         "<details>\n<summary>HTML, shown as written</summary>\n</details>\n\n"
         "Last words: press <kbd>Ctrl</kbd>+<kbd>C</kbd>.\n")


@pytest.mark.parametrize("piece", [r"\s*\S+|\s+$", r"(?s).{1,7}"])  # words, or any cut
async def test_text_streamed_around_other_blocks_ends_in_the_runs_a_whole_answer_has(piece):
    # Text that turns into a heading, a table, a list holding code, a rule, HTML: the runs
    # are cut, ended and joined as the stream goes, and end as a whole parse draws them
    # (the conversation's scroll bar appears on the way: the centred title moves with it).
    whole = AssistantBlock(MIXED)
    async with InConversation(whole).run_test(size=SIZE) as pilot:
        await pilot.pause()
        expected = shown_blocks(whole)
        expected_screen = screen_lines(pilot.app)
        kinds = [type(block).__name__ for block in whole.children]
        width = whole.children[0].content_region.width
    assert kinds.count("StreamedRun") == 5 and "MarkdownTable" in kinds
    assert "<summary>HTML, shown as written</summary>" in "\n".join(expected_screen)
    assert expected[-1][1].endswith("\n\nLast words: press <kbd>Ctrl</kbd>+<kbd>C</kbd>.")

    streamed = AssistantBlock("")
    async with InConversation(streamed).run_test(size=SIZE) as pilot:
        await pilot.pause()
        for text in re.findall(piece, MIXED):
            await streamed.add_text(text)
        # The scroll bar that appeared on the way is laid out in a frame of its own.
        await until(pilot, lambda: streamed.children[0].content_region.width == width)
        assert streamed.text == MIXED
        assert shown_blocks(streamed) == expected
        assert screen_lines(pilot.app) == expected_screen


def cells(svg: str) -> list[tuple[str, str]]:
    """The glyphs of a screenshot with their styles (colour, weight…), in order (blank cells
    are drawn as text in one and as background alone in another)."""
    svg = re.sub(r"terminal-\d+", "terminal", svg)
    styles = dict(re.findall(r"\.(terminal-r\d+) \{ ([^}]*) \}", svg))
    runs = re.findall(r'<text class="(terminal-r\d+)"[^>]*>([^<]*)</text>', svg)
    return [(styles[name], char) for name, text in runs
            for char in text.replace("&#160;", " ") if not char.isspace()]


@pytest.mark.parametrize("text, shown", [
    ("- run this:\n\n  ```sh\n  make test\n  ```\n- then that\n", "make test"),
    ("- - a list that starts an item\n- then a paragraph\n", "a list that starts an item"),
])
async def test_a_list_whose_item_holds_more_than_paragraphs_is_drawn_as_rows(text, shown):
    block = AssistantBlock(text)
    async with OnePage(block).run_test(size=SIZE) as pilot:
        await pilot.pause()
        rows = block.query(MarkdownBulletList).first()
        assert isinstance(rows, StreamedList) and rows.query(MarkdownBullet)
        assert shown in "\n".join(screen_lines(pilot.app))


async def test_a_paragraph_that_wraps_onto_more_lines_while_it_streams_is_laid_out_taller():
    block = AssistantBlock("")
    async with OnePage(block).run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        for word in ["One", " short", " line."] + [" more words"] * 12:
            await block.add_text(word)
            await pilot.pause()
            run = block.children[0]
            lines = len(run.parts[0]._content.wrap(run.content_region.width))
            assert run.content_region.height == lines
        assert lines > 3


@pytest.mark.parametrize("in_worker", [True, False])
async def test_the_workbench_streams_through_the_worker_unless_told_not_to(
        fake_provider, tmp_path, in_worker):
    from agent_tui.core.providers.litellm import LitellmProvider
    from agent_tui.core.providers.stream_process import ProcessProvider, shared_stream_process

    fake_provider.script(Reply(text=PARAGRAPH, chunk_size=4))
    app = app_for(fake_provider, tmp_path, stream_process=in_worker)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "explain")
        await until(pilot, lambda: not app.busy, timeout=60)
        await pilot.pause(0.2)
        provider = app.agent.provider
        assert type(provider) is (ProcessProvider if in_worker else LitellmProvider)
        assert app.query(AssistantBlock).last().answer.text == PARAGRAPH
    if in_worker:
        assert shared_stream_process().pid not in (None, os.getpid())


async def test_a_growing_answer_repaints_its_new_lines_not_all_of_them(monkeypatch):
    """Each pause between words is a frame: the answer's frame draws again only its rows
    that can have changed (the bottom border moves), where Textual repaints a widget whose
    height changes whole (what the screen shows is what a whole answer shows: the test
    above)."""
    from textual._styles_cache import StylesCache

    from agent_tui.tui.widgets.one_layout import RepaintsGrowth

    painted: dict[str, int] = {}
    render_line = StylesCache.render_line

    def counted(self, *args, **kwargs):
        owner = getattr(self, "owner", None)
        if owner is not None:
            painted[owner] = painted.get(owner, 0) + 1
        return render_line(self, *args, **kwargs)

    monkeypatch.setattr(StylesCache, "render_line", counted)
    text = "".join(f"Paragraph {n} of the answer, long enough to wrap across a line or two "
                   f"at this width, with more words after it. " * 2 + "\n\n"
                   for n in range(8))

    async def stream() -> dict[str, int]:
        painted.clear()
        streamed = AssistantBlock("")
        async with OnePage(streamed).run_test(size=SIZE) as pilot:
            await pilot.pause()
            streamed._styles_cache.owner = "frame"
            for word in re.findall(r"\s*\S+", text):
                await streamed.add_text(word)
                await pilot.pause()
            assert streamed.text == text.rstrip()
        return dict(painted)

    growing = await stream()
    monkeypatch.setattr(RepaintsGrowth, "_lines_kept", lambda self, old, new: 0)
    whole = await stream()
    assert 0 < growing["frame"] < whole["frame"] / 2


async def test_every_line_of_a_fast_answer_is_on_screen_whole(fake_provider, tmp_path):
    """Paragraphs streamed word by word, fast, each flush growing the last paragraph's last
    line or starting the next: what the screen shows at the end has every word, in order
    (no line left as an earlier flush drew it)."""
    words = [f"w{n:04d}" for n in range(900)]
    text = "".join(word + ("\n\n" if n % 40 == 39 else " ") for n, word in enumerate(words))
    fake_provider.script(Reply(text=text, chunk_size=6, pause=0.0005))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "go")
        await until(pilot, lambda: not app.busy, timeout=60)
        await pilot.pause(0.3)
        shown = [int(n) for line in screen_lines(app) for n in re.findall(r"w(\d{4})", line)]
    assert len(shown) > 200
    assert shown == list(range(shown[0], shown[0] + len(shown)))


def drawn_cells(app) -> list[list[tuple[str, str]]]:
    """The screen as the compositor draws it now: each row's text and style, segment by
    segment."""
    return [[(segment.text, str(segment.style)) for segment in strip]
            for strip in app.screen._compositor.render_strips()]


async def test_a_run_repaints_only_changed_rows_and_draws_what_a_full_repaint_does(
        monkeypatch):
    """Words of headings, paragraphs and lists streamed in pieces of every size, a frame
    after each: a run repaints only the rows whose line changed, and the screen is at every
    moment what a repaint of everything draws, each run's rows what Textual renders from
    its whole text (a bold span closed lines later, or a paragraph that becomes a heading,
    changes rows above the last one)."""
    from textual.visual import Visual

    drawn_rows = [0]
    render_line = StreamedRun.render_line

    def counted(self, y):
        drawn_rows[0] += 1
        return render_line(self, y)

    monkeypatch.setattr(StreamedRun, "render_line", counted)

    text = ("# The plan\n\n" + "".join(
        f"Paragraph {n} says what the step does, long enough to wrap at this width, "
        f"with `code` and **bold** words in it.\n\n- item {n} of the list\n- and one more, "
        f"which also wraps when the pane is narrow enough to need it\n\n"
        + ("## A heading between\n\n" if n == 2 else "") for n in range(4))
        + "A paragraph whose **bold words run on across two or three lines at this width "
        "before the span closes, so that closing it restyles and rewraps lines above** the "
        "last one.\n\nA paragraph that turns\ninto a heading, all of its lines\n===\n\nEnd.")
    pieces = re.findall(r"\s*\S+", text)
    sizes = [1, 3, 2, 7, 1, 5]
    streamed = AssistantBlock("")
    async with OnePage(streamed).run_test(size=(70, 60)) as pilot:
        await pilot.pause()
        at, turn, repainted, heights = 0, 0, [], []
        while at < len(pieces):
            size = sizes[turn % len(sizes)]
            drawn_rows[0] = 0
            await streamed.add_text("".join(pieces[at:at + size]))
            at, turn = at + size, turn + 1
            await pilot.pause()
            runs = list(streamed.query(StreamedRun))
            repainted.append(drawn_rows[0])
            heights.append(sum(run.size.height for run in runs))
            shown = drawn_cells(pilot.app)
            for run in runs:
                width, height = run.size
                whole = Visual.to_strips(run, run.render(), width, height, run.visual_style)
                assert [run.render_line(y) for y in range(height)] == whole
            for widget in pilot.app.screen.walk_children(with_self=True):
                widget._styles_cache.clear()
            assert shown == drawn_cells(pilot.app), f"after {at} of {len(pieces)} words"
        assert streamed.text == text.rstrip()
        # Drawn whole, each frame would repaint every row of the runs.
        assert sum(repainted) < sum(heights) / 5, (repainted, heights)


class Conversing(App[None]):
    def compose(self):
        yield ConversationView()


async def test_a_streaming_answer_grows_rows_ahead_and_ends_at_its_text(monkeypatch):
    """While an answer streams, the run that ends it is laid out GROWTH_ROWS rows at a
    time (the rows its text has not reached are blank), so most flushes that wrap onto a
    new row neither lay out the screen nor scroll; when the stream ends, the run is as tall
    as its text and the screen is what repainting everything draws."""
    from textual._compositor import Compositor

    from agent_tui.tui.widgets import markdown_run
    from agent_tui.tui.widgets.assistant_block import StreamedAnswer

    text = "".join(f"Paragraph {n} of the answer, long enough to wrap across two or three "
                   f"lines at this width, with more words after it, and more.\n\n"
                   for n in range(6)).rstrip()
    words = re.findall(r"\s*\S+", text)
    layouts = [0]
    reflow = Compositor.reflow

    def counted(self, *args, **kwargs):
        layouts[0] += 1
        return reflow(self, *args, **kwargs)

    monkeypatch.setattr(Compositor, "reflow", counted)

    async def stream(rows: int) -> int:
        monkeypatch.setattr(markdown_run, "GROWTH_ROWS", rows)
        async with Conversing().run_test(size=(60, 16)) as pilot:
            conversation = pilot.app.query_one(ConversationView)
            answer = StreamedAnswer(conversation)
            await answer.start()
            await pilot.pause()
            layouts[0] = 0
            for word in words:
                answer.write(word)
                await answer._show("".join(answer._pending))
                await pilot.pause()
                run = answer.pages[-1].query(StreamedRun).last()
                lines = len(run._rendered_strips(run.content_region.width))
                height = run.content_region.height
                assert run.growing
                assert height % rows == 0 and 0 <= height - lines < rows, (lines, height)
                assert all(not run.render_line(y).text.strip() for y in range(lines, height))
            streamed_layouts = layouts[0]
            await answer.finish()
            await pilot.pause()
            runs = list(answer.pages[-1].query(StreamedRun))
            assert not any(run.growing for run in runs)
            for run in runs:
                assert run.content_region.height == len(
                    run._rendered_strips(run.content_region.width))
            assert answer.answer.text == text
            shown = drawn_cells(pilot.app)
            for widget in pilot.app.screen.walk_children(with_self=True):
                widget._styles_cache.clear()
            assert shown == drawn_cells(pilot.app)
            assert re.findall(r"Paragraph (\d)", "".join(screen_lines(pilot.app)))[-1] == "5"
        return streamed_layouts

    ahead = await stream(markdown_run.GROWTH_ROWS)
    row_by_row = await stream(1)
    assert ahead < row_by_row * 0.6, (ahead, row_by_row)
