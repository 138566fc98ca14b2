"""Ctrl+V in the prompt: the image in the system clipboard, read by a real xclip from a real
X display (Xvfb), saved in the session's folder and attached when the prompt is sent; and a
paste of copied files as file:// URIs, attached by their paths."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import urllib.parse
from collections.abc import Iterator

import pytest
from textual import events

from agent_tui.core import paths
from agent_tui.tui.widgets.conversation import UserBlock
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.workbench.clipboard_images import NO_IMAGE, NO_READER, pasted_paths
from tests.fakes.providers import Reply
from tests.tui.test_app import SIZE, app_for, until

# A 1x1 red PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)

FIRST_CALL = 60.0
"""Seconds a first model call may take: it loads litellm, slow on a busy machine."""


@pytest.fixture
def display(tmp_path, monkeypatch) -> Iterator[str]:
    """A fresh Xvfb (its clipboard empty) as $DISPLAY, no Wayland."""
    if not (shutil.which("Xvfb") and shutil.which("xclip")):
        pytest.skip("needs Xvfb and xclip (Debian: apt-get install xvfb xclip; .ci/run has them)")
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as numbers:
        number = numbers.readline().strip()
    cookie = tmp_path / "xauthority"
    cookie.touch()
    monkeypatch.setenv("DISPLAY", f":{number}")
    monkeypatch.setenv("XAUTHORITY", str(cookie))
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    yield f":{number}"
    server.terminate()
    server.wait(10)


def copy_png(tmp_path) -> subprocess.Popen[bytes]:
    """Put :data:`PNG` in the clipboard as a screenshot tool does: xclip owns the selection
    (and serves it) until the display ends."""
    image = tmp_path / "shot.png"
    image.write_bytes(PNG)
    return subprocess.Popen(
        ["xclip", "-selection", "clipboard", "-target", "image/png", "-in", str(image)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def test_ctrl_v_attaches_the_clipboard_image(fake_provider, tmp_path, display):
    owner = copy_png(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    fake_provider.script(Reply(text="A red dot."))
    app = app_for(fake_provider, project, model="openai/gpt-4o")  # litellm: takes images
    try:
        async with app.run_test(size=SIZE) as pilot:
            prompt = app.query_one(PromptInput)
            prompt.text = "what is in"
            prompt.move_cursor(prompt.document.end)
            await pilot.press("ctrl+v")
            await until(pilot, lambda: "@" in prompt.text)
            saved = list((paths.session_dir(app.session_id) / "attachments").iterdir())
            assert len(saved) == 1 and saved[0].read_bytes() == PNG
            assert prompt.text == f"what is in @{saved[0]} "
            await pilot.press("enter")
            await until(
                pilot, lambda: not app.busy and len(fake_provider.requests) == 1, FIRST_CALL
            )
            assert app.query_one(UserBlock).images == (str(saved[0]),)
            sent = fake_provider.requests[0].messages[-1]["content"]
            image_parts = [part for part in sent if part.get("type") == "image_url"]
            assert image_parts[0]["image_url"]["url"] == (
                "data:image/png;base64," + base64.b64encode(PNG).decode()
            )
    finally:
        owner.kill()
        owner.wait()


async def test_no_image_in_the_clipboard_says_so(fake_provider, tmp_path, display):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("ctrl+v")
        await until(pilot, lambda: any(n.message == NO_IMAGE for n in app._notifications))
        assert prompt.text == ""
        # The workbench's own copied text still pastes.
        app.copy_to_clipboard("copied words")
        await pilot.press("ctrl+v")
        await until(pilot, lambda: prompt.text == "copied words")


async def test_without_a_clipboard_program_ctrl_v_says_what_to_install(
    fake_provider, tmp_path, monkeypatch
):
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("PATH", str(tmp_path))  # no xclip, no wl-paste
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one(PromptInput).focus()
        await pilot.press("ctrl+v")
        await until(pilot, lambda: any(n.message == NO_READER for n in app._notifications))


async def test_a_paste_of_file_uris_becomes_their_paths_and_attaches(fake_provider, tmp_path):
    folder = tmp_path / "my shots"
    folder.mkdir()
    (folder / "red dot.png").write_bytes(PNG)
    fake_provider.script(Reply(text="A red dot."))
    app = app_for(fake_provider, tmp_path, model="openai/gpt-4o")
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.text = "what is in "
        prompt.move_cursor(prompt.document.end)
        uri = "file://" + urllib.parse.quote(str(folder / "red dot.png"))
        app.post_message(events.Paste(uri + "\r\n"))  # as the driver sends a paste
        await until(pilot, lambda: prompt.text != "what is in ")
        assert prompt.text == f"what is in '{folder / 'red dot.png'}'"
        await pilot.press("enter")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1, FIRST_CALL)
        sent = fake_provider.requests[0].messages[-1]["content"]
        assert [part["type"] for part in sent] == ["text", "image_url"]


def test_only_local_file_uris_become_paths():
    assert pasted_paths("file:///a/b.png\nfile://localhost/c%20d.png") == "/a/b.png '/c d.png'"
    assert pasted_paths("see file:///a/b.png") is None
    assert pasted_paths("file://server/share/b.png") is None
    assert pasted_paths("") is None
