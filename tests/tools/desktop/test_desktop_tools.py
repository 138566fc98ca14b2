"""The desktop tools on a real Xvfb display, against a real Tk program."""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
import sys
import tempfile

import pytest
from PIL import Image

from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry

from .conftest import SCREEN, needs_xvfb

pytestmark = needs_xvfb
REGISTRY = ToolRegistry(builtin_tools(every=True))


async def call(ctx: ToolContext, name: str, **args: object):
    """Build and run one call through the registry, as the engine does."""
    return await REGISTRY.build(name, args, ctx).execute()


async def test_list_windows_finds_the_app_with_its_geometry_and_program(ctx, tk_app):
    listed = await call(ctx, "list_windows")
    assert listed.ok, listed.error
    line = next(line for line in listed.llm_content.splitlines() if "agent-tui test app" in line)
    assert "at (100, 120) 360x200" in line
    assert f"program python{sys.version_info.major}" in line or "program python" in line
    assert f"(pid {tk_app.process.pid})" in line


async def test_a_window_screenshot_has_its_size_and_its_pixels(ctx, tk_app, tmp_path):
    shot = await call(ctx, "take_screenshot", path=str(tmp_path / "app.png"),
                      window_id="agent-tui test")
    assert shot.ok, shot.error
    assert shot.image_files == [str(tmp_path / "app.png")]
    with Image.open(tmp_path / "app.png") as image:
        assert image.size == (360, 200)
        assert image.convert("RGB").getpixel((5, 190)) == (0xD9, 0xD9, 0xD9)  # its background
    assert "360x200 pixels from screen position (100, 120)" in shot.llm_content
    sent = base64.b64decode(shot.images[0].data_base64)
    assert sent == (tmp_path / "app.png").read_bytes()
    # by its id, as list_windows shows it
    listed = await call(ctx, "list_windows")
    window_id = next(line for line in listed.llm_content.splitlines()
                     if "agent-tui test app" in line).split()[1]
    by_id = await call(ctx, "take_screenshot", path=str(tmp_path / "id.png"), window_id=window_id)
    assert by_id.ok and "360x200" in by_id.llm_content


async def test_screen_and_region_captures_and_the_temp_folder(ctx, tk_app, tmp_path,
                                                             monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    whole = await call(ctx, "take_screenshot", path="whole")
    assert whole.image_files == [str(scratch / "whole.png")]
    with Image.open(scratch / "whole.png") as image:
        assert image.size == SCREEN
    region = await call(ctx, "screenshot", region={"x": 100, "y": 120, "width": 50, "height": 40})
    with Image.open(region.image_files[0]) as image:
        assert image.size == (50, 40)
        assert image.convert("RGB").getpixel((2, 2)) == (0xD9, 0xD9, 0xD9)
    assert region.image_files[0].startswith(str(scratch / "screenshot-"))
    off = await call(ctx, "take_screenshot", region={"x": 1200, "y": 0, "width": 200,
                                                    "height": 10})
    assert "does not fit in monitor 1, which is 1280x800" in off.error


async def test_a_model_without_images_still_gets_the_file(tk_app, tmp_path):
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / ".out", supports_images=False)
    shot = await call(ctx, "take_screenshot", path=str(tmp_path / "s.png"))
    assert shot.ok and not shot.images and shot.image_files
    assert "cannot take images" in shot.llm_content


async def test_mouse_click_presses_the_button(ctx, tk_app):
    x, y = tk_app.centre("button")
    clicked = await call(ctx, "mouse_click", x=x, y=y)
    assert clicked.llm_content == f"Clicked the left button at ({x}, {y})."
    assert tk_app.expect("clicked") == "clicked"


async def test_type_text_fills_the_focused_entry_even_beyond_ascii(ctx, tk_app):
    x, y = tk_app.centre("entry")
    await call(ctx, "mouse_click", x=x, y=y)
    typed = await call(ctx, "type_text", text="café <42>")
    assert typed.ok, typed.error
    line = ""
    while line != "entry: café <42>":
        line = tk_app.expect("entry: ")


async def test_find_element_finds_the_button_by_its_label(ctx, tk_app):
    found = await call(ctx, "find_element", text="press me")
    assert found.ok, found.error
    cx, cy = (int(n) for n in found.llm_content.split("mouse_click with x=")[1]
              .rstrip(".").split(", y="))
    bx, by, bw, bh = tk_app.geometry["button"]
    assert bx <= cx < bx + bw and by <= cy < by + bh
    in_window = await call(ctx, "find_element", text="Press", window_id="agent-tui test app")
    assert in_window.ok, in_window.error
    missing = await call(ctx, "find_element", text="Launch rockets")
    assert missing.error.startswith("'Launch rockets' was not found on monitor 1")
    assert "'Press'" in missing.error


async def test_errors_name_the_window_and_the_screen(ctx, tk_app):
    nowhere = await call(ctx, "take_screenshot", window_id="0x7777777")
    assert nowhere.error.startswith("no window matches '0x7777777'; the windows are:")
    assert "agent-tui test app" in nowhere.error
    off = await call(ctx, "mouse_click", x=5000, y=10)
    assert off.error == "(5000, 10) is off the screen, which is 1280x800 (x 0-1279, y 0-799)"
    corner = await call(ctx, "mouse_click", x=0, y=0)
    assert "is a corner of the screen, pyautogui's fail-safe" in corner.error


async def test_without_a_display_every_tool_says_how_to_get_one(ctx, monkeypatch, tmp_path):
    monkeypatch.delenv("DISPLAY", raising=False)
    for name, args in (("take_screenshot", {}), ("list_windows", {}),
                       ("mouse_click", {"x": 1, "y": 1}), ("type_text", {"text": "x"}),
                       ("find_element", {"text": "x"})):
        result = await call(ctx, name, **args)
        assert result.error.startswith("there is no display: DISPLAY is not set"), name
        assert "Xvfb :99" in result.error
    monkeypatch.setenv("DISPLAY", ":1")
    monkeypatch.setenv("XAUTHORITY", str(tmp_path / "missing"))
    result = await call(ctx, "list_windows")
    assert result.error.startswith(f"XAUTHORITY names {tmp_path / 'missing'}, which does not")


def test_nothing_reaches_stdout_from_xlib(display):
    """python-xlib prints warnings to stdout, which is headless mode's JSON stream."""
    script = ("import asyncio\nfrom pathlib import Path\n"
              "from agent_tui.tools.base import ToolContext\n"
              "from agent_tui.tools.desktop import ListWindowsTool\n"
              "ctx = ToolContext(workdir=Path('.'), output_dir=Path('.'))\n"
              "result = asyncio.run(ListWindowsTool().build({}, ctx).execute())\n"
              "assert result.ok, result.error\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def test_pixels_of_a_capture_are_the_screens(display):
    from agent_tui.tools.desktop.screen import grab

    shot = grab(0, 0, 16, 16, "corner")
    with Image.open(io.BytesIO(shot.png)) as image:
        assert image.size == (16, 16) and image.mode == "RGB"


@pytest.mark.parametrize("alias", ["screenshot", "take_screenshot"])
def test_egirls_name_is_the_same_tool(alias, ctx):
    invocation = REGISTRY.build(alias, {"display": "1"}, ctx)
    assert invocation.tool.name == "take_screenshot"


@pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("chromedriver")),
                    reason="Chromium and chromedriver are not installed")
async def test_a_visible_browser_opens_on_the_display(ctx, display, tmp_path):
    from agent_tui.tools.browser import browser_tools

    tools = {tool.name: tool for tool in browser_tools()}
    page = tmp_path / "page.html"
    page.write_text("<title>Visible page</title><h1>hello</h1>")
    try:
        started = await tools["webdriver_start"].build(
            {"headless": False, "url": page.as_uri()}, ctx).execute()
        assert started.ok, started.error
        assert "(visible, network off" in started.llm_content
        listed = await call(ctx, "list_windows")
        assert "Visible page" in listed.llm_content and "program chromium" in listed.llm_content
    finally:
        ctx.close()
