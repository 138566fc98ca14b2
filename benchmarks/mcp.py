"""An MCP tool call through agent-tui beside the same call through the bare SDK client, and
the first frame with five MCP servers configured beside none, in the same run.

    python3 benchmarks/mcp.py [--calls 200] [--runs 6]

(a) Round trip: one stdio server written with the SDK (the tests' demo server), its ``echo``
tool called ``--calls`` times (after 10 warm-ups) three ways, taking turns: the
``mcp__demo__echo`` tool built and executed as the engine does (through ``McpManager``), the
manager's ``call`` alone, and the SDK's own ``ClientSession`` over ``stdio_client`` (the
baseline). Goal: our p50 within 1.2x the baseline's plus 5 ms.

(b) First frame: ``benchmarks/tui_startup.py``'s measure (the real binary on a pty, until the
status bar is drawn) with five stdio servers configured in the user's config.toml beside
none. Goal: unchanged (at most 1.10x): servers start after the first frame.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
HERE = REPO / "benchmarks"
# Run as a script, this file's folder comes first on the path, and its name would hide the
# mcp package itself.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(REPO))

from tests.core.mcp.servers import demo_script  # noqa: E402


def _first_frame_seconds() -> Any:
    """``benchmarks/tui_startup.py``'s measure of the first frame."""
    spec = importlib.util.spec_from_file_location("tui_startup", HERE / "tui_startup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.first_frame_seconds

GOAL_RATIO, GOAL_PLUS_MS, GOAL_FRAME = 1.2, 5.0, 1.10


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def round_trips(folder: Path, calls: int) -> dict[str, list[float]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from agent_tui.core.mcp import McpManager, McpServerConfig
    from agent_tui.tools.base import ToolContext
    from agent_tui.tools.mcp import mcp_tools

    script = demo_script(folder)
    config = McpServerConfig(name="demo", transport="stdio", source=folder / "config.toml",
                             command=sys.executable, args=(str(script),))
    manager = McpManager([config], folder / "logs")
    await manager.start()
    await manager.wait_ready(30)
    tool = next(t for t in mcp_tools(manager) if t.name == "mcp__demo__echo")
    ctx = ToolContext(workdir=folder, output_dir=folder / "out")
    times: dict[str, list[float]] = {"tool": [], "manager": [], "sdk": []}
    params = StdioServerParameters(command=sys.executable, args=[str(script)])
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            for i in range(calls + 10):
                args = {"text": f"ping {i}"}
                began = time.perf_counter()
                result = await tool.build(args, ctx).execute()
                tool_time = time.perf_counter() - began
                assert result.ok, result.llm_content
                began = time.perf_counter()
                await manager.call("demo", "echo", args)
                manager_time = time.perf_counter() - began
                began = time.perf_counter()
                await session.call_tool("echo", args)
                sdk_time = time.perf_counter() - began
                if i >= 10:
                    times["tool"].append(tool_time)
                    times["manager"].append(manager_time)
                    times["sdk"].append(sdk_time)
    await manager.close()
    return times


def first_frames(folder: Path, runs: int) -> dict[str, list[float]]:
    binary = shutil.which("agent-tui", path=os.path.dirname(sys.executable)) or "agent-tui"
    script = demo_script(folder)
    homes = {"none": folder / "home-none", "five": folder / "home-five"}
    for home in homes.values():
        home.mkdir()
    (homes["five"] / "config.toml").write_text("".join(
        f'[mcp_servers.demo{n}]\ncommand = "{sys.executable}"\nargs = ["{script}"]\n'
        for n in range(5)))
    base = {k: v for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and k != "PYTHONDONTWRITEBYTECODE"}
    base.update(TERM="xterm-256color", COLUMNS="120", LINES="40")
    command = [binary, "--model", "openai/bench", "--api-base", "http://127.0.0.1:9/v1"]
    project = folder / "project"
    project.mkdir()
    first_frame_seconds = _first_frame_seconds()
    frames: dict[str, list[float]] = {name: [] for name in homes}
    for home in homes.values():  # warm-up: bytecode, page cache
        first_frame_seconds(command, {**base, "AGENT_TUI_HOME": str(home)}, str(project))
    for _ in range(runs):
        for name, home in homes.items():
            frames[name].append(first_frame_seconds(
                command, {**base, "AGENT_TUI_HOME": str(home)}, str(project)))
    return frames


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--runs", type=int, default=6)
    args = parser.parse_args()
    ms = 1000.0
    ok = True
    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-mcp-") as tmp:
        times = asyncio.run(round_trips(Path(tmp), args.calls))
        print(f"MCP echo round trip, stdio, {args.calls} calls "
              f"({sys.platform}, {os.cpu_count()} CPUs)")
        print(f"  {'':44}{'p50':>9}{'p95':>9}")
        for label, key in (("mcp__demo__echo tool (build + execute)", "tool"),
                           ("  McpManager.call alone", "manager"),
                           ("baseline: the SDK's ClientSession.call_tool", "sdk")):
            print(f"  {label:44}{statistics.median(times[key]) * ms:>7.2f}ms"
                  f"{percentile(times[key], 0.95) * ms:>7.2f}ms")
        ours, bare = statistics.median(times["tool"]) * ms, statistics.median(times["sdk"]) * ms
        passed = ours <= GOAL_RATIO * bare + GOAL_PLUS_MS
        ok = ok and passed
        print(f"  goal p50 <= {GOAL_RATIO}x the SDK's + {GOAL_PLUS_MS:.0f} ms "
              f"({GOAL_RATIO * bare + GOAL_PLUS_MS:.2f} ms): {'PASS' if passed else 'MISS'} "
              f"({ours:.2f} ms)")
        frames = first_frames(Path(tmp), args.runs)
        none, five = (statistics.median(frames[k]) for k in ("none", "five"))
        print(f"\nFirst frame, {args.runs} runs each, taking turns")
        print(f"  no MCP servers        {none * ms:>7.0f} ms")
        print(f"  five MCP servers      {five * ms:>7.0f} ms")
        passed = five / none <= GOAL_FRAME
        ok = ok and passed
        print(f"  goal unchanged (at most {GOAL_FRAME:.2f}x): {'PASS' if passed else 'MISS'} "
              f"({five / none:.2f}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
