"""What a front end with an editor lends the tools: its view of files (unsaved changes are
never overwritten) and a place to run shell commands. Real files and real processes; the
editor is a dict of buffers, as an ACP client's would be."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.safety.sandbox import BwrapSandbox
from agent_tui.tools.base import CommandRun, ToolContext, ToolResult
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry

REGISTRY = ToolRegistry(builtin_tools())


class Editor:
    """Buffers by path; a file without one reads as on disk. Records the thread asking."""

    def __init__(self) -> None:
        self.buffers: dict[Path, str] = {}
        self.threads: set[int] = set()

    def __call__(self, path: Path) -> str | None:
        self.threads.add(threading.get_ident())
        if path in self.buffers:
            return self.buffers[path]
        try:
            return path.read_text()
        except OSError:
            return None


class BashRunner:
    """Runs each command with bash in a real process, as a client's terminal would."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    async def run(self, command: str, cwd: Path, env: Mapping[str, str] | None,
                  timeout_s: float, feed: Callable[[bytes], None]) -> CommandRun:
        self.commands.append(command)
        proc = await asyncio.create_subprocess_exec(
            "bash", "-c", command, cwd=cwd, env=env, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        try:
            async with asyncio.timeout(timeout_s):
                assert proc.stdout is not None
                while chunk := await proc.stdout.read(4096):
                    feed(chunk)
                code = await proc.wait()
        except TimeoutError:
            os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            return CommandRun(None, "SIGKILL", timed_out=True)
        return CommandRun(code)


@pytest.fixture
def editor() -> Editor:
    return Editor()


@pytest.fixture
def ctx(tmp_path: Path, editor: Editor) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", editor_text=editor)


def call(ctx: ToolContext, tool: str, **args: Any) -> ToolResult:
    return asyncio.run(REGISTRY.build(tool, args, ctx).execute())


def test_read_file_says_the_editor_holds_unsaved_changes(ctx, editor, tmp_path):
    path = tmp_path / "app.py"
    path.write_text("x = 1\n")
    assert "unsaved" not in call(ctx, "read_file", file_path="app.py").llm_content
    editor.buffers[path] = "x = 2\n"
    result = call(ctx, "read_file", file_path="app.py")
    assert result.ok
    assert result.llm_content.startswith("Note: the person's editor holds unsaved changes to "
                                         "app.py")
    assert "x = 1" in result.llm_content  # the file on disk is what the model sees
    assert threading.get_ident() not in editor.threads  # asked off the event loop


def test_line_endings_and_a_bom_are_not_unsaved_changes(ctx, editor, tmp_path):
    path = tmp_path / "win.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    editor.buffers[path] = "one\ntwo\n"
    assert "unsaved" not in call(ctx, "read_file", file_path="win.txt").llm_content
    done = call(ctx, "edit_file", file_path="win.txt", old_text="two", new_text="three")
    assert done.ok, done.error
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\nthree\r\n"


def test_an_edit_never_overwrites_unsaved_changes(ctx, editor, tmp_path):
    path = tmp_path / "app.py"
    path.write_text("x = 1\n")
    call(ctx, "read_file", file_path="app.py")
    editor.buffers[path] = "x = 1  # the person is typing here\n"
    refused = call(ctx, "edit_file", file_path="app.py", old_text="x = 1", new_text="x = 3")
    assert not refused.ok
    assert "app.py has unsaved changes in the person's editor" in refused.error
    assert path.read_text() == "x = 1\n"
    refused = call(ctx, "write_file", file_path="app.py", content="x = 4\n")
    assert not refused.ok and "unsaved changes" in refused.error
    assert path.read_text() == "x = 1\n"
    del editor.buffers[path]  # saved or discarded: the editor holds the disk's text
    done = call(ctx, "edit_file", file_path="app.py", old_text="x = 1", new_text="x = 3")
    assert done.ok, done.error
    assert path.read_text() == "x = 3\n"


def test_a_new_file_is_written_whatever_the_editor_holds(ctx, tmp_path):
    done = call(ctx, "write_file", file_path="new.txt", content="fresh\n")
    assert done.ok, done.error
    assert (tmp_path / "new.txt").read_text() == "fresh\n"


def test_shell_runs_where_the_runner_runs_it(tmp_path):
    runner = BashRunner()
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", command_runner=runner)
    result = call(ctx, "shell", command="echo from-the-terminal; touch made; exit 3")
    assert runner.commands == ["echo from-the-terminal; touch made; exit 3"]
    assert (tmp_path / "made").exists()
    assert "from-the-terminal" in result.llm_content
    assert result.llm_content.rstrip().endswith("Exit code: 3")
    assert result.error == "command exited with code 3"


def test_a_runner_that_times_out_is_told_as_a_time_out(tmp_path):
    runner = BashRunner()
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", command_runner=runner)
    result = call(ctx, "shell", command="echo started; sleep 30", timeout=500)
    assert result.error == "command timed out after 0.5 s"
    assert "started" in result.llm_content and "[timed out after 0.5 s" in result.llm_content


@pytest.mark.skipif(subprocess.run(["which", "bwrap"], capture_output=True).returncode != 0,
                    reason="bubblewrap is not installed")
def test_a_sandbox_keeps_commands_here(tmp_path):
    runner = BashRunner()
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", command_runner=runner,
                      sandbox=BwrapSandbox(tmp_path / "sandbox-tmp"))
    result = call(ctx, "shell", command="echo sandboxed")
    assert runner.commands == []  # the client's terminal would not be sandboxed
    assert "sandboxed" in result.llm_content
