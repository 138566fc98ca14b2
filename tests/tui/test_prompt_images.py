"""Images in the prompt: `@shot.png` in the workbench, `--image FILE` headless; sent as image
parts to a model that takes images, refused with a clear message by one that does not."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from agent_tui.tui.cli.headless import run_headless
from agent_tui.tui.widgets.conversation import NoticeBlock, UserBlock
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply
from tests.tui.test_app import SIZE, app_for, type_prompt, until

VISION = "openai/gpt-4o"  # litellm knows it takes images


def _png(path: Path) -> Path:
    Image.new("RGB", (6, 4), "red").save(path)
    return path


def _image_parts(request) -> list[str]:
    content = request.messages[-1]["content"]
    return [part["image_url"]["url"] for part in content if part.get("type") == "image_url"] \
        if isinstance(content, list) else []


async def test_an_image_mentioned_in_the_prompt_is_attached(fake_provider, tmp_path):
    _png(tmp_path / "shot.png")
    fake_provider.script(Reply(text="A red rectangle."))
    app = app_for(fake_provider, tmp_path, model=VISION)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "what is in @shot.png and @gone.png?")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        block = app.query(UserBlock).last()
        assert block.images == ("shot.png",)
        assert "📎 shot.png" in str(block.render())
        urls = _image_parts(fake_provider.requests[0])
        assert len(urls) == 1 and urls[0].startswith("data:image/png;base64,")
        notices = [str(n.render()) for n in app.query(NoticeBlock)]
        assert any("Not attached" in n and "gone.png" in n for n in notices)


async def test_headless_image_flag_and_a_model_without_vision(fake_provider, tmp_path):
    _png(tmp_path / "diagram.png")
    fake_provider.script(Reply(text="A diagram."))
    out, err = io.StringIO(), io.StringIO()

    code = await run_headless(settings_for(fake_provider, model=VISION), tmp_path,
                              "describe it", "text", out, err, images=["diagram.png"])

    assert code == 0, err.getvalue()
    assert len(_image_parts(fake_provider.requests[0])) == 1

    refused_out, refused_err = io.StringIO(), io.StringIO()
    code = await run_headless(settings_for(fake_provider), tmp_path, "describe it", "text",
                              refused_out, refused_err, images=["diagram.png"])
    assert code == 1
    assert "does not take images" in refused_err.getvalue()
    assert len(fake_provider.requests) == 1  # nothing was sent

    missing_err = io.StringIO()
    code = await run_headless(settings_for(fake_provider, model=VISION), tmp_path, "x",
                              "text", io.StringIO(), missing_err, images=["nope.png"])
    assert code == 2 and "--image nope.png" in missing_err.getvalue()
