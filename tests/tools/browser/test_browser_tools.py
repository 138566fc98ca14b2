"""The webdriver_* tools against real headless Chromium and a real local web site."""

from __future__ import annotations

import asyncio
import base64
import io
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from agent_tui.tools.base import ToolArgumentError

from .conftest import TOOLS, call, needs_browser

pytestmark = needs_browser


def group_processes(pgid: int) -> list[str]:
    """The live processes of process group ``pgid`` (zombies excluded)."""
    out = subprocess.run(["ps", "-eo", "pgid=,stat=,comm="], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines()
            if line.split()[0] == str(pgid) and not line.split()[1].startswith("Z")]


async def test_a_form_is_filled_and_submitted(ctx, site):
    opened = await call(ctx, "webdriver_navigate", url=site.base + "/form")
    assert opened.ok, opened.error
    assert "Chromium" in opened.llm_content and "Page: Sign up" in opened.llm_content
    typed = await call(ctx, "webdriver_send_keys", selector="input[name=email]",
                       text="ada@example.org")
    assert typed.ok and "Typed 15 characters" in typed.llm_content
    await call(ctx, "webdriver_send_keys", selector="input[name=age]", text="36")
    # clear_first=False types after what is there
    await call(ctx, "webdriver_send_keys", selector="input[name=age]", text="5",
               clear_first=False)
    sent = await call(ctx, "webdriver_click", selector="#send")
    assert sent.ok and "(the page changed)" in sent.llm_content
    assert "Page: Thanks" in sent.llm_content
    assert site.submissions == [{"email": ["ada@example.org"], "age": ["365"]}]
    assert (await call(ctx, "webdriver_get_title")).llm_content == "Thanks"
    assert (await call(ctx, "webdriver_get_url")).llm_content.startswith(site.base + "/submit?")


async def test_a_final_newline_presses_enter(ctx, site):
    await call(ctx, "webdriver_navigate", url=site.base)
    typed = await call(ctx, "webdriver_send_keys", selector="input[name=email]",
                       text="x@y.z\n")
    assert "pressed Enter" in typed.llm_content
    assert site.submissions == [{"email": ["x@y.z"]}]


async def test_a_click_changes_the_dom_and_find_describes_elements(ctx, site):
    await call(ctx, "webdriver_navigate", url=site.base)
    clicked = await call(ctx, "webdriver_click", selector="#more")
    assert clicked.ok and "(the page changed)" not in clicked.llm_content
    found = await call(ctx, "webdriver_find_elements", selector="#list li")
    assert found.ok
    assert found.llm_content.splitlines()[0] == "2 elements match `#list li`:"
    assert '"item 2" visible' in found.llm_content
    one = await call(ctx, "webdriver_find_element", selector="input")
    assert one.llm_content.startswith('<input name="email" placeholder="Email" value="">')
    assert "(the first of 2 matches)" in one.llm_content
    hidden = await call(ctx, "webdriver_find_element", selector="#hidden")
    assert hidden.llm_content == '<p id="hidden"> "secret" hidden at (0, 0) 0x0'


async def test_selectors_that_fail_say_what_to_do(ctx, site):
    await call(ctx, "webdriver_navigate", url=site.base)
    missing = await call(ctx, "webdriver_click", selector="#nope")
    assert missing.error.startswith("no element matches the selector `#nope`")
    bad = await call(ctx, "webdriver_find_elements", selector="div[[")
    assert bad.error.startswith("the selector `div[[` is not valid CSS")
    hidden = await call(ctx, "webdriver_click", selector="#hidden")
    assert "hidden, disabled or has no size" in hidden.error
    assert "Traceback" not in missing.llm_content + bad.llm_content + hidden.llm_content


async def test_scripts_return_json_and_their_errors(ctx, site):
    await call(ctx, "webdriver_navigate", url=site.base)
    value = await call(ctx, "webdriver_execute_script",
                       script="return {title: document.title, items: [1, 2], "
                              "el: document.querySelector('h1'), none: null}")
    assert value.ok
    assert '"title": "Sign up"' in value.llm_content and '"el": "<h1 element>"' in value.llm_content
    nothing = await call(ctx, "webdriver_execute_script", script="document.title = 'x'")
    assert nothing.llm_content == "The script ran and returned nothing (null)."
    thrown = await call(ctx, "webdriver_execute_script", script="throw new Error('kaboom')")
    assert thrown.error == "the script threw a JavaScript error: javascript error: kaboom"


async def test_back_forward_and_refresh(ctx, site):
    await call(ctx, "webdriver_navigate", url=site.base)
    await call(ctx, "webdriver_click", selector="#next")
    back = await call(ctx, "webdriver_back")
    assert back.llm_content == f"Page: Sign up — {site.base}/"
    forward = await call(ctx, "webdriver_forward")
    assert forward.llm_content == f"Page: Second — {site.base}/second"
    served = site.paths.count("/second")
    refreshed = await call(ctx, "webdriver_refresh")
    assert refreshed.ok and site.paths.count("/second") == served + 1


async def test_page_source_is_cut_or_saved_whole(ctx, site, tmp_path):
    await call(ctx, "webdriver_navigate", url=site.base)
    cut = await call(ctx, "webdriver_get_page_source")
    head, note = cut.llm_content.split("\n… cut at ")
    assert len(head) == 10_000 and note.startswith("10,000 of ")
    whole = await call(ctx, "webdriver_get_page_source", max_length=0)
    assert "filler text" in whole.llm_content and "… cut" not in whole.llm_content
    saved = await call(ctx, "webdriver_get_page_source", save_to_file="pages/signup.html")
    assert saved.ok and "to pages/signup.html" in saved.llm_content
    assert (tmp_path / "pages/signup.html").read_text() == whole.llm_content
    # the tools may save over their own file, never over someone else's
    assert (await call(ctx, "webdriver_get_page_source", save_to_file="pages/signup.html")).ok
    (tmp_path / "notes.md").write_text("mine")
    refused = await call(ctx, "webdriver_get_page_source", save_to_file="notes.md")
    assert "already exists" in refused.error and (tmp_path / "notes.md").read_text() == "mine"


async def test_a_screenshot_is_a_png_of_the_page_size(ctx, site, tmp_path):
    from PIL import Image

    await call(ctx, "webdriver_navigate", url=site.base)
    shot = await call(ctx, "webdriver_screenshot", path=str(tmp_path / "page.png"))
    assert shot.ok, shot.error
    with Image.open(tmp_path / "page.png") as image:
        assert image.size == (1280, 800) and image.format == "PNG"
    assert shot.image_files == [str(tmp_path / "page.png")]
    assert shot.images and base64.b64decode(shot.images[0].data_base64)[:4] == b"\x89PNG"
    part = await call(ctx, "webdriver_screenshot", path=str(tmp_path / "h1.png"),
                      selector="#heading")
    with Image.open(io.BytesIO((tmp_path / "h1.png").read_bytes())) as image:
        assert image.size[0] < 1280 and image.size[1] < 100
    assert "the element `#heading`" in part.llm_content


async def test_relative_screenshot_paths_go_to_the_temp_folder(ctx, site, tmp_path,
                                                             monkeypatch):
    import tempfile

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    await call(ctx, "webdriver_navigate", url=site.base)
    shot = await call(ctx, "webdriver_screenshot", path="shot")
    assert shot.image_files == [str(scratch / "shot.png")]
    assert TOOLS["webdriver_screenshot"].build({"path": "x.png"}, ctx).locations() == []


async def test_remote_pages_need_the_network_and_odd_schemes_are_refused(ctx, site):
    with pytest.raises(ToolArgumentError, match="network tools are off"):
        TOOLS["webdriver_navigate"].build({"url": "https://example.org"}, ctx)
    with pytest.raises(ToolArgumentError, match="cannot be opened"):
        TOOLS["webdriver_navigate"].build({"url": "javascript:alert(1)"}, ctx)
    # loopback and file:// always open; a bare host:port gets http://
    port = site.base.rsplit(":", 1)[1]
    invocation = TOOLS["webdriver_navigate"].build({"url": f"localhost:{port}/x"}, ctx)
    assert invocation.params.url == f"http://localhost:{port}/x"
    page = ctx.workdir / "page.html"
    page.write_text("<title>Local file</title>")
    opened = await call(ctx, "webdriver_navigate", url=page.as_uri())
    assert opened.llm_content.endswith(f"Page: Local file — {page.as_uri()}")


async def test_the_browser_offline_cannot_reach_past_loopback(ctx, site):
    """With the network off even a script's request to another host goes nowhere."""
    await call(ctx, "webdriver_navigate", url=site.base)
    fetched = await call(ctx, "webdriver_execute_script", script=(
        "return await fetch('http://192.0.2.1/').then(() => 'reached', e => 'blocked: ' + e)"))
    assert '"blocked: TypeError: Failed to fetch"' in fetched.llm_content
    local = await call(ctx, "webdriver_execute_script", script=(
        f"return await fetch('{site.base}/second').then(r => r.status)"))
    assert local.llm_content == "Returned:\n200"


async def test_turning_the_network_on_restarts_the_browser_on_the_next_navigation(ctx, site):
    await call(ctx, "webdriver_navigate", url=site.base)
    ctx.network_enabled = True
    again = await call(ctx, "webdriver_navigate", url=site.base + "/second")
    assert again.llm_content.startswith("The network was turned on since the browser started")
    assert "network on" in again.llm_content


async def test_a_page_that_never_loads_times_out(ctx, site):
    slow = await call(ctx, "webdriver_navigate", url=site.base + "/slow", timeout=1)
    assert slow.error.startswith(f"{site.base}/slow did not finish loading within 1 s")
    assert (await call(ctx, "webdriver_get_title")).ok  # the browser is still usable


async def test_tools_need_a_started_browser_and_quit_leaves_nothing(ctx, site):
    early = await call(ctx, "webdriver_get_title")
    assert early.error.startswith("no browser is running; call webdriver_start")
    started = await call(ctx, "webdriver_start", url=site.base)
    assert started.ok and "Page: Sign up" in started.llm_content
    pgid = ctx.browser._driver_pid
    assert group_processes(pgid)
    quit_ = await call(ctx, "webdriver_quit")
    assert quit_.llm_content == "The browser was closed."
    assert group_processes(pgid) == []
    assert (await call(ctx, "webdriver_quit")).llm_content.startswith("No browser was running")


async def test_a_crashed_browser_is_reported_and_started_again(ctx, site):
    await call(ctx, "webdriver_navigate", url=site.base)
    pgid = ctx.browser._driver_pid
    os.killpg(pgid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while group_processes(pgid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    gone = await call(ctx, "webdriver_get_title")
    assert gone.error.startswith("the browser crashed or was closed outside agent-tui")
    restarted = await call(ctx, "webdriver_start", url=site.base)
    assert restarted.ok and "Page: Sign up" in restarted.llm_content


async def test_cancelling_a_hung_call_ends_the_browser(ctx, site):
    await call(ctx, "webdriver_navigate", url=site.base)
    pgid = ctx.browser._driver_pid
    hung = asyncio.create_task(call(ctx, "webdriver_execute_script", script="while (true) {}"))
    await asyncio.sleep(1)
    hung.cancel()
    with pytest.raises(asyncio.CancelledError):
        await hung
    deadline = time.monotonic() + 5
    while group_processes(pgid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert group_processes(pgid) == []
    assert (await call(ctx, "webdriver_get_title")).error.startswith(
        "the browser was ended when a call that hung was cancelled")
    again = await call(ctx, "webdriver_navigate", url=site.base)
    assert again.ok, again.error


def test_no_browser_outlives_a_killed_agent_tui(tmp_path):
    """SIGKILL leaves no exit handler to run: the watchdog ends the browser's group."""
    script = textwrap.dedent("""
        import os, signal
        from agent_tui.tools.browser.session import BrowserOptions, BrowserSession
        session = BrowserSession()
        session.start(BrowserOptions())
        print(session._driver_pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == -signal.SIGKILL
    pgid = int(done.stdout.strip())
    deadline = time.monotonic() + 5
    while group_processes(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert group_processes(pgid) == []


async def test_missing_chromium_says_what_to_install(tmp_path, site):
    from agent_tui.tools.base import ToolContext

    class Settings:
        chromium_path = str(tmp_path / "no-such-chromium")
        chromedriver_path = None
        chrome_headless = True

    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / ".out", settings=Settings())
    result = await call(ctx, "webdriver_navigate", url=site.base)
    assert result.error.startswith("no Chromium browser was found")
    assert "apt-get install chromium chromium-driver" in result.error


async def test_a_visible_browser_without_a_display_is_refused_clearly(ctx, site, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    result = await call(ctx, "webdriver_start", headless=False)
    assert result.error.startswith("a visible browser needs a display")
    assert "Xvfb" in result.error
