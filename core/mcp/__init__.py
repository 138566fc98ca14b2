"""agent-tui's MCP client: the servers the person configures, their tools for the model.

Servers are configured as ``[mcp_servers.NAME]`` tables in the user's ``config.toml`` and,
once the person trusts the project, its ``.agent-tui/config.toml`` and ``.mcp.json``
(Claude Code's format); see :mod:`.loading` for the keys.

Use::

    configs, warnings = load_mcp_config(workdir)
    manager = McpManager(configs, log_dir, on_change=refresh)
    await manager.start()                        # never delays the first frame
    for info in manager.tools(): ...             # tools of the servers ready now
    result = await manager.call(info.server, info.name, {"q": "x"})   # McpError on failure
    await manager.close()                        # ends every server's process group

Stdio servers run in their own process group with stderr in ``log_dir/<name>.log``. A
server that stops while in use is restarted in the background (1 s, 2 s, 4 s... at most
60 s apart, 5 tries in a row); ``on_change`` is called on every change of state and when
a server's tools change (``notifications/tools/list_changed``: they are listed again).

Beyond tools, a server gets the project folder as its root, a person's answers to its forms
(elicitation) and the session's model (sampling, each request allowed by the person) as
the front end's :class:`McpHost` provides them; its log messages (level ``info`` and up) go
to its log and ``McpServer.log_messages``; calls carry a progress token. Tools that only run
as tasks (``execution.taskSupport`` = ``required``) are not offered (``task_tools``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import McpError
from .loading import load_mcp_config
from .server_config import McpServerConfig

if TYPE_CHECKING:
    from .host import (
        ElicitationAnswer,
        ElicitationRequest,
        McpHost,
        SamplingAnswer,
        SamplingRefused,
        SamplingRequest,
    )
    from .manager import McpManager
    from .prompts import McpPromptInfo
    from .results import McpCallResult, McpToolInfo
    from .server import McpServer, ServerState

# The SDK is slow to import: only what talks to servers loads it, on first use (reading the
# config does not, so a workbench without servers never pays it).
_LAZY = {
    "McpCallResult": ".results", "McpToolInfo": ".results", "McpManager": ".manager",
    "McpPromptInfo": ".prompts", "McpServer": ".server", "ServerState": ".server",
    "McpHost": ".host", "ElicitationRequest": ".host", "ElicitationAnswer": ".host",
    "SamplingRequest": ".host", "SamplingAnswer": ".host", "SamplingRefused": ".host",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ElicitationAnswer",
    "ElicitationRequest",
    "McpHost",
    "SamplingAnswer",
    "SamplingRefused",
    "SamplingRequest",
    "McpCallResult",
    "McpError",
    "McpManager",
    "McpPromptInfo",
    "McpServer",
    "McpServerConfig",
    "McpToolInfo",
    "ServerState",
    "load_mcp_config",
]
