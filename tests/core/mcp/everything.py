"""The reference MCP server ``@modelcontextprotocol/server-everything`` (npm), which
exercises every part of the protocol: installed once into a cache folder (``.ci/run`` does
it beforehand), or the tests that need it are skipped, saying why."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.mcp import McpServerConfig

PACKAGE = "@modelcontextprotocol/server-everything"
VERSION = "2026.8.31"
"""The version the tests were written against (its tool names change between versions)."""
FOLDER = Path(os.environ.get("AGENT_TUI_TEST_NODE_MODULES",
                             Path.home() / ".cache" / "agent-tui-tests" / "server-everything"))
"""Where it is installed (``npm install --prefix``)."""
ENTRY = FOLDER / "node_modules" / PACKAGE / "dist" / "index.js"


def everything_entry() -> Path:
    """The server's script, installed now if npm can; skips the test when it cannot be."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the tests against the reference MCP server "
                    f"{PACKAGE} need node 18+ and npm (.ci/run installs the server)")
    if not ENTRY.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip(f"npm is not installed, so {PACKAGE} cannot be installed; install "
                        f"npm, or run `npm install --prefix {FOLDER} {PACKAGE}@{VERSION}`")
        FOLDER.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([npm, "install", "--prefix", str(FOLDER), "--no-audit",
                               "--no-fund", f"{PACKAGE}@{VERSION}"],
                              capture_output=True, text=True, timeout=300, check=False)
        if done.returncode != 0 or not ENTRY.exists():
            pytest.skip(f"{PACKAGE} could not be installed from the npm registry "
                        f"(npm said: {done.stderr.strip()[-300:]}); run "
                        f"`npm install --prefix {FOLDER} {PACKAGE}@{VERSION}`")
    return ENTRY


def everything_config(folder: Path, name: str = "everything", **keys: object) -> McpServerConfig:
    """A config that runs the reference server over stdio."""
    return McpServerConfig(name=name, transport="stdio", source=folder / "config.toml",
                           command=shutil.which("node") or "node",
                           args=(str(everything_entry()), "stdio"), **keys)  # type: ignore[arg-type]
