"""Real MCP servers for the tests: small scripts written with the SDK's ``MCPServer``, and
configs that start them with this Python."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from agent_tui.core.mcp import McpServerConfig

DEMO_SERVER = '''
import os, subprocess, sys, time
print("demo server: starting", file=sys.stderr, flush=True)  # before the slow imports
if os.environ.get("DEMO_HANG"):
    time.sleep(3600)
import mcp_types as types
from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("demo")

@server.tool()
def echo(text: str, times: int = 1) -> str:
    """Echo the text back."""
    return " ".join([text] * times)

@server.tool()
def picture() -> list:
    """A caption and a tiny PNG."""
    return ["a red dot", Image(data=b"\\x89PNG\\r\\n\\x1a\\nfake", format="png")]

@server.tool()
def refuse() -> str:
    """Always fails."""
    raise ToolError("the demo refuses politely")

@server.tool()
def document() -> list:
    """An embedded text resource."""
    return [types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
        uri="file:///notes.txt", mime_type="text/plain", text="the notes' text"))]

@server.tool()
def crash() -> str:
    """Exit at once, as a crashing server does."""
    print("demo server: crashing now", file=sys.stderr, flush=True)
    os._exit(3)

@server.tool()
def slow(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "done"

@server.tool()
def pids() -> str:
    """This process's id and a child's that it leaves running."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    return f"{os.getpid()} {child.pid}"

@server.tool()
def env(name: str) -> str:
    """An environment variable's value."""
    return os.environ.get(name, "<unset>")

if len(sys.argv) > 2 and sys.argv[1] in ("streamable-http", "sse"):
    server.run(sys.argv[1], host="127.0.0.1", port=int(sys.argv[2]))
else:
    server.run()
'''

DEMO_TOOLS = ["echo", "picture", "refuse", "document", "crash", "slow", "pids", "env"]


def demo_script(folder: Path) -> Path:
    """Write the demo server into ``folder``."""
    path = folder / "demo_server.py"
    path.write_text(DEMO_SERVER)
    return path


def stdio_config(folder: Path, name: str = "demo", **keys: object) -> McpServerConfig:
    """A config that runs the demo server over stdio."""
    return McpServerConfig(name=name, transport="stdio", source=folder / "config.toml",
                           command=sys.executable, args=(str(demo_script(folder)),),
                           **keys)  # type: ignore[arg-type]


def free_port() -> int:
    """A local TCP port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_http_server(folder: Path, transport: str, port: int,
                      within: float = 20.0) -> subprocess.Popen[bytes]:
    """Run the demo server over HTTP (``streamable-http`` or ``sse``) and wait for its port."""
    log = (folder / f"http-{port}.log").open("wb")
    process = subprocess.Popen([sys.executable, str(demo_script(folder)), transport, str(port)],
                               stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"the HTTP demo server did not listen on {port}: "
                       f"{(folder / f'http-{port}.log').read_text()}")
