"""Images a tool saved (screenshots) show in its block in the conversation, live and resumed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PIL import Image
from textual.geometry import Region

from agent_tui.core import events as ev
from agent_tui.tui.widgets import tool_image
from agent_tui.tui.widgets.conversation import ConversationView, ToolBlock
from agent_tui.tui.widgets.tool_image import MAX_ROWS, ToolImage
from tests.tui.test_app import until
from tests.tui.test_first_frame import FIRST_FRAME_PROBE
from tests.tui.test_snapshots import PROJECT, SIZE, _steady, project, snapshot_app  # noqa: F401
from tests.tui.workbench.test_event_view import Panes

RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 160, 0), (0, 0, 255), (255, 255, 255)


def quadrant_png(path: Path, size: tuple[int, int] = (320, 200)) -> Path:
    """A PNG in four coloured quarters: red, green / blue, white."""
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.new("RGB", size)
    width, height = size
    for index, colour in enumerate((RED, GREEN, BLUE, WHITE)):
        left, top = (index % 2) * width // 2, (index // 2) * height // 2
        image.paste(colour, (left, top, left + width // 2, top + height // 2))
    image.save(path)
    return path


def screenshot_events(*pngs: str, call_id: str = "s1") -> list[ev.Event]:
    return [
        ev.ToolCallStarted(call_id, "take_screenshot", {"window_id": "Editor"},
                           "take_screenshot Editor"),
        ev.ToolResultEvent(call_id, "take_screenshot", True, "Captured the window.",
                           duration=0.1, image_files=list(pngs)),
    ]


async def shown_block(app: Panes, pilot, events: list[ev.Event], *, resumed: bool) -> ToolBlock:
    """The tool block once ``events`` are shown (live or as a resumed session) and its
    images read."""
    if resumed:
        await app.view.restore(events)
    else:
        for event in events:
            await app.view.show(event)
    return await images_read(app, pilot)


async def images_read(app: Panes, pilot) -> ToolBlock:
    """The tool block, once its images are read and drawn."""
    await until(pilot, lambda: app.query(ToolBlock) and all(
        image.loaded for image in app.query_one(ToolBlock).images))
    await pilot.pause()
    return app.query_one(ToolBlock)


def cells(block: ToolBlock) -> list[list[tuple[str, tuple | None, tuple | None]]]:
    """What the block draws, row by row: each cell's character, colour and background."""
    rows = []
    for strip in block.render_lines(Region(0, 0, block.size.width, block.size.height)):
        row = []
        for segment in strip:
            style = segment.style
            colour = style.color.triplet if style and style.color else None
            background = style.bgcolor.triplet if style and style.bgcolor else None
            row.extend((char, colour and tuple(colour), background and tuple(background))
                       for char in segment.text)
        rows.append(row)
    return rows


def picture(rows: list[list[tuple[str, tuple | None, tuple | None]]]) -> list[list[tuple]]:
    """The half cells of ``rows`` (a "▀" per cell): upper and lower pixel colours."""
    return [[(fg, bg) for char, fg, bg in row if char == "▀"] for row in rows
            if any(char == "▀" for char, _, _ in row)]


async def test_the_block_draws_the_picture_and_its_path_live_and_resumed(tmp_path):
    # A folder named like markup: the path is shown as it is, never as styles.
    png = str(quadrant_png(tmp_path / "[b]shots[/b]" / "shot.png"))
    for resumed in (False, True):
        app = Panes()
        async with app.run_test(size=(100, 40)) as pilot:
            block = await shown_block(app, pilot, screenshot_events(png), resumed=resumed)
            assert not block.expanded  # shown without expanding the block
            rows = cells(block)
            text = ["".join(char for char, _, _ in row).rstrip() for row in rows]
            assert text[0].startswith("▸ ✓ take_screenshot Editor")
            # 320x200 in at most 16 rows (32 pixel rows), the shape kept: 51 cells wide
            drawn = picture(rows)
            assert len(drawn) == MAX_ROWS and {len(row) for row in drawn} == {51}, resumed
            assert text[1 + MAX_ROWS] == f"  {png}  320×200 px"
            assert len(text) == 2 + MAX_ROWS
            corners = drawn[0][0], drawn[0][-1], drawn[-1][0], drawn[-1][-1]
            assert corners == ((RED, RED), (GREEN, GREEN), (BLUE, BLUE), (WHITE, WHITE))
            assert png in block.copy_text()


async def test_a_missing_or_unreadable_image_is_one_line_naming_it(tmp_path):
    deleted = tmp_path / "deleted.png"
    quadrant_png(deleted).unlink()  # a resumed session whose screenshot was deleted
    (tmp_path / "notes.png").write_text("not a picture")
    broken = tmp_path / "broken.png"
    broken.write_bytes(quadrant_png(tmp_path / "whole.png").read_bytes()[:300])
    app = Panes()
    async with app.run_test(size=(200, 30)) as pilot:  # wide enough for a line each
        events = screenshot_events(str(deleted), str(tmp_path / "notes.png"), str(broken))
        block = await shown_block(app, pilot, events, resumed=True)
        text = [line.rstrip() for line in str(block.render()).splitlines()]
        assert text[1:] == [
            f"  ⚠ image missing (moved or deleted since the call): {deleted}",
            f"  ⚠ cannot show the image (not an image Pillow can read): {tmp_path}/notes.png",
            f"  ⚠ cannot show the image (image file is truncated): {broken}",
        ]
        assert block.size.height == 4 and not picture(cells(block))
        assert app.is_running


async def test_a_large_screenshot_is_read_off_the_loop_and_fits_the_width(tmp_path,
                                                                           monkeypatch):
    big = str(quadrant_png(tmp_path / "big.png", (1920, 1080)))
    readers: list[int] = []
    load = ToolImage.load

    def spy(image: ToolImage) -> None:
        readers.append(threading.get_ident())
        load(image)

    monkeypatch.setattr(ToolImage, "load", spy)
    app = Panes()
    async with app.run_test(size=(120, 40)) as pilot:
        for event in screenshot_events(big):
            await app.view.show(event)
        block = app.query_one(ToolBlock)
        assert not block.images[0].loaded  # the handler did not decode it
        block = await images_read(app, pilot)
        assert readers and threading.get_ident() not in readers
        assert block.images[0].pixels == (1920, 1080)
        drawn = picture(cells(block))
        assert len(drawn) == MAX_ROWS and {len(row) for row in drawn} == {57}  # 16:9 kept

        await pilot.resize_terminal(40, 40)  # narrower than the picture: it shrinks to fit
        await pilot.pause()
        rows = cells(block)
        drawn = picture(rows)
        assert {len(row) for row in drawn} == {block.content_size.width - 2}
        assert len(drawn) == (round(1080 * (block.content_size.width - 2) / 1920) + 1) // 2
        assert all(len(row) == block.size.width for row in rows)  # no line wrapped
        assert readers.count(readers[0]) == len(readers) == 1  # read once


async def test_a_block_scrolled_back_to_does_not_read_its_images_again(tmp_path,
                                                                        monkeypatch):
    png = str(quadrant_png(tmp_path / "shot.png"))
    reads: list[str] = []
    read = tool_image._read_preview

    def counting(path: str):
        reads.append(path)
        return read(path)

    monkeypatch.setattr(tool_image, "_read_preview", counting)
    app = Panes()
    async with app.run_test(size=(100, 40)) as pilot:
        block = await shown_block(app, pilot, screenshot_events(png), resumed=False)
        view = app.query_one(ConversationView)
        await view.discard([block])
        copy = block.revive()
        await view.add(copy)
        await pilot.pause()
        assert copy.images == block.images and copy.images[0].loaded
        assert len(picture(cells(copy))) == MAX_ROWS
        assert reads == [png]


async def test_the_newest_stays_in_view_when_a_picture_makes_its_block_taller(tmp_path):
    png = str(quadrant_png(tmp_path / "shot.png"))
    app = Panes()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(ConversationView)
        for index in range(30):
            await app.view.show(ev.UserMessage(f"message {index}"))
        block = await shown_block(app, pilot, screenshot_events(png), resumed=False)
        await pilot.pause()
        assert view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y
        assert block.region.bottom <= view.region.bottom


def test_the_first_frame_imports_neither_pillow_nor_textual_image(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env.update(AGENT_TUI_HOME=str(tmp_path / ".home"))
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_PROBE, str(tmp_path), "--model", "openai/probe"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = next(line.split()[1:] for line in done.stdout.splitlines()
                  if line.startswith("LOADED "))
    assert {"PIL", "textual_image", "agent_tui.tui.widgets.tool_image"} & set(loaded) == set()


@pytest.mark.usefixtures("project")
def test_snapshot_a_screenshot_in_the_conversation(snap_compare, fake_provider):
    """The workbench after a take_screenshot call: the prompt "what is on the screen?", the
    call's line "▸ ✓ take_screenshot Editor  0.1s" and, under it without expanding, the
    picture in four coloured quarters (red, green / blue, white), 51 cells wide and 16 rows
    tall, then the file's path and "320×200 px". The tool log lists the call."""
    png = str(quadrant_png(PROJECT / "shot.png"))

    async def run_before(pilot):
        await _steady(pilot)
        for event in [ev.UserMessage("what is on the screen?"), *screenshot_events(png)]:
            await pilot.app.view.show(event)
        await until(pilot, lambda: all(image.loaded for block in pilot.app.query(ToolBlock)
                                       for image in block.images))
        await pilot.pause(0.3)

    assert snap_compare(snapshot_app(fake_provider), terminal_size=SIZE, run_before=run_before)
