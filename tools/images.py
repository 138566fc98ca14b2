"""The read_image tool: PNG, JPEG, GIF and WebP files handed to a multimodal model.

Formats are told by their magic bytes, never by the file name, and pixel sizes are read from
the headers (PNG IHDR, GIF logical screen, JPEG SOF, WebP VP8/VP8L/VP8X), so no imaging
library is needed.
"""

from __future__ import annotations

import asyncio
import base64
import io
import os
import re
import struct
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import AliasChoices, Field

from ..core.text.durable import write_atomically
from .base import (
    ImagePart,
    Invocation,
    OutputCallback,
    Tool,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .files import display_path, file_problem
from .names import ToolName

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Largest image read_image sends (most providers refuse bigger ones)."""
MULTIMODAL_EXAMPLES = "anthropic/claude-sonnet-4-20250514, openai/gpt-4o or gemini/gemini-2.5-flash"
"""Models named in the error for a model that cannot take images."""

_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP"}
# JPEG start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) do not.
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers that stand alone, without a length: TEM, RST0-7, SOI.
_JPEG_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})


def screenshot_path(path: str | None) -> Path:
    """Where a screenshot goes: ``~`` expanded, absolute kept, relative paths and bare names
    under the temp folder (seed 000: "Relative paths save to ~/tmp or $TMPDIR"), ``.png``
    added to a name without a suffix; a name with the time when none is given."""
    name = path or f"screenshot-{time.strftime('%Y%m%d-%H%M%S')}.png"
    p = Path(os.path.expanduser(name))
    if not p.suffix:
        p = p.with_suffix(".png")
    return p if p.is_absolute() else Path(tempfile.gettempdir()) / p


def in_temp_folder(path: Path) -> bool:
    """True for paths in the temp folder, where screenshots go by default (scratch space:
    saving there asks nobody)."""
    return path.is_relative_to(Path(tempfile.gettempdir()))


def sniff_image(header: bytes) -> str | None:
    """The media type of an image by its first bytes (12 suffice), or None if not supported."""
    if header.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if header.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if header[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if header[:4] == b"RIFF" and header[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_size(data: bytes, media_type: str) -> tuple[int, int] | None:
    """The (width, height) in pixels from an image's header, or None if it cannot be read."""
    try:
        if media_type == "image/png":
            if data[12:16] != b"IHDR":
                return None
            width, height = struct.unpack(">II", data[16:24])
            return width, height
        if media_type == "image/gif":
            width, height = struct.unpack("<HH", data[6:10])
            return width, height
        if media_type == "image/jpeg":
            return _jpeg_size(data)
        if media_type == "image/webp":
            return _webp_size(data)
    except struct.error:
        return None
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Walk the JPEG segments to the first start-of-frame and read its height and width."""
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in _JPEG_STANDALONE:
            pos += 2
            continue
        if marker == 0xDA:  # start of scan: the frame header would have come before
            return None
        (length,) = struct.unpack(">H", data[pos + 2:pos + 4])
        if marker in _JPEG_SOF:
            height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
            return width, height
        pos += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """Read the canvas size of a lossy (VP8), lossless (VP8L) or extended (VP8X) WebP."""
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8L" and data[20:21] == b"\x2f":
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


@dataclass(frozen=True, slots=True)
class LoadedImage:
    """An image file read for the model.

    Attributes:
        shown: The file's name as the model gave it, relative to the project when inside it.
        media_type: E.g. ``image/png``.
        data: The file's bytes.
        size: (width, height) in pixels, or None when the header could not be read.
    """

    shown: str
    media_type: str
    data: bytes
    size: tuple[int, int] | None

    def describe(self) -> str:
        """E.g. ``shot.png: PNG, 12,345 bytes, 800x600 pixels``."""
        pixels = f"{self.size[0]}x{self.size[1]} pixels" if self.size else "size unknown"
        return f"{self.shown}: {_FORMATS[self.media_type]}, {len(self.data):,} bytes, {pixels}"


def load_image(path: Path, shown: str) -> LoadedImage | str:
    """Read one image file, or say why it cannot be sent (missing, too big, not an image)."""
    problem = file_problem(path, shown, max_bytes=None)
    if problem:
        return problem
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            return (f"{shown} is {size:,} bytes, over the {MAX_IMAGE_BYTES:,}-byte limit for "
                    "images; make a smaller copy (e.g. with the shell tool: "
                    f"`convert {shown} -resize 50% small.png`) and read that")
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot read {shown}: {exc.strerror or exc}"
    media_type = sniff_image(data[:12])
    if media_type is None:
        return (f"{shown} is not a PNG, JPEG, GIF or WebP image (judged by its content, not "
                "its name); read text files with read_file")
    return LoadedImage(shown, media_type, data, image_size(data, media_type))


def no_images_message(ctx: ToolContext, what: str) -> str:
    """The error for a model that cannot take images, naming models that can."""
    model = getattr(ctx.settings, "model", None)
    who = f"the model {model}" if model else "the current model"
    return (f"{what}, but {who} cannot take images, so nothing was sent; switch to a "
            f"multimodal model (e.g. {MULTIMODAL_EXAMPLES}) with /model NAME or --model, then "
            "read the image again")


def smaller_png(png: bytes) -> tuple[bytes, tuple[int, int]]:
    """The PNG scaled down until it fits MAX_IMAGE_BYTES, and its new size."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        scaled = image.convert("RGB")
    while True:
        scaled = scaled.resize((max(1, scaled.width * 3 // 4), max(1, scaled.height * 3 // 4)))
        out = io.BytesIO()
        scaled.save(out, format="PNG", optimize=True)
        if out.tell() <= MAX_IMAGE_BYTES or scaled.width < 64:
            return out.getvalue(), scaled.size


def saved_screenshot(ctx: ToolContext, png: bytes, target: Path, text: str) -> ToolResult:
    """Write a screenshot to ``target`` (atomically) and make its result: ``text`` for the
    model, the file for people to see, and the picture attached when the model takes images
    (a scaled-down copy over MAX_IMAGE_BYTES, with the factor back to the original's pixels).

    Raises:
        OSError: ``target`` cannot be written.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, png)
    result = ToolResult(llm_content=text, image_files=[str(target)])
    if not ctx.supports_images:
        result.llm_content += " " + no_images_message(ctx, "The screenshot was saved")
        return result
    attached = png
    if len(png) > MAX_IMAGE_BYTES:
        attached, size = smaller_png(png)
        width = image_size(png, "image/png") or size
        result.llm_content += (f" The attached copy is scaled down to {size[0]}x{size[1]} to "
                               "fit the model's image limit; multiply its coordinates by "
                               f"{width[0] / size[0]:.2f} for the original.")
    else:
        result.llm_content += " It is attached below."
    result.images.append(ImagePart("image/png", base64.b64encode(attached).decode("ascii")))
    return result


def read_images(ctx: ToolContext, paths: list[Path]) -> ToolResult:
    """Read image files into a result with image parts; what read_image and read_file return.

    Files that cannot be read are listed in the text; the call fails only when none could.
    """
    loaded: list[LoadedImage] = []
    problems: list[str] = []
    for path in paths:
        outcome = load_image(path, display_path(ctx, path))
        if isinstance(outcome, str):
            problems.append(outcome)
        else:
            loaded.append(outcome)
    if not loaded:
        return ToolResult.failure("; ".join(problems))
    descriptions = "\n".join(f"- {image.describe()}" for image in loaded)
    if not ctx.supports_images:
        found = "; ".join(image.describe() for image in loaded)
        what = f"found the image {found}" if len(loaded) == 1 else f"found {len(loaded)} images ({found})"
        return ToolResult.failure(no_images_message(ctx, what))
    text = f"Read {len(loaded)} image(s), attached below for you to look at:\n{descriptions}"
    if problems:
        text += "\nNot read:\n" + "\n".join(f"- {problem}" for problem in problems)
    images = [ImagePart(image.media_type, base64.b64encode(image.data).decode("ascii"))
              for image in loaded]
    return ToolResult(llm_content=text, images=images)


class ReadImageParams(ToolParams):
    """Arguments of read_image."""

    file_paths: list[str] = Field(
        min_length=1,
        validation_alias=AliasChoices("file_paths", "paths"),
        description="Image files (PNG, JPEG, GIF or WebP), absolute or relative to the "
                    "project folder; `~` is expanded.")


class ReadImageTool(Tool):
    """Sends image files to a multimodal model for it to look at."""

    name = ToolName.READ_IMAGE
    kind = ToolKind.READ
    description = (
        "Look at image files (PNG, JPEG, GIF, WebP; up to 5 MB each): screenshots, "
        "diagrams, sprites. The images are attached for you to see, with their format, "
        "byte size and pixel dimensions. Needs a model that takes images."
    )
    Params = ReadImageParams

    def create_invocation(self, params: ReadImageParams, ctx: ToolContext) -> ReadImageInvocation:
        """Make the invocation."""
        return ReadImageInvocation(self, params, ctx)


class ReadImageInvocation(Invocation[ReadImageParams]):
    """One read_image call."""

    @property
    def paths(self) -> list[Path]:
        """The image files, resolved against the project folder."""
        return [self.ctx.resolve(p) for p in self.params.file_paths]

    def describe(self) -> str:
        """E.g. ``read_image shot.png, logo.gif``."""
        return "read_image " + ", ".join(display_path(self.ctx, p) for p in self.paths)

    def locations(self) -> list[Path]:
        """The image files."""
        return self.paths

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Read the images in a worker thread."""
        return await asyncio.to_thread(read_images, self.ctx, self.paths)


IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
"""The file names a prompt's images are recognised by."""
_MENTION = re.compile(r"""(?:^|\s)@?(?:'([^']+)'|"([^"]+)"|((?:\\ |\S)+))""")


def prompt_images(text: str, workdir: Path) -> tuple[list[LoadedImage], list[str]]:
    """The images a prompt attaches: each ``@path`` (or bare path, as a terminal pastes a
    dropped file, quoted or with escaped spaces) naming a PNG, JPEG, GIF or WebP file,
    relative to ``workdir`` or absolute; and why any such path could not be attached."""
    images: list[LoadedImage] = []
    problems: list[str] = []
    seen: set[Path] = set()
    for match in _MENTION.finditer(text):
        written = next(group for group in match.groups() if group is not None)
        written = written.replace("\\ ", " ").rstrip(".,;:!?)]}")  # the sentence's, not the path's
        mentioned = match.group(0).lstrip().startswith("@")
        if Path(written).suffix.lower() not in IMAGE_SUFFIXES:
            continue
        path = Path(os.path.expanduser(written))
        path = path if path.is_absolute() else workdir / path
        if not mentioned and not path.is_file():
            continue  # a bare word that merely ends in .png: not an attachment
        if path in seen:
            continue
        seen.add(path)
        loaded = load_image(path, written)
        if isinstance(loaded, str):
            problems.append(loaded)
        else:
            images.append(loaded)
    return images, problems


def prompt_image_parts(text: str, workdir: Path
                       ) -> tuple[list[tuple[str, ImagePart]], list[str]]:
    """:func:`prompt_images` as a model is sent them: each image's name and part, and why
    any could not be attached (``core.runtime.prompt_resolution.ImageReader``)."""
    loaded, problems = prompt_images(text, workdir)
    return list(zip((image.shown for image in loaded), image_parts(loaded), strict=True)), problems


def image_parts(images: list[LoadedImage]) -> list[ImagePart]:
    """The images as the parts a model is sent."""
    return [ImagePart(image.media_type, base64.b64encode(image.data).decode("ascii"))
            for image in images]
