"""Web tools: web_fetch reads a page as Markdown (web_search, in :mod:`.web_search`, asks a
configured search service).

Both are off until the person turns the network on (``/net on``, ``--net`` or
``network = true``); the model is then told how to ask for it. HTTP goes through an httpx
async client with timeouts and no retries: a failed request becomes an error the model reads.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import httpx
from pydantic import Field

from .base import (
    Confirmation,
    ErrorType,
    Invocation,
    OutputCallback,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .names import ToolName

if TYPE_CHECKING:
    from bs4 import Tag

NETWORK_OFF_MESSAGE = (
    "network tools are off; ask the user to turn them on with /net on or --net "
    "(or network = true in config.toml), or do without the web"
)
"""What the model is told when it calls a network tool while the network is off."""
MAX_REDIRECTS = 5
"""Redirects web_fetch follows before it gives up."""
MAX_DOWNLOAD_BYTES = 5_000_000
"""Bytes of a response body read at most; the rest is never downloaded."""
MAX_FETCH_CHARS = 200_000
"""The largest ``max_chars`` web_fetch accepts."""
USER_AGENT = "agent-tui (+https://github.com/agent-tui) python-httpx"
"""Sent with every request; some sites refuse clients without one."""

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = ("application/xml", "application/javascript", "application/x-yaml",
               "application/yaml", "application/toml", "application/x-sh")
_DROPPED_TAGS = ("script", "style", "noscript", "template", "nav", "svg", "canvas", "iframe",
                 "form", "button", "select", "input", "object", "embed")
_CODE_LANGUAGE = re.compile(r"^(?:language|lang|highlight-source)-(\S+)$")


def check_network(ctx: ToolContext) -> None:
    """Refuse a network tool's call while the network is off.

    Checked when the call is built, so nobody is asked to approve a call that cannot run.

    Raises:
        ToolArgumentError: with ``NETWORK_OFF_MESSAGE``.
    """
    if not ctx.network_enabled:
        raise ToolArgumentError(NETWORK_OFF_MESSAGE, ErrorType.UNAVAILABLE)


def http_client(timeout: float, *, follow_redirects: bool = False) -> httpx.AsyncClient:
    """An httpx client for one tool call: its timeouts, no retries, our user agent."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout), follow_redirects=follow_redirects,
        max_redirects=MAX_REDIRECTS, headers={"User-Agent": USER_AGENT})


def describe_http_error(exc: httpx.HTTPError, url: str, timeout: float) -> str:
    """Say what went wrong with a request to ``url`` and what the model can do next."""
    host = urlsplit(url).hostname or url
    if isinstance(exc, httpx.TimeoutException):
        return timeout_message(url, timeout)
    if isinstance(exc, httpx.TooManyRedirects):
        return (f"{url} redirected more than {MAX_REDIRECTS} times; it may loop: fetch the "
                "final address directly if you know it")
    if isinstance(exc, httpx.UnsupportedProtocol):
        return f"{url} led to an address that is not http or https ({exc}); only web pages can be fetched"
    if isinstance(exc, httpx.ConnectError):
        text = str(exc)
        if any(s in text for s in ("Name or service not known", "nodename nor servname",
                                   "Temporary failure in name resolution",
                                   "No address associated", "getaddrinfo")):
            return f"could not resolve the host {host} (DNS lookup failed); check the spelling of the address"
        return f"could not connect to {host} ({text or type(exc).__name__}); check the address or try later"
    return f"the request to {url} failed ({type(exc).__name__}: {exc}); try again or another source"


def http_failure(exc: httpx.HTTPError, url: str, timeout: float) -> ToolResult:
    """The failed result of a request to ``url`` that raised ``exc``: a ``timeout`` when
    it took longer than ``timeout`` seconds."""
    kind = ErrorType.TIMEOUT if isinstance(exc, httpx.TimeoutException) else ErrorType.FAILED
    return ToolResult.failure(describe_http_error(exc, url, timeout), error_type=kind)


def timeout_message(url: str, timeout: float) -> str:
    """Say that ``url`` took longer than ``timeout`` seconds."""
    return (f"timed out after {timeout:g} s waiting for {url}; the server is slow or "
            "unreachable: try again with a larger timeout, or another source")


def http_status_error(response: httpx.Response, what: str) -> str:
    """E.g. ``https://x/y answered 404 Not Found``."""
    reason = response.reason_phrase or httpx.codes.get_reason_phrase(response.status_code)
    return f"{what} answered {response.status_code} {reason}".rstrip()


# -- web_fetch ---------------------------------------------------------------------------


class WebFetchParams(ToolParams):
    """Arguments of web_fetch."""

    url: str = Field(description="The http or https address to read, e.g. "
                                 "`https://docs.python.org/3/library/asyncio.html`.")
    max_chars: int = Field(
        default=20_000, ge=500, le=MAX_FETCH_CHARS,
        description="Characters of the page returned at most (default 20000); longer pages "
                    "are cut with a note.")
    timeout: float = Field(default=20, gt=0, le=300,
                           description="Seconds to wait for the whole page (default 20).")


class WebFetchTool(Tool):
    """Fetches a web page and returns it as readable Markdown."""

    name = ToolName.WEB_FETCH
    kind = ToolKind.FETCH
    description = (
        "Fetch a web page over http or https and return it as Markdown (title, headings, "
        "links with absolute addresses, code blocks); scripts, styles and navigation are "
        "dropped. Plain text and JSON come back as they are; other content types (PDF, "
        "images) are refused. Redirects are followed. Long pages are cut at max_chars."
    )
    Params = WebFetchParams

    def validate(self, params: WebFetchParams, ctx: ToolContext) -> None:
        """Refuse when the network is off or the address is not http(s)."""
        check_network(ctx)
        parts = urlsplit(params.url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ToolArgumentError(
                f"url must be an absolute http:// or https:// address, not {params.url!r}")

    def create_invocation(self, params: WebFetchParams, ctx: ToolContext) -> WebFetchInvocation:
        """Make the invocation."""
        return WebFetchInvocation(self, params, ctx)


@dataclass(slots=True)
class _Page:
    url: str
    content_type: str
    charset: str | None
    body: bytes
    cut: bool


class WebFetchInvocation(Invocation[WebFetchParams]):
    """One web_fetch call."""

    @property
    def url(self) -> str:
        """The address asked for."""
        return self.params.url.strip()

    def describe(self) -> str:
        """E.g. ``web_fetch: https://example.com``."""
        return f"web_fetch: {self.url}"

    def confirmation(self) -> Confirmation:
        """The address that will be fetched."""
        return Confirmation(kind="info", title="Fetch a web page", details=self.url)

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Fetch, convert and cap the page; failures come back as error results."""
        if not self.ctx.network_enabled:
            return ToolResult.failure(NETWORK_OFF_MESSAGE, error_type=ErrorType.UNAVAILABLE)
        timeout = self.params.timeout
        try:
            async with asyncio.timeout(timeout):
                page = await self._download(timeout)
        except TimeoutError:
            return ToolResult.failure(timeout_message(self.url, timeout),
                                      error_type=ErrorType.TIMEOUT)
        except httpx.HTTPError as exc:
            return http_failure(exc, self.url, timeout)
        except _HttpStatus as exc:
            return ToolResult.failure(str(exc))
        kind = page.content_type
        if kind in _HTML_TYPES or (not kind and page.body.lstrip()[:1] == b"<"):
            title, text = html_to_markdown(page.body, page.url, page.charset)
        elif (not kind or kind.startswith("text/") or kind in _TEXT_TYPES or _is_json(kind)
              or kind.endswith("+xml")):
            title, text = "", _decode(page.body, page.charset)
            if _is_json(kind):
                text = _pretty_json(text)
        else:
            return ToolResult.failure(
                f"{page.url} is {kind}, which web_fetch does not read (it reads HTML, plain "
                "text and JSON); download it with the shell tool if you need the file")
        return self._result(page, title, text)

    async def _download(self, timeout: float) -> _Page:
        async with http_client(timeout, follow_redirects=True) as client, \
                client.stream("GET", self.url) as response:
            if response.status_code >= 400:
                raise _HttpStatus(http_status_error(response, self.url) + _status_hint(
                    response.status_code))
            body = bytearray()
            cut = False
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) >= MAX_DOWNLOAD_BYTES:
                    del body[MAX_DOWNLOAD_BYTES:]
                    cut = True
                    break
            content_type = response.headers.get("content-type", "")
            kind = content_type.split(";")[0].strip().lower()
            return _Page(str(response.url), kind, response.charset_encoding, bytes(body), cut)

    def _result(self, page: _Page, title: str, text: str) -> ToolResult:
        text = text.strip()
        total = len(text)
        limit = self.params.max_chars
        header = [f"URL: {page.url}"]
        if page.url != self.url:
            header.append(f"(redirected from {self.url})")
        if title:
            header.append(f"Title: {title}")
        notes = []
        if total > limit:
            text = text[:limit].rstrip()
            notes.append(f"[truncated: showing the first {limit:,} of {total:,} characters; "
                         f"call web_fetch again with a larger max_chars (up to "
                         f"{MAX_FETCH_CHARS:,}) to read more]")
        if page.cut:
            notes.append(f"[the page is larger than {MAX_DOWNLOAD_BYTES:,} bytes; only its "
                         "beginning was downloaded]")
        body = text or "(the page has no readable text)"
        content = "\n".join(header) + "\n\n" + body + ("\n\n" + "\n".join(notes) if notes else "")
        shown = min(total, limit)
        return ToolResult(llm_content=content,
                          display=f"fetched {page.url} ({shown:,} characters)")


class _HttpStatus(Exception):
    """The server answered with an error status."""


def _status_hint(status: int) -> str:
    if status in (401, 403):
        return "; the page needs a login or refuses automated clients: try another source"
    if status == 404:
        return "; the page does not exist: check the address or search for the current one"
    if status == 429:
        return "; the site is rate limiting: wait before trying again, or use another source"
    if status >= 500:
        return "; the server failed: try again later or use another source"
    return "; check the address"


def _is_json(kind: str) -> bool:
    return kind == "application/json" or kind.endswith("+json")


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", errors="replace")


def _pretty_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def html_to_markdown(body: bytes | str, base_url: str,
                     charset: str | None = None) -> tuple[str, str]:
    """Convert an HTML page to readable Markdown.

    Scripts, styles, navigation and forms are dropped; the page's ``<main>`` (or its only
    ``<article>``) is preferred over the whole body; links and images get absolute
    addresses; code blocks keep their language.

    Returns:
        The page's title ("" if none) and the Markdown.
    """
    from bs4 import BeautifulSoup
    from markdownify import STRIP_ONE, MarkdownConverter

    soup = BeautifulSoup(body, "html.parser", from_encoding=charset if isinstance(body, bytes)
                         else None)
    title = " ".join(soup.title.get_text().split()) if soup.title else ""
    for tag in soup.find_all(_DROPPED_TAGS):
        tag.decompose()
    for tag in soup.find_all(["head", "title"]):
        tag.decompose()
    for tag in soup.find_all("a", href=True):
        href = str(tag["href"]).strip()
        if href.lower().startswith("javascript:"):
            del tag["href"]
        else:
            tag["href"] = urljoin(base_url, href)
    for tag in soup.find_all("img"):
        src = str(tag.get("src") or "")
        if not src or src.startswith("data:"):
            tag.decompose()
        else:
            tag["src"] = urljoin(base_url, src)
    articles = soup.find_all("article")
    root = soup.find("main") or (articles[0] if len(articles) == 1 else None) or soup.body or soup
    converter = MarkdownConverter(heading_style="ATX", bullets="-", strip_pre=STRIP_ONE,
                                  code_language_callback=_code_language)
    text = converter.convert_soup(root)
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return title, text.strip()


def _code_language(tag: Tag) -> str:
    """The language of a ``<pre>`` block from its (or its ``<code>``'s) class."""
    for node in (tag, tag.find("code")):
        if node is None:
            continue
        for cls in node.get("class") or []:
            match = _CODE_LANGUAGE.match(cls)
            if match:
                return match.group(1)
    return ""


# -- web_search --------------------------------------------------------------------------
