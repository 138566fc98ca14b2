"""Tools a project declares itself (gemini-cli's discovered tools).

``tool_discovery_command`` prints the project's function declarations as JSON — a list of
``{"name", "description", "parameters"}``, or gemini-cli's ``[{"functionDeclarations": […]}]``
— and ``tool_call_command NAME`` runs one, reading its arguments as JSON on stdin. Both run
in the project folder with ``bash -c``. A discovered call asks in ``default`` mode: it runs
the project's own code.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .base import (
    ErrorType,
    Invocation,
    OpenArguments,
    OutputCallback,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolResult,
    _simplify_schema,
)

if TYPE_CHECKING:
    from ..core.settings import Settings

DISCOVERY_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 120.0
MAX_OUTPUT = 30_000
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")


class DiscoveryError(Exception):
    """The discovery command failed or printed no declarations; the message says why."""


class DiscoveredTool(Tool):
    """One tool the project declared; runs through ``tool_call_command``.

    ``Tool`` keeps ``name`` and ``description`` on the class, so each
    ``DiscoveredTool(declaration, call_command)`` is an instance of a subclass made for that
    declaration (as ``McpTool`` does).
    """

    # OTHER, not EXECUTE: the shell judge must never read an argument called "command" as
    # the command line this call runs.
    kind = ToolKind.OTHER
    Params = OpenArguments
    ask_reason = "runs the project's tool command"

    def __new__(cls, declaration: Mapping[str, Any], call_command: str) -> DiscoveredTool:
        name = str(declaration["name"])
        description = f"[the project's tool] {declaration.get('description') or ''}".rstrip()
        own = type(f"DiscoveredTool_{name}", (cls,), {
            "name": name,
            "description": description,
            "__doc__": description,
        })
        return super().__new__(own)

    def __init__(self, declaration: Mapping[str, Any], call_command: str) -> None:
        self._schema = declaration.get("parameters") or {"type": "object", "properties": {}}
        self.call_command = call_command

    def parameters_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = _simplify_schema(self._schema)
        return schema

    def build(self, args: Mapping[str, Any], ctx: ToolContext) -> Invocation[OpenArguments]:
        missing = [key for key in self._schema.get("required", []) if key not in args]
        if missing:
            raise ToolArgumentError(
                f"invalid arguments for {self.name}: missing {', '.join(missing)}. Expected "
                f"parameters (JSON schema): {json.dumps(self.parameters_schema())}")
        return DiscoveredInvocation(self, OpenArguments(**args), ctx)

    def create_invocation(self, params: Any, ctx: ToolContext) -> Invocation[OpenArguments]:
        return DiscoveredInvocation(self, params, ctx)


class DiscoveredInvocation(Invocation[OpenArguments]):
    """One call: ``tool_call_command NAME`` with the arguments on stdin."""

    def __init__(self, tool: DiscoveredTool, params: OpenArguments, ctx: ToolContext) -> None:
        super().__init__(tool, params, ctx)
        self.call_command = tool.call_command

    def describe(self) -> str:
        shown = json.dumps(self.params.model_dump(), ensure_ascii=False)
        return f"{self.tool.name} {shown[:80]}"

    @property
    def command(self) -> str:
        """The command line that runs the call."""
        return f"{self.call_command} {shlex.quote(self.tool.name)}"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        try:
            code, out, err = await _run(self.command, self.ctx.workdir,
                                        json.dumps(self.params.model_dump()).encode(), CALL_TIMEOUT_S,
                                        self.ctx.env)
        except TimeoutError:
            return ToolResult.failure(f"{self.tool.name} did not finish within "
                                      f"{CALL_TIMEOUT_S:.0f} s and was stopped",
                                      error_type=ErrorType.TIMEOUT)
        except OSError as exc:
            return ToolResult.failure(f"tool_call_command could not start: {exc}")
        text = out.decode(errors="replace")[:MAX_OUTPUT]
        if code != 0:
            why = err.decode(errors="replace").strip()[-2000:] or text.strip()[-2000:]
            return ToolResult.failure(f"{self.tool.name} exited with {code}: {why}")
        return ToolResult(text or "(no output)")


async def _run(command: str, cwd: Path, stdin: bytes, timeout: float,
               env: Mapping[str, str] | None) -> tuple[int, bytes, bytes]:
    process = await asyncio.create_subprocess_exec(
        "bash", "-c", command, cwd=cwd, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True, env=dict(env) if env is not None else None)
    try:
        out, err = await asyncio.wait_for(process.communicate(stdin), timeout)
    except (TimeoutError, asyncio.CancelledError):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await process.wait()
        raise
    return process.returncode or 0, out, err


def declarations(output: str) -> list[dict[str, Any]]:
    """The function declarations in a discovery command's output.

    Raises:
        DiscoveryError: it is not JSON, or holds no declaration.
    """
    try:
        data = json.loads(output)
    except json.JSONDecodeError as exc:
        raise DiscoveryError(f"its output is not JSON ({exc})") from None
    items = data if isinstance(data, list) else [data]
    found: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("functionDeclarations"), list):
            found += [d for d in item["functionDeclarations"] if isinstance(d, dict)]
        elif isinstance(item, dict) and "name" in item:
            found.append(item)
    return found


async def discover_tools(settings: Settings, workdir: Path,
                         env: Mapping[str, str] | None = None) -> tuple[list[Tool], list[str]]:
    """Run ``tool_discovery_command`` and make its tools; returns them and the problems
    (a failing command, a bad declaration), each said once."""
    discovery = getattr(settings, "tool_discovery_command", None)
    call = getattr(settings, "tool_call_command", None)
    if not discovery:
        return [], []
    if not call:
        return [], ["tool_discovery_command is set but tool_call_command is not; set both "
                    "to offer the project's tools"]
    try:
        code, out, err = await _run(discovery, workdir, b"", DISCOVERY_TIMEOUT_S, env)
    except TimeoutError:
        return [], [f"tool_discovery_command did not finish within {DISCOVERY_TIMEOUT_S:.0f} s"]
    except OSError as exc:
        return [], [f"tool_discovery_command could not start: {exc}"]
    if code != 0:
        tail = err.decode(errors="replace").strip()[-500:]
        return [], [f"tool_discovery_command exited with {code}: {tail}"]
    try:
        found = declarations(out.decode(errors="replace"))
    except DiscoveryError as exc:
        return [], [f"tool_discovery_command: {exc}"]
    tools: list[Tool] = []
    problems: list[str] = []
    for declaration in found:
        name = str(declaration.get("name", ""))
        if not _NAME.match(name):
            problems.append(f"tool_discovery_command declared a tool named {name!r}; a name "
                            "is letters, digits, _ . - (at most 64); it was skipped")
            continue
        tools.append(DiscoveredTool(declaration, call))
    return tools, problems
