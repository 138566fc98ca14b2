"""The names of the built-in tools, and the groups of them the engine treats alike.

Every module that needs to know a tool by name (permissions, rules, session history, the
text protocol's aliases) takes it from here, so a tool is renamed in one place. Tools not
built in (MCP, discovered, skill tools) have names of their own and are in no group.
"""

from __future__ import annotations

from enum import StrEnum


class ToolName(StrEnum):
    """The name of each built-in tool, as the model calls it."""

    READ_FILE = "read_file"
    READ_MANY_FILES = "read_many_files"
    WRITE_FILE = "write_file"
    EDIT_FILE = "edit_file"
    STR_REPLACE = "str_replace"
    LS = "ls"
    GLOB_FILES = "glob_files"
    GREP = "grep"
    CODE_SEARCH = "code_search"
    CODE_COVERAGE = "code_coverage"
    SHELL = "shell"
    BACKGROUND_PROCESS = "background_process"
    READ_IMAGE = "read_image"
    WEB_FETCH = "web_fetch"
    WEB_SEARCH = "web_search"
    RESEARCH = "research"
    TASK = "task"
    DELEGATE = "delegate"
    TODO_READ = "todo_read"
    TODO_WRITE = "todo_write"
    REHYDRATE = "rehydrate"
    ACTIVATE_SKILL = "activate_skill"
    REMEMBER = "remember"
    MEMORY_SET = "memory_set"
    MEMORY_GET = "memory_get"
    MEMORY_SEARCH = "memory_search"
    HTTP_REQUEST = "http_request"
    GIF_SEARCH = "gif_search"
    GET_INTERNAL_DOCS = "get_internal_docs"
    TAKE_SCREENSHOT = "take_screenshot"
    LIST_WINDOWS = "list_windows"
    MOUSE_CLICK = "mouse_click"
    TYPE_TEXT = "type_text"
    FIND_ELEMENT = "find_element"
    WEBDRIVER_START = "webdriver_start"
    WEBDRIVER_NAVIGATE = "webdriver_navigate"
    WEBDRIVER_GET_URL = "webdriver_get_url"
    WEBDRIVER_GET_TITLE = "webdriver_get_title"
    WEBDRIVER_FIND_ELEMENT = "webdriver_find_element"
    WEBDRIVER_FIND_ELEMENTS = "webdriver_find_elements"
    WEBDRIVER_CLICK = "webdriver_click"
    WEBDRIVER_SEND_KEYS = "webdriver_send_keys"
    WEBDRIVER_EXECUTE_SCRIPT = "webdriver_execute_script"
    WEBDRIVER_GET_PAGE_SOURCE = "webdriver_get_page_source"
    WEBDRIVER_SCREENSHOT = "webdriver_screenshot"
    WEBDRIVER_BACK = "webdriver_back"
    WEBDRIVER_FORWARD = "webdriver_forward"
    WEBDRIVER_REFRESH = "webdriver_refresh"
    WEBDRIVER_QUIT = "webdriver_quit"


EDIT_TOOLS: frozenset[str] = frozenset(
    {ToolName.WRITE_FILE, ToolName.EDIT_FILE, ToolName.STR_REPLACE})
"""Tools that change the content of the one file their ``file_path`` names; a rule naming
any of them covers every write of a file."""
READ_TOOLS: frozenset[str] = frozenset({ToolName.READ_FILE})
"""The tool that reads the one file its ``file_path`` names; a rule naming it covers every
read of a file (read tools, shell commands, ``<`` redirections)."""
FOLDER_READING_TOOLS: frozenset[str] = frozenset(
    {ToolName.GREP, ToolName.CODE_SEARCH, ToolName.READ_MANY_FILES})
"""Tools that read the files inside the folders they are given."""
COMMAND_TOOLS: frozenset[str] = frozenset({ToolName.SHELL, ToolName.BACKGROUND_PROCESS})
"""Tools that run a bash command line, judged part by part."""
COMMAND_RULE_TOOL: str = ToolName.SHELL
"""The tool rules name for commands: a ``shell(...)`` rule covers every command tool."""
PREVIEW_TOOLS: frozenset[str] = COMMAND_TOOLS
"""Tools whose command a person may first run in a throwaway copy of the project."""
