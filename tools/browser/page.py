"""Browser tools that work on the whole page: webdriver_execute_script,
webdriver_get_page_source and webdriver_screenshot."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field

from ...core.text.durable import write_atomically
from ..base import Confirmation, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from ..files import display_path
from ..images import image_size, in_temp_folder, saved_screenshot, screenshot_path
from ..names import ToolName
from .calls import BrowserInvocation
from .elements import page_for_approval
from .session import BrowserSession

MAX_SCRIPT_RESULT = 20_000
"""Characters of a script's JSON result returned at most."""


# -- webdriver_execute_script ------------------------------------------------------------


class ExecuteScriptParams(ToolParams):
    """Arguments of webdriver_execute_script."""

    script: str = Field(min_length=1, description="JavaScript run in the page as a function "
                        "body; `return` a value to get it back as JSON, e.g. "
                        "`return document.querySelectorAll('li').length`.")


def to_json(value: object) -> object:
    """A script's return value made JSON-ready (elements described, not referenced)."""
    from selenium.webdriver.remote.webelement import WebElement

    if isinstance(value, WebElement):
        return f"<{value.tag_name} element>"
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value


class WebdriverExecuteScriptTool(Tool):
    """Runs JavaScript in the page and returns its value as JSON."""

    name = ToolName.WEBDRIVER_EXECUTE_SCRIPT
    kind = ToolKind.COMPUTER
    ask_reason = "runs JavaScript in the browser"
    description = ("Run JavaScript in the browser's page (as a function body: use `return` "
                   "to get a value back, as JSON). A script that throws returns the "
                   "JavaScript error.")
    Params = ExecuteScriptParams

    def create_invocation(self, params: ExecuteScriptParams,
                          ctx: ToolContext) -> ExecuteScriptInvocation:
        """Make the invocation."""
        return ExecuteScriptInvocation(self, params, ctx)


class ExecuteScriptInvocation(BrowserInvocation[ExecuteScriptParams]):
    """One webdriver_execute_script call."""

    page = ""

    def describe(self) -> str:
        """E.g. ``webdriver_execute_script return document.title``."""
        first = self.params.script.strip().splitlines()[0]
        return f"webdriver_execute_script {first[:80]}"

    async def prepare(self) -> None:
        """Learn the page's address for the approval."""
        self.page = await page_for_approval(self)

    def confirmation(self) -> Confirmation:
        """The script and the page it runs in."""
        return Confirmation(title="Run JavaScript in the browser",
                            details=f"page: {self.page or '?'}\n\n{self.params.script}")

    def run(self, session: BrowserSession) -> ToolResult:
        """Run the script and return its value."""
        value = to_json(session.driver().execute_script(self.params.script))
        if value is None:
            return ToolResult(llm_content="The script ran and returned nothing (null).")
        text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
        if len(text) > MAX_SCRIPT_RESULT:
            text = (text[:MAX_SCRIPT_RESULT] + f"\n… cut: the value is {len(text):,} "
                    "characters as JSON; return less (a slice, a count, selected fields)")
        return ToolResult(llm_content=f"Returned:\n{text}")


# -- webdriver_get_page_source -----------------------------------------------------------


class PageSourceParams(ToolParams):
    """Arguments of webdriver_get_page_source."""

    max_length: int = Field(default=10_000, ge=0,
                            description="Characters returned at most (default 10000; 0 = all).")
    save_to_file: str | None = Field(
        default=None, description="Optional: save the whole HTML to this file (relative to "
                                  "the project folder) instead of returning it.")


class WebdriverGetPageSourceTool(Tool):
    """The page's rendered HTML (the DOM as it is now, after scripts ran)."""

    name = ToolName.WEBDRIVER_GET_PAGE_SOURCE
    kind = ToolKind.READ
    description = ("The rendered HTML of the browser's page (the DOM now, after scripts ran), "
                   "cut to max_length characters (default 10000, 0 for all), or saved whole "
                   "to a file with save_to_file (then read or grep that file).")
    Params = PageSourceParams

    def create_invocation(self, params: PageSourceParams,
                          ctx: ToolContext) -> PageSourceInvocation:
        """Make the invocation."""
        return PageSourceInvocation(self, params, ctx)


class PageSourceInvocation(BrowserInvocation[PageSourceParams]):
    """One webdriver_get_page_source call."""

    def describe(self) -> str:
        """E.g. ``webdriver_get_page_source → page.html``."""
        saved = f" → {self.params.save_to_file}" if self.params.save_to_file else ""
        return f"webdriver_get_page_source{saved}"

    def target(self) -> Path | None:
        """The file the source is saved to, or None."""
        return self.ctx.resolve(self.params.save_to_file) if self.params.save_to_file else None

    def locations(self) -> list[Path]:
        """The file it saves to (saving outside the project asks first)."""
        target = self.target()
        return [target] if target else []

    def run(self, session: BrowserSession) -> ToolResult:
        """Read the DOM; return it or save it."""
        source = session.driver().page_source
        target = self.target()
        if target is not None:
            if problem := check_overwrite(session, target, self.ctx):
                return ToolResult.failure(problem)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(target, source.encode("utf-8"))
            session.saved_files.add(target)
            return ToolResult(llm_content=(
                f"Saved the page's HTML ({len(source):,} characters) to "
                f"{display_path(self.ctx, target)}; read it with read_file or grep."))
        limit = self.params.max_length
        if limit and len(source) > limit:
            return ToolResult(llm_content=(
                f"{source[:limit]}\n… cut at {limit:,} of {len(source):,} characters: ask for "
                "more with max_length (0 = all), save it with save_to_file, or find elements "
                "with webdriver_find_elements."))
        return ToolResult(llm_content=source)


def check_overwrite(session: BrowserSession, target: Path, ctx: ToolContext) -> str | None:
    """Why ``target`` may not be written: a folder, or a file the browser tools did not save
    (files in the temp folder outside the project excepted: that is scratch space)."""
    if target.is_dir():
        return f"{display_path(ctx, target)} is a folder; name a file"
    scratch = in_temp_folder(target) and not target.is_relative_to(ctx.workdir)
    if target.exists() and target not in session.saved_files and not scratch:
        return (f"{display_path(ctx, target)} already exists and was not saved by the browser "
                "tools; choose a new file name (nothing was overwritten)")
    return None


# -- webdriver_screenshot ----------------------------------------------------------------


class ScreenshotParams(ToolParams):
    """Arguments of webdriver_screenshot."""

    path: str = Field(description="Where to save the PNG; a relative path or bare name goes "
                                  "to the temp folder ($TMPDIR), as take_screenshot does.")
    selector: str | None = Field(default=None, description="Optional: capture only the "
                                 "first element matching this CSS selector.")


class WebdriverScreenshotTool(Tool):
    """Saves a PNG of the browser's viewport (or of one element)."""

    repeatable = True  # polling: the same call may see something new
    name = ToolName.WEBDRIVER_SCREENSHOT
    kind = ToolKind.READ
    description = ("Save a PNG screenshot of the browser's page as it shows (the 1280x800 "
                   "viewport), or of one element with selector; you see the image when the "
                   "model takes images, and the person sees it in the conversation.")
    Params = ScreenshotParams

    def create_invocation(self, params: ScreenshotParams,
                          ctx: ToolContext) -> ScreenshotInvocation:
        """Make the invocation."""
        return ScreenshotInvocation(self, params, ctx)


class ScreenshotInvocation(BrowserInvocation[ScreenshotParams]):
    """One webdriver_screenshot call."""

    def describe(self) -> str:
        """E.g. ``webdriver_screenshot page.png``."""
        return f"webdriver_screenshot {self.params.path}"

    def target(self) -> Path:
        """Where the PNG goes."""
        return screenshot_path(self.params.path)

    def locations(self) -> list[Path]:
        """The PNG, unless it goes to the temp folder (scratch space; elsewhere outside the
        project, saving asks first)."""
        target = self.target()
        return [] if in_temp_folder(target) else [target]

    def run(self, session: BrowserSession) -> ToolResult:
        """Capture and save the PNG."""
        from selenium.webdriver.common.by import By

        target = self.target()
        if problem := check_overwrite(session, target, self.ctx):
            return ToolResult.failure(problem)
        session.fit_viewport()
        driver = session.driver()
        if self.params.selector:
            element = driver.find_element(By.CSS_SELECTOR, self.params.selector)
            png = element.screenshot_as_png
            what = f"the element `{self.params.selector}`"
        else:
            png = driver.get_screenshot_as_png()
            what = "the page"
        size = image_size(png, "image/png")
        pixels = f"{size[0]}x{size[1]} pixels" if size else "size unknown"
        text = (f"Saved a screenshot of {what} ({driver.current_url}) to {target}: PNG, "
                f"{pixels}, {len(png):,} bytes.")
        result = saved_screenshot(self.ctx, png, target, text)
        session.saved_files.add(target)
        return result

