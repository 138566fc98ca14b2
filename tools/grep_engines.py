"""The two backends behind glob_files and grep: ripgrep, and its pure-Python twin.

The rg side runs ``rg`` and parses its output; the Python side reads files and matches
lines with ``re`` exactly as rg does, so either produces the same hits. Listing files
without rg lives in ``file_walk``.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from ..core.text.glob_patterns import ripgrep_reads_alike
from .file_walk import SKIP_DIRS

Backend = Literal["rg", "python"]
"""How glob_files and grep search: ripgrep, or git/os.walk and Python's ``re``."""

MAX_SEARCH_BYTES = 64 * 1024 * 1024
"""The Python fallback skips files larger than this. rg searches them (its
``--max-filesize`` costs a stat per file, a cost on every search for the rare huge file)."""
RG_COMMON_ARGS = ("--no-config", "--hidden", "--no-ignore-dot", "--no-messages",
                  *(f"--glob=!{name}" for name in SKIP_DIRS))
"""rg options every search passes: list what ``list_files_like_rg`` lists."""
_RG_LINE = re.compile(rb"^([^\0\n]*)\0(\d+)([:-])(.*)$", re.MULTILINE)

Hit = tuple[int, bool, str]
"""One output line of grep: (1-based line number, is a match, text)."""


def ripgrep() -> str | None:
    """The path of ``rg``, or None when ripgrep is not installed."""
    return shutil.which("rg")


# --------------------------------------------------------------------------- rg


async def run_process(cmd: list[str], cwd: Path, env: Mapping[str, str] | None) -> tuple[int, bytes, bytes]:
    """Run ``cmd`` in its own process group; cancelling kills the group.

    Returns:
        The exit code, stdout and stderr. The output is collected in a worker thread: for
        rg's short runs that is quicker than asyncio's subprocess transport.
    """
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = await asyncio.to_thread(proc.communicate)
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        raise
    return proc.returncode or 0, out, err


def rg_prefilter(glob: str | None, *, anchored: bool = False) -> list[str]:
    """rg arguments that skip files ``glob`` cannot keep, or none when there is no such cut.

    Not ``--glob``: a glob given to rg overrides .gitignore (``-g '*.log'`` would search
    ignored logs). A file type (``--type-add``) filters names and leaves .gitignore in
    force, so the last segment of the glob becomes one; ``PathGlob`` then decides exactly.
    """
    if not glob:
        return []
    exclude = glob.startswith("!")
    body = glob[1:] if exclude else glob
    name = body.rsplit("/", 1)[-1]
    if (not name or ":" in name or not ripgrep_reads_alike(name)
            or (exclude and ("/" in body or anchored))):
        return []  # rg would read the name otherwise than PathGlob does, or refuse it
    return [f"--type-add=picked:{name}", "--type-not=picked" if exclude else "--type=picked"]


async def rg_files(rg: str, root: Path, prefilter: list[str], env: Mapping[str, str] | None) -> list[str]:
    """The files ``rg --files`` lists under ``root``, relative to it and sorted.

    Raises:
        OSError: rg could not run or failed.
    """
    code, out, err = await run_process(
        [rg, "--files", "--null", *RG_COMMON_ARGS, *prefilter, "--", "."], root, env)
    if code not in (0, 1):
        raise OSError(err.decode(errors="replace").strip() or f"rg exited with code {code}")
    return sorted(os.fsdecode(p).removeprefix("./") for p in out.split(b"\0") if p)


def parse_rg(out: bytes) -> dict[str, list[Hit]]:
    """rg's ``--null --no-heading`` output, by file."""
    found: dict[str, list[Hit]] = {}
    for m in _RG_LINE.finditer(out):
        path = os.fsdecode(m[1]).removeprefix("./")
        found.setdefault(path, []).append(
            (int(m[2]), m[3] == b":", m[4].decode("utf-8", "replace")))
    return found


# --------------------------------------------------------------------------- Python


def decode_file(path: Path) -> str | None:
    """A file's text as rg reads it, or None for a binary, huge or unreadable file."""
    try:
        if path.stat().st_size > MAX_SEARCH_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", "replace")  # rg transcodes these
    elif b"\0" in data:
        return None
    else:
        # Not byte-exact with rg: its `.` does not match an invalid UTF-8 byte, ours
        # matches the U+FFFD it became.
        text = data.decode("utf-8", "replace")
    return text.removeprefix("\ufeff")


def search_lines(regex: re.Pattern[str], text: str, context: int) -> list[Hit]:
    """The matching lines of ``text`` (split on ``\\n`` only, as rg does) and their context."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    matched = {i for i, line in enumerate(lines) if regex.search(line)}
    shown: set[int] = set()
    for i in matched:
        shown.update(range(max(i - context, 0), min(i + context + 1, len(lines))))
    return [(i + 1, i in matched, lines[i]) for i in sorted(shown)]
