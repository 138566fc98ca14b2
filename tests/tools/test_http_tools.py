"""GLTCH's actions as tools: http_request and gif_search, against a local HTTP server."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from agent_tui.core.config import Settings
from agent_tui.core.safety.permissions import Verdict, decide
from agent_tui.tools.base import ToolArgumentError, ToolContext
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.web import NETWORK_OFF_MESSAGE
from tests.core.loop_helpers import run as run_headless
from tests.fakes.providers import Reply
from tests.tools.test_web import LocalSite, Page, site  # noqa: F401  (the fixture)


def context(tmp_path: Path, **settings) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", network_enabled=True,
                       settings=Settings(**settings))


def build(ctx: ToolContext, name: str, **args):
    return ToolRegistry(builtin_tools()).build(name, args, ctx)


async def test_a_post_sends_its_json_body_and_gets_status_headers_and_body(
        site: LocalSite, tmp_path: Path) -> None:  # noqa: F811
    site.routes["/items"] = lambda seen: Page(json.dumps({"got": seen.json()}),
                                              "application/json", 201, {"X-Id": "7"})
    ctx = context(tmp_path)

    result = await build(ctx, "http_request", method="post", url=site.url("/items"),
                         body='{"name": "pen"}').execute()

    assert result.ok
    assert result.llm_content.startswith("HTTP 201 Created")
    assert "x-id: 7" in result.llm_content.lower()
    assert '{"got": {"name": "pen"}}' in result.llm_content
    assert site.requests[0].method == "POST"
    assert site.requests[0].headers["content-type"] == "application/json"


async def test_a_long_body_is_cut_to_the_budget_with_a_note(site: LocalSite,  # noqa: F811
                                                            tmp_path: Path) -> None:
    site.routes["/log"] = Page("x" * 50_000, "text/plain")

    result = await build(context(tmp_path), "http_request", method="GET",
                         url=site.url("/log")).execute()

    assert "[cut: 30,000 more characters of 50,000" in result.llm_content
    assert len(result.llm_content) < 21_000


async def test_errors_say_what_happened(site: LocalSite, tmp_path: Path) -> None:  # noqa: F811
    site.routes["/slow"] = Page("late", "text/plain", delay=2)
    ctx = context(tmp_path)

    slow = await build(ctx, "http_request", method="GET", url=site.url("/slow"),
                       timeout=0.3).execute()
    refused = await build(ctx, "http_request", method="GET",
                          url="http://127.0.0.1:9/nothing").execute()

    assert "timed out after 0.3 s" in slow.llm_content
    assert "could not connect" in refused.llm_content
    with pytest.raises(ToolArgumentError, match="not an http"):
        build(ctx, "http_request", method="GET", url="file:///etc/passwd")
    off = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")
    with pytest.raises(ToolArgumentError, match=NETWORK_OFF_MESSAGE[:30]):
        build(off, "http_request", method="GET", url=site.url("/"))


def test_only_a_get_to_an_allowed_domain_runs_without_asking(tmp_path: Path) -> None:
    ctx = context(tmp_path, http_allowed_domains=["api.example.com"])

    def verdict(method: str, url: str) -> Verdict:
        return decide(build(ctx, "http_request", method=method, url=url), "default",
                      tmp_path).verdict

    assert verdict("GET", "https://api.example.com/v1/x") == Verdict.ALLOW
    assert verdict("GET", "https://eu.api.example.com/v1/x") == Verdict.ALLOW
    assert verdict("POST", "https://api.example.com/v1/x") == Verdict.ASK
    assert verdict("GET", "https://example.org/") == Verdict.ASK
    assert decide(build(ctx, "http_request", method="GET", url="https://api.example.com/"),
                  "plan", tmp_path).verdict == Verdict.DENY


async def test_gltch_s_api_tag_splits_url_and_body(site: LocalSite,  # noqa: F811
                                                   fake_provider, tmp_path: Path) -> None:
    site.routes["/echo"] = lambda seen: Page(seen.body, "text/plain")
    fake_provider.script(
        Reply(text=f'Calling. [ACTION:api|PUT|{site.url("/echo")}|hello | world]'),
        Reply(text="done"))

    outcome = await run_headless(fake_provider, tmp_path, approval_mode="yolo", network=True,
                                 tool_protocol="text")

    call = outcome.of_type("tool_call")[0]
    assert call["name"] == "http_request"
    assert site.requests[0].method == "PUT" and site.requests[0].body == b"hello | world"


def _gif_bytes() -> bytes:
    out = io.BytesIO()
    frames = [Image.new("RGB", (8, 8), colour) for colour in ("red", "blue")]
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:])
    return out.getvalue()


async def test_gif_search_lists_links_and_previews_the_first(site: LocalSite,  # noqa: F811
                                                             tmp_path: Path,
                                                             monkeypatch) -> None:
    monkeypatch.setenv("GIPHY_API_KEY", "test-key")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    site.routes["/cat.gif"] = Page(_gif_bytes(), "image/gif")
    site.routes["/search"] = lambda seen: Page(json.dumps({"data": [
        {"title": "Cat Typing", "url": "https://giphy.example/cat",
         "images": {"original": {"url": site.url("/cat.gif")},
                    "original_still": {"url": site.url("/cat.gif")}}},
        {"title": "Dog", "url": "https://giphy.example/dog",
         "images": {"original": {"url": site.url("/dog.gif")}}},
    ]}), "application/json")
    ctx = context(tmp_path, gif_search_url=site.url("/search"))

    result = await build(ctx, "gif_search", terms="cat typing", limit=2).execute()

    assert result.ok, result.llm_content
    assert f"Cat Typing: {site.url('/cat.gif')}" in result.llm_content
    assert "Dog:" in result.llm_content
    search = next(r for r in site.requests if r.path == "/search")
    assert search.query["q"] == ["cat typing"] and search.query["api_key"] == ["test-key"]
    with Image.open(result.image_files[0]) as preview:
        assert preview.format == "PNG" and preview.getpixel((0, 0)) == (255, 0, 0)


async def test_gif_search_without_a_key_says_where_to_get_one(tmp_path: Path,
                                                              monkeypatch) -> None:
    monkeypatch.delenv("GIPHY_API_KEY", raising=False)

    result = await build(context(tmp_path), "gif_search", terms="cat").execute()

    assert not result.ok and "GIPHY_API_KEY" in result.llm_content
