"""gif_search: GLTCH's ``[ACTION:gif|terms]`` — find GIFs with the Giphy API.

Needs ``GIPHY_API_KEY`` in the environment; asks ``gif_search_url`` (Giphy's search endpoint
by default). The model gets each GIF's title and links; people also see the first GIF's first
frame in the call's block. A network tool: refused while the network is off, and it asks
first unless the endpoint's domain is in ``http_allowed_domains``.
"""

from __future__ import annotations

import hashlib
import io
import os

import httpx
from pydantic import Field

from .base import (
    Invocation,
    OutputCallback,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .http_request import allowed_domain
from .images import screenshot_path
from .names import ToolName
from .web import check_network, http_client, http_failure, http_status_error

KEY_ENV = "GIPHY_API_KEY"
DEFAULT_URL = "https://api.giphy.com/v1/gifs/search"
TIMEOUT_S = 20.0
MAX_PREVIEW_BYTES = 8_000_000


class GifSearchParams(ToolParams):
    """Arguments of gif_search."""

    terms: str = Field(description="What the GIF should show, e.g. 'cat typing'.")
    limit: int = Field(3, ge=1, le=10, description="How many GIFs (default 3).")


class GifSearchInvocation(Invocation[GifSearchParams]):
    """One search."""

    def describe(self) -> str:
        return f"gif_search {self.params.terms}"

    def _url(self) -> str:
        return getattr(self.ctx.settings, "gif_search_url", None) or DEFAULT_URL

    def harmless(self) -> str | None:
        domain = allowed_domain(self._url(), self.ctx.settings)
        return f"a search on {domain}, in http_allowed_domains" if domain else None

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        key = os.environ.get(KEY_ENV)
        if not key:
            return ToolResult.failure(f"gif_search needs a Giphy API key in {KEY_ENV}; the "
                                      "user can create one at developers.giphy.com and set it")
        url = self._url()
        query: dict[str, str | int] = {"api_key": key, "q": self.params.terms,
                                       "limit": self.params.limit, "rating": "g"}
        try:
            async with http_client(TIMEOUT_S) as client:
                response = await client.get(url, params=query)
                if response.status_code != 200:
                    return ToolResult.failure(http_status_error(response, "Giphy") +
                                              "; check GIPHY_API_KEY")
                gifs = _gifs(response.json())
                preview = await _first_frame(client, gifs[0]["still"] or gifs[0]["gif"]) \
                    if gifs else None
        except httpx.HTTPError as exc:
            return http_failure(exc, url, TIMEOUT_S)
        except ValueError:
            return ToolResult.failure("Giphy answered with something other than JSON; try "
                                      "again later")
        if not gifs:
            return ToolResult(f"No GIFs found for {self.params.terms!r}.")
        lines = [f"{len(gifs)} GIFs for {self.params.terms!r}:"]
        lines += [f"- {g['title'] or 'untitled'}: {g['gif']} (page: {g['page']})" for g in gifs]
        result = ToolResult("\n".join(lines) + "\nShow the user the link(s) you pick.")
        if preview is not None:
            digest = hashlib.sha1(gifs[0]["gif"].encode()).hexdigest()[:12]
            path = screenshot_path(f"gif-{digest}.png")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(preview)
            result.image_files.append(str(path))
        return result


def _gifs(payload: object) -> list[dict[str, str]]:
    """Title, GIF link, still image and page of each result of a Giphy search answer."""
    found = []
    items = payload.get("data") if isinstance(payload, dict) else None
    for item in items if isinstance(items, list) else []:
        images = item.get("images") or {}
        original = images.get("original") or {}
        still = images.get("original_still") or images.get("fixed_height_still") or {}
        gif = original.get("url") or item.get("url")
        if gif:
            found.append({"title": str(item.get("title") or "").strip(), "gif": gif,
                          "still": still.get("url") or "", "page": item.get("url") or gif})
    return found


async def _first_frame(client: httpx.AsyncClient, url: str) -> bytes | None:
    """The image at ``url``'s first frame as PNG, for the preview; None when it fails."""
    try:
        response = await client.get(url)
        if response.status_code != 200 or len(response.content) > MAX_PREVIEW_BYTES:
            return None
        from PIL import Image

        with Image.open(io.BytesIO(response.content)) as image:
            image.seek(0)
            out = io.BytesIO()
            image.convert("RGB").save(out, "PNG")
            return out.getvalue()
    except (httpx.HTTPError, OSError, ValueError):
        return None  # a preview is a courtesy: the links are the result


class GifSearchTool(Tool):
    """Finds GIFs (GLTCH's gif action)."""

    name = ToolName.GIF_SEARCH
    kind = ToolKind.FETCH
    description = ("Search GIFs on Giphy: returns titles and links (the first is previewed to "
                   "the user). Network tool: off until the user turns the network on.")
    Params = GifSearchParams

    def validate(self, params: GifSearchParams, ctx: ToolContext) -> None:
        check_network(ctx)
        if not params.terms.strip():
            raise ToolArgumentError("the search terms are empty; say what the GIF should show")

    def create_invocation(self, params: GifSearchParams, ctx: ToolContext) -> GifSearchInvocation:
        return GifSearchInvocation(self, params, ctx)
