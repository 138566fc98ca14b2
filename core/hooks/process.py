"""Running one hook: ``bash -c`` in its own process group, JSON in, output captured.

The group is killed when the hook outlives its timeout or the awaiting task is cancelled,
so nothing a hook started outlives the reason it ran.
"""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .hook_set import Hook

OUTPUT_LIMIT = 64 * 1024
"""Bytes of stdout, and of stderr, kept from one hook; the rest is read and dropped."""

EXIT_GRACE_S = 1.0
"""Seconds reading may go on once the hook has exited, while something it started in the
background still holds its output open; then reading stops and that process is left alone."""


@dataclass(frozen=True, slots=True)
class HookRun:
    """How one hook's process ended.

    Attributes:
        hook: The hook that ran.
        exit_code: Its exit status; None when it timed out or could not start.
        stdout: What it printed (at most :data:`OUTPUT_LIMIT` bytes, decoded).
        stderr: What it printed on stderr (likewise).
        problem: Why there is no exit code, e.g. ``"timeout"`` or the start error.
    """

    hook: Hook
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    problem: str | None = None

    @property
    def timed_out(self) -> bool:
        """Whether the hook was killed for outliving its timeout."""
        return self.problem == "timeout"


async def run_hook(hook: Hook, stdin: bytes, cwd: Path, env: Mapping[str, str]) -> HookRun:
    """Run ``hook`` with ``stdin`` as its input and wait for it (at most its timeout).

    Raises:
        asyncio.CancelledError: The awaiting task was cancelled; the hook's process group
            has been killed.
    """
    # A file, not a pipe: a hook that never reads its input cannot block us on it.
    with tempfile.TemporaryFile() as input_file:
        input_file.write(stdin)
        input_file.seek(0)
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                "bash", "-c", hook.command, cwd=cwd, env=dict(env), stdin=input_file,
                stdout=out_write, stderr=err_write, start_new_session=True)
        except OSError as exc:
            os.close(out_read)
            os.close(err_read)
            return HookRun(hook, None, problem=f"could not start ({exc})")
        finally:
            os.close(out_write)
            os.close(err_write)
    # Our own pipes, not asyncio's: with those, Python 3.11's ``wait()`` would also wait
    # for every background process the hook left holding its output.
    out, err = bytearray(), bytearray()
    readers = [asyncio.ensure_future(_read_capped(os.fdopen(fd, "rb", 0), sink))
               for fd, sink in ((out_read, out), (err_read, err))]
    problem = None
    try:
        try:
            async with asyncio.timeout(hook.timeout):
                exit_code: int | None = await proc.wait()
        except TimeoutError:
            await _kill_group(proc)
            exit_code, problem = None, "timeout"
        except BaseException:
            await _kill_group(proc)
            raise
        await asyncio.wait(readers, timeout=EXIT_GRACE_S)
    finally:
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
    return HookRun(hook, exit_code, _text(out), _text(err), problem)


async def _read_capped(pipe: BinaryIO, sink: bytearray) -> None:
    """Read ``pipe`` to its end into ``sink``, keeping at most :data:`OUTPUT_LIMIT` bytes."""
    reader = asyncio.StreamReader()
    try:
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe)
    except BaseException:
        pipe.close()
        raise
    try:
        while chunk := await reader.read(65536):
            sink += chunk[: max(0, OUTPUT_LIMIT - len(sink))]
    finally:
        transport.close()


async def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    await proc.wait()


def _text(data: bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace")
