"""MCP servers reached over HTTP: streamable HTTP and SSE, each run in a subprocess."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.mcp import McpError, McpServerConfig

from .conftest import MakeManager
from .servers import DEMO_TOOLS, free_port, start_http_server


@pytest.fixture(params=[("http", "streamable-http", "/mcp"), ("sse", "sse", "/sse")],
                ids=["streamable-http", "sse"])
def http_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[McpServerConfig]:
    """The demo server listening on a free port, and a config that reaches it."""
    transport, run_as, path = request.param
    port = free_port()
    process = start_http_server(tmp_path, run_as, port)
    try:
        yield McpServerConfig(name="web", transport=transport, source=tmp_path / "config.toml",
                              url=f"http://127.0.0.1:{port}{path}",
                              headers={"X-Test": "1"})
    finally:
        process.kill()
        process.wait()


async def test_tools_are_listed_and_called(manager: MakeManager,
                                           http_server: McpServerConfig) -> None:
    mcp = manager(http_server)
    await mcp.start()
    await mcp.wait_ready(20)
    assert (mcp.servers["web"].state, mcp.servers["web"].error) == ("ready", "")
    assert sorted(tool.name for tool in mcp.tools()) == sorted(DEMO_TOOLS)
    assert (await mcp.call("web", "echo", {"text": "over http"})).text == "over http"
    refused = await mcp.call("web", "refuse", {})
    assert refused.is_error and "refuses politely" in refused.text
    assert mcp.servers["web"].stderr_tail() == ""


async def test_a_server_nobody_runs_fails_clearly(manager: MakeManager, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    mcp = manager(McpServerConfig(name="nobody", transport="http", url=url,
                                  source=tmp_path / "config.toml"))
    await mcp.start()
    await mcp.wait_ready(20)
    server = mcp.servers["nobody"]
    assert server.state == "failed"
    assert f"the MCP server nobody ({url}) could not be reached" in server.error
    with pytest.raises(McpError, match="the MCP server nobody is not running"):
        await mcp.call("nobody", "echo", {"text": "x"})


@pytest.mark.parametrize(("transport", "run_as", "path"),
                         [("http", "streamable-http", "/mcp"), ("sse", "sse", "/sse")],
                         ids=["streamable-http", "sse"])
async def test_a_server_that_goes_away_is_reconnected(
        manager: MakeManager, tmp_path: Path, capfd: pytest.CaptureFixture[str],
        transport: str, run_as: str, path: str) -> None:
    port = free_port()
    process = start_http_server(tmp_path, run_as, port)
    mcp = manager(McpServerConfig(name="web", transport=transport,  # type: ignore[arg-type]
                                  url=f"http://127.0.0.1:{port}{path}",
                                  source=tmp_path / "config.toml"))
    try:
        await mcp.start()
        await mcp.wait_ready(20)
        process.kill()
        process.wait()
        with pytest.raises(McpError, match=r"the MCP server web .*it is being restarted"):
            await mcp.call("web", "echo", {"text": "anyone?"})
        process = start_http_server(tmp_path, run_as, port)
        assert (await mcp.call("web", "echo", {"text": "back"})).text == "back"
    finally:
        process.kill()
        process.wait()
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")  # the SDK's tracebacks never reach the terminal
