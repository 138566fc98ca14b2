"""The browser and screen tools against bare Selenium and bare mss, in the same run.

- cold start: ``webdriver_start`` (the tool, from nothing to a usable browser) beside
  ``webdriver.Chrome(...)`` with the same browser, driver and flags;
- round trip: navigate to a local page, find an element, click a button (which changes
  the page without navigating) with the tools, beside ``driver.get`` +
  ``find_element`` + ``click`` on a bare driver — both on an already started browser;
- screenshot: ``take_screenshot`` of a 1920x1080 Xvfb display (capture, PNG, atomic save,
  the image attached for the model) beside a bare ``mss`` grab and ``mss.tools.to_png``.

Rounds of ours and the baseline alternate, one browser running at a time. Goals: start and round trip within 1.2x of bare
Selenium, the screenshot within 1.5x of bare mss.

Usage: python3 benchmarks/browser.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from agent_tui.tools.base import ToolContext
from agent_tui.tools.browser import browser_tools
from agent_tui.tools.browser.session import _FLAGS, WINDOW_SIZE
from agent_tui.tools.desktop import TakeScreenshotTool

PAGE = (b"<!doctype html><title>Bench</title><h1 id=h>Bench</h1>"
        b"<button id=b onclick=\"document.getElementById('h').textContent='clicked'\">"
        b"Click</button>")
START_GOAL, ROUND_TRIP_GOAL, SCREENSHOT_GOAL = 1.2, 1.2, 1.5
TOOLS = {tool.name: tool for tool in browser_tools()}


class Page(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)


def serve() -> str:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def bare_driver():
    """A bare Selenium Chrome with the flags the tools use (and nothing of ours)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = shutil.which("chromium")
    for flag in (*_FLAGS, "--headless=new", f"--window-size={WINDOW_SIZE[0]},{WINDOW_SIZE[1]}",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='bench-chromium-')}"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))


def bare_round_trip(driver, url: str) -> None:  # noqa: ANN001
    """What the tools' round trip does, on a bare driver."""
    driver.get(url)
    driver.find_element("css selector", "#h").text  # noqa: B018
    driver.find_element("css selector", "#b").click()


async def call(ctx: ToolContext, name: str, **args: object) -> None:
    result = await TOOLS[name].build(args, ctx).execute()
    assert result.ok, result.error


def ms(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:7.1f} ms"


def verdict(ours: list[float], base: list[float], goal: float) -> str:
    ratio = statistics.median(ours) / statistics.median(base)
    return f"{ratio:4.2f}x  (goal <= {goal}x: {'PASS' if ratio <= goal else 'MISS'})"


async def bench_browser(rounds: int) -> None:
    url = serve()
    with tempfile.TemporaryDirectory() as folder:
        ctx = ToolContext(workdir=Path(folder), output_dir=Path(folder) / "out")
        ours_start, bare_start, ours_trip, bare_trip = [], [], [], []
        for _ in range(rounds):  # one browser at a time: ours, then the bare one
            began = time.perf_counter()
            await call(ctx, "webdriver_start")
            ours_start.append(time.perf_counter() - began)
            for _ in range(5):
                began = time.perf_counter()
                await call(ctx, "webdriver_navigate", url=url)
                await call(ctx, "webdriver_find_element", selector="#h")
                await call(ctx, "webdriver_click", selector="#b")
                ours_trip.append(time.perf_counter() - began)
            await call(ctx, "webdriver_quit")
            began = time.perf_counter()
            driver = await asyncio.to_thread(bare_driver)
            bare_start.append(time.perf_counter() - began)
            for _ in range(5):
                began = time.perf_counter()
                await asyncio.to_thread(bare_round_trip, driver, url)
                bare_trip.append(time.perf_counter() - began)
            await asyncio.to_thread(driver.quit)
        print(f"cold start   ours {ms(ours_start)}   bare selenium {ms(bare_start)}   "
              f"{verdict(ours_start, bare_start, START_GOAL)}")
        print(f"round trip   ours {ms(ours_trip)}   bare selenium {ms(bare_trip)}   "
              f"{verdict(ours_trip, bare_trip, ROUND_TRIP_GOAL)}")


async def bench_screenshot(rounds: int) -> None:
    if not shutil.which("Xvfb"):
        print("screenshot   skipped: Xvfb is not installed")
        return
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0",
                               "1920x1080x24", "-nolisten", "tcp"], pass_fds=(write,),
                              stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as numbers:
        os.environ["DISPLAY"] = ":" + numbers.readline().strip()
    os.environ.pop("XAUTHORITY", None)
    import mss
    import mss.tools

    deadline = time.monotonic() + 10
    while True:  # another X server may have just left that number: wait until it answers
        try:
            with mss.MSS():
                break
        except mss.exception.ScreenShotError:
            assert time.monotonic() < deadline, "the Xvfb never answered"
            time.sleep(0.1)
    try:
        with tempfile.TemporaryDirectory() as folder:
            ctx = ToolContext(workdir=Path(folder), output_dir=Path(folder),
                              supports_images=True)
            tool = TakeScreenshotTool()
            ours, bare = [], []
            for index in range(rounds * 5):
                began = time.perf_counter()
                result = await tool.build({"path": f"{folder}/s{index}.png"}, ctx).execute()
                ours.append(time.perf_counter() - began)
                assert result.ok, result.error

                def bare_shot() -> bytes:
                    with mss.MSS() as screen:
                        shot = screen.grab(screen.monitors[1])
                        return mss.tools.to_png(shot.rgb, shot.size)

                began = time.perf_counter()
                await asyncio.to_thread(bare_shot)
                bare.append(time.perf_counter() - began)
        print(f"screenshot   ours {ms(ours)}   bare mss      {ms(bare)}   "
              f"{verdict(ours, bare, SCREENSHOT_GOAL)}  (1920x1080)")
    finally:
        server.terminate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        print("browser      skipped: apt-get install chromium chromium-driver")
    else:
        asyncio.run(bench_browser(args.rounds))
    asyncio.run(bench_screenshot(args.rounds))


if __name__ == "__main__":
    main()
