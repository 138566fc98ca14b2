"""The tools every agent has, in the order they are offered to the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .background import BackgroundProcessTool
from .base import Tool
from .browser import browser_tools
from .code_search import CodeSearchTool
from .coverage import CoverageTool
from .delegate import DelegateTool
from .desktop import computer_control_tools, screen_tools
from .diff_edit import StrReplaceTool
from .edit_file import EditFileTool
from .gif_search import GifSearchTool
from .http_request import HttpRequestTool
from .images import ReadImageTool
from .internal_docs import GetInternalDocsTool
from .memory import memory_tools
from .read_file import ReadFileTool
from .read_many import ReadManyFilesTool
from .rehydrate import RehydrateTool
from .research import ResearchTool
from .search import GlobFilesTool, GrepTool, LsTool
from .shell import ShellTool
from .skills import ActivateSkillTool
from .task import TaskTool
from .todo import TodoReadTool, TodoWriteTool
from .web import WebFetchTool
from .web_search import WebSearchTool
from .write_file import WriteFileTool

if TYPE_CHECKING:
    from ..core.settings import Settings


def builtin_tools(settings: Settings | None = None, *, every: bool = False) -> list[Tool]:
    """Fresh instances of the built-in tools, files first, then search, code, processes,
    images and the screen, the web, sub-tasks, the agent's own bookkeeping (todos, memory,
    skills), and last the browser (``webdriver``) and desktop (``computer_control``) tools
    when the settings offer them. ``delegate`` is offered only where a delegate is
    configured (``core.runtime.delegate_offer``); ``every`` includes it.

    Args:
        settings: The run's settings (None: the defaults).
        every: Every built-in tool, whatever the settings say.
    """
    tools = [
        ReadFileTool(), ReadManyFilesTool(), WriteFileTool(), EditFileTool(), StrReplaceTool(),
        LsTool(), GlobFilesTool(), GrepTool(),
        CodeSearchTool(), CoverageTool(),
        ShellTool(), BackgroundProcessTool(),
        ReadImageTool(), *screen_tools(),
        WebFetchTool(), WebSearchTool(), ResearchTool(), HttpRequestTool(), GifSearchTool(),
        TaskTool(), TodoReadTool(), TodoWriteTool(),
        *memory_tools(), ActivateSkillTool(),
        RehydrateTool(), GetInternalDocsTool(),
    ]
    if every or getattr(settings, "webdriver", False):
        tools += browser_tools()
    if every or getattr(settings, "computer_control", False):
        tools += computer_control_tools()
    if every:
        tools.append(DelegateTool())
    return tools
