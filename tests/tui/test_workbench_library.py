"""The workbench imports no litellm of its own when its model streams in the worker: the
worker answers what litellm knows (window, tools, token counts, embeddings), so the first
request waits for no import here, and the workbench's process stays ~200 MB smaller."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import asyncio, json, os, sys
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from agent_tui.core.settings import Settings
    from agent_tui.tui.app import make_app
    from agent_tui.tui.widgets.panels import ContextGauge

    async def main():
        settings = Settings(model="openai/gpt-4o", api_base={base!r}, api_key="sk-test",
                            warm_engine={warm}, approval_key_guard=0.0)
        app = make_app(settings, Path({project!r}), load_litellm=True)
        async with app.run_test(size=(120, 40)) as pilot:
            app.query_one("PromptInput").text = "go"
            await pilot.press("enter")
            for _ in range(1200):
                await pilot.pause(0.05)
                if app.agent is not None and not app.busy:
                    break
            gauge = app.query_one(ContextGauge)
            print(json.dumps({{"litellm": "litellm" in sys.modules,
                               "openai": "openai" in sys.modules,
                               "window": gauge.window,
                               "answered": app.agent is not None and not app.busy}}))

    asyncio.run(main())
""")


def _run(fake, project: Path, runtime: Path, *, warm: bool) -> dict:
    script = SCRIPT.format(root=str(REPO.parent), base=fake.openai_base,
                           project=str(project), warm=warm)
    env = {k: v for k, v in __import__("os").environ.items()
           if k != "AGENT_TUI_WARM_ENGINE"}
    env["AGENT_TUI_RUNTIME_DIR"] = str(runtime)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=project, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_workbench_answers_without_importing_litellm(fake_provider, tmp_path):
    from tests.fakes.providers import Reply

    fake_provider.script(Reply(text="done"))
    runtime = Path(tempfile.mkdtemp(prefix="atl-", dir="/tmp"))
    try:
        seen = _run(fake_provider, tmp_path, runtime, warm=False)
    finally:
        subprocess.run(["rm", "-rf", str(runtime)], check=False)
    assert seen == {"litellm": False, "openai": False, "window": 128_000, "answered": True}
    assert len(fake_provider.requests) == 1
