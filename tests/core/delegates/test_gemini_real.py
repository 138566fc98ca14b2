"""``/code`` through the real Gemini CLI (npm ``@google/gemini-cli``) in its ACP mode
(``gemini --acp``), configured with an API key and ``GOOGLE_GEMINI_BASE_URL`` at the fake
Gemini API on loopback, in a home of its own under the test's folder. The fake's model calls
Gemini CLI's ``write_file`` tool on an existing file and then answers: the write goes through agent-tui's own
``write_file`` call (ACP's ``fs/write_text_file``) and the answer comes back.

``.ci/run`` installs Gemini CLI into the cache folder below; without it the test skips."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agent_tui.core import paths
from tests.core.loop_helpers import run
from tests.fakes.gemini import FakeGemini

VERSION = "0.61.0"
FOLDER = Path(os.environ.get("AGENT_TUI_TEST_GEMINI_CLI",
                             Path.home() / ".cache" / "agent-tui-tests" / "gemini-cli"))
"""Where ``.ci/run`` installs ``@google/gemini-cli`` (``npm install --prefix``)."""
WRITTEN = "hello from gemini\n"
ANSWER = "Done: I wrote hello.txt."


def gemini_binary() -> str:
    installed = FOLDER / "node_modules" / ".bin" / "gemini"
    if installed.exists():
        return str(installed)
    found = shutil.which("gemini")
    if found is None:
        pytest.skip(f"Gemini CLI is not installed: run `npm install --prefix {FOLDER} "
                    f"@google/gemini-cli@{VERSION}` (.ci/run does) to test /code against it")
    return found


def configure(fake: FakeGemini, home: Path, binary: str) -> None:
    """The delegate in agent-tui's config.toml: Gemini CLI's ACP mode with a fixed model (the
    default, ``auto``, first asks a router model to classify the prompt)."""
    home.mkdir()
    env = {"HOME": str(home), "GEMINI_API_KEY": "test",
           "GOOGLE_GEMINI_BASE_URL": fake.api_base.removesuffix("/v1beta")}
    lines = ["[delegates.gemini]", f"command = {binary!r}",
             f"args = {json.dumps(['--acp', '--model', 'gemini-2.5-flash'])}",
             "in_project = true", "start_timeout = 120",
             "env = { " + ", ".join(f"{k} = {v!r}" for k, v in env.items()) + " }"]
    config = paths.user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")


async def test_the_real_gemini_cli_writes_through_agent_tui_and_answers(fake_provider,
                                                                       tmp_path):
    binary = gemini_binary()
    project = tmp_path / "project"
    project.mkdir()
    # An existing file: Gemini CLI (0.61) reads a file before writing it and takes only a
    # JavaScript Error as "not found", while a JSON-RPC error reaches it as a plain object,
    # so over ACP it can rewrite files but not create new ones.
    (project / "hello.txt").write_text("old\n")
    with FakeGemini(answer=ANSWER) as fake:
        fake.function_call = {"name": "write_file", "args": {
            "file_path": str(project / "hello.txt"), "content": WRITTEN}}
        configure(fake, tmp_path / "gemini-home", binary)

        outcome = await run(fake_provider, project, "/code write hello.txt",
                            approval_mode="yolo")

    assert outcome.code == 0, (outcome.stderr, outcome.result)
    assert outcome.result["ok"], outcome.result
    assert ANSWER in outcome.result["text"]
    assert (project / "hello.txt").read_text() == WRITTEN
    started = {e["id"]: e for e in outcome.of_type("tool_call")}
    writes = [e for e in started.values() if e["name"] == "write_file"]
    assert [Path(e["args"]["file_path"]).name for e in writes] == ["hello.txt"]
    assert fake.requests, "Gemini CLI asked the fake Gemini API"
    assert fake_provider.requests == []  # agent-tui's own model was not asked
