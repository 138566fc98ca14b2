"""Running the real agent loop headlessly against a fake provider, in-process."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.config import Settings
from agent_tui.tui.cli.headless import run_headless


@dataclass
class HeadlessRun:
    """What a headless run printed, parsed."""

    code: int
    events: list[dict[str, Any]]
    stderr: str

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        """Events of one ``type``."""
        return [e for e in self.events if e["type"] == kind]

    @property
    def result(self) -> dict[str, Any]:
        """The final ``result`` event."""
        return self.of_type("result")[-1]


def settings_for(fake: Any, *, anthropic: bool = False, **overrides: Any) -> Settings:
    """Settings pointing litellm at ``fake``, with fast retries, and an approval modal whose
    keys work at once (the key guard's own tests set ``approval_key_guard``)."""
    base: dict[str, Any] = {
        "model": "anthropic/claude-sonnet-4-20250514" if anthropic else "openai/fake-model",
        "api_base": fake.anthropic_base if anthropic else fake.openai_base,
        "api_key": "sk-test",
        "retry_base_delay": 0.01,
        "retry_max_delay": 0.05,
        "max_retries": 3,
        "approval_key_guard": 0.0,
    }
    base.update(overrides)
    return Settings(**base)


async def run(fake: Any, workdir: Path, prompt: str = "do the task", *,
              anthropic: bool = False, **overrides: Any) -> HeadlessRun:
    """Run ``prompt`` headlessly in stream-json and return the parsed events."""
    out, err = io.StringIO(), io.StringIO()
    settings = settings_for(fake, anthropic=anthropic, **overrides)
    code = await run_headless(settings, workdir, prompt, "stream-json", out, err)
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    return HeadlessRun(code, events, err.getvalue())
