"""Ctrl+V in the prompt: an image from the system clipboard, attached as a file path.

A terminal passes no image through a paste: kitty, WezTerm, iTerm2 and most others paste a
dropped or copied file as its path (the prompt's path route attaches it), and a screenshot in
the clipboard as nothing at all. So Ctrl+V asks the clipboard itself, with ``wl-paste`` on
Wayland or ``xclip`` on X11, for a PNG; saves it under the session's folder
(``attachments/``); and writes ``@<its path>`` into the prompt at the cursor, where
:func:`~agent_tui.tools.images.prompt_images` attaches it when the prompt is sent. With no
image there, Ctrl+V pastes the workbench's own copied text, as the prompt's Ctrl+V did.

A paste of copied files that arrives as ``file://`` URIs (a file manager's copy, some
terminals' drop) becomes their paths (:func:`pasted_paths`), so the path route attaches them.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core import paths

READ_TIMEOUT_S = 5.0
"""How long the clipboard program may take to hand the image over."""

NO_READER = (
    "Ctrl+V reads an image from the clipboard with wl-paste (Wayland: install "
    "wl-clipboard) or xclip (X11: install xclip), and neither is here. Paste the "
    "image file's path instead, or write @path/to/image.png."
)
NO_IMAGE = (
    "The clipboard holds no image (PNG). Copy one (a screenshot, an image in a browser) "
    "and press Ctrl+V again, or paste the image file's path."
)


def pasted_paths(text: str) -> str | None:
    """``text`` as paths when it is only ``file://`` URIs (one a line, as a file manager
    copies them), each quoted if it has spaces; None for any other text."""
    uris = text.split()
    if not uris or not all(uri.startswith("file://") for uri in uris):
        return None
    paths: list[str] = []
    for uri in uris:
        parsed = urllib.parse.urlparse(uri)
        if parsed.netloc not in ("", "localhost"):
            return None  # another machine's file: leave the text as it came
        path = urllib.parse.unquote(parsed.path)
        paths.append(f"'{path}'" if any(c.isspace() for c in path) else path)
    return " ".join(paths)


def clipboard_reader(env: Mapping[str, str]) -> list[str] | None:
    """The command that writes the clipboard's PNG to stdout, or None (no display, or no
    program to read it)."""
    if env.get("WAYLAND_DISPLAY") and (program := shutil.which("wl-paste", path=env.get("PATH"))):
        return [program, "--no-newline", "--type", "image/png"]
    if env.get("DISPLAY") and (program := shutil.which("xclip", path=env.get("PATH"))):
        return [program, "-selection", "clipboard", "-target", "image/png", "-out"]
    return None


def read_clipboard_png(command: list[str]) -> bytes | None:
    """The clipboard's PNG (through ``command``), or None when it holds none."""
    try:
        done = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=READ_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    data = done.stdout
    return data if done.returncode == 0 and data.startswith(b"\x89PNG\r\n\x1a\n") else None


def save_attachment(session_id: str, data: bytes) -> Path:
    """Write ``data`` as the session's next clipboard image; its path."""
    folder = paths.session_dir(session_id) / "attachments"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    number = 1
    while (path := folder / f"clipboard-{stamp}-{number}.png").exists():
        number += 1
    path.write_bytes(data)
    return path


def mention(path: Path) -> str:
    """``@path`` as the prompt names an image (quoted if it has spaces, ``~`` for home)."""
    home = Path.home()
    written = f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)
    return f"@'{written}'" if any(c.isspace() for c in written) else f"@{written}"


async def paste_clipboard_image(app: Any, prompt: Any) -> None:
    """Attach the clipboard's image to ``prompt`` (the prompt box), or say why not."""
    command = clipboard_reader(os.environ)
    data = None if command is None else await asyncio.to_thread(read_clipboard_png, command)
    if data is None:
        if app.clipboard:
            prompt.action_paste()
        else:
            app.notify(
                NO_READER if command is None else NO_IMAGE,
                markup=False,
                severity="warning",
                timeout=8,
            )
        return
    path = await asyncio.to_thread(save_attachment, app.session_id, data)
    row, column = prompt.cursor_location
    before = prompt.document.get_line(row)[:column]
    prompt.insert(("" if not before or before[-1].isspace() else " ") + mention(path) + " ")
    prompt.focus()
