"""Screenshots a tool saved show in its block in the conversation, live and resumed."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from agent_tui.core import events as ev
from agent_tui.tui.widgets.conversation import ToolBlock
from agent_tui.tui.widgets.tool_image import half_blocks, preview
from tests.tui.test_event_view import Panes
from tests.tui.test_snapshots import PROJECT, SIZE, _steady, project, snapshot_app  # noqa: F401

QUADRANTS = ((255, 0, 0), (0, 160, 0), (0, 0, 255), (255, 255, 255))


def quadrant_png(path: Path, size: tuple[int, int] = (320, 200)) -> Path:
    """A PNG in four coloured quarters: red, green / blue, white."""
    image = Image.new("RGB", size)
    w, h = size
    for index, colour in enumerate(QUADRANTS):
        left, top = (index % 2) * w // 2, (index // 2) * h // 2
        image.paste(colour, (left, top, left + w // 2, top + h // 2))
    image.save(path)
    return path


def screenshot_events(png: str) -> list[ev.Event]:
    return [
        ev.ToolCallStarted("s1", "take_screenshot", {"window_id": "Editor"},
                           f"take_screenshot Editor → {png}"),
        ev.ToolResultEvent("s1", "take_screenshot", True, "Captured the window.", duration=0.1,
                           image_files=[png]),
    ]


def test_the_picture_keeps_its_shape_and_colours(tmp_path):
    picture = half_blocks(quadrant_png(tmp_path / "q.png"), columns=64, rows=16)
    lines = picture.plain.split("\n")
    # 320x200 into 64x16 cells (64x32 pixels), the shape kept: 51x32 pixels, 16 rows
    assert len(lines) == 16 and {len(line) for line in lines} == {51}
    assert set("".join(lines)) == {"▀"}
    styles = [str(span.style) for span in picture.spans]
    assert styles[0] == "#ff0000 on #ff0000" and styles[50] == "#00a000 on #00a000"
    assert styles[-51] == "#0000ff on #0000ff" and styles[-1] == "#ffffff on #ffffff"


def test_a_large_screenshot_fits_the_bounds(tmp_path):
    picture = half_blocks(quadrant_png(tmp_path / "big.png", (1920, 1080)))
    lines = picture.plain.split("\n")
    assert len(lines) <= 16 and max(len(line) for line in lines) <= 64


def test_a_missing_or_broken_image_is_one_line(tmp_path):
    gone = preview(str(tmp_path / "gone.png")).plain
    assert gone == f"  image {tmp_path / 'gone.png'} missing"
    (tmp_path / "bad.png").write_text("not a picture")
    assert "cannot be shown (not an image" in preview(str(tmp_path / "bad.png")).plain


async def test_the_block_shows_the_picture_and_its_path_live_and_resumed(tmp_path):
    png = str(quadrant_png(tmp_path / "shot.png"))
    for resumed in (False, True):
        app = Panes()
        async with app.run_test(size=(100, 40)) as pilot:
            if resumed:
                await app.view.restore(screenshot_events(png))
            else:
                for event in screenshot_events(png):
                    await app.view.show(event)
            await pilot.pause()
            block = app.query_one(ToolBlock)
            text = block.render().plain if hasattr(block.render(), "plain") else str(
                block.render())
            assert "▀" * 10 in text, resumed
            assert f"{png}  320x200 px" in text
            assert not block.expanded  # shown without expanding the block


async def test_a_deleted_screenshot_of_a_resumed_session_is_named(tmp_path):
    app = Panes()
    async with app.run_test(size=(100, 40)) as pilot:
        await app.view.restore(screenshot_events(str(tmp_path / "deleted.png")))
        await pilot.pause()
        text = str(app.query_one(ToolBlock).render())
        assert f"image {tmp_path / 'deleted.png'} missing" in text


@pytest.mark.usefixtures("project")
def test_snapshot_a_screenshot_in_the_conversation(snap_compare, fake_provider):
    """The workbench after a take_screenshot call: its line (✓ take_screenshot …) and under
    it the picture in four coloured quarters (red, green / blue, white), 64 cells wide,
    then its path and "320x200 px"."""
    png = str(quadrant_png(PROJECT / "shot.png"))

    async def run_before(pilot):
        await _steady(pilot)
        for event in [ev.UserMessage("what is on the screen?"), *screenshot_events(png)]:
            await pilot.app.view.show(event)
        await pilot.pause(0.3)

    assert snap_compare(snapshot_app(fake_provider), terminal_size=SIZE, run_before=run_before)
