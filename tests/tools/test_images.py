"""Tests of read_image with real PNG, JPEG, GIF and WebP bytes built here."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.images import MAX_IMAGE_BYTES, ReadImageTool, image_size, sniff_image


def png(width: int = 1, height: int = 1) -> bytes:
    """A valid RGB PNG of ``width`` x ``height`` black pixels."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"".join(b"\0" + bytes(3 * width) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                             0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def gif(width: int, height: int) -> bytes:
    """A GIF89a header with a logical screen of ``width`` x ``height`` and one black pixel."""
    return (b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + bytes(6)
            + b",\0\0\0\0\1\0\1\0\0\2\2D\1\0;")


def jpeg(width: int, height: int) -> bytes:
    """A JPEG's headers: SOI, an APP0 (JFIF) segment, a DQT, then a baseline SOF0."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0\1\1\0\0\1\0\1\0\0"
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\0" + bytes(64)
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\1\x11\0"
    return b"\xff\xd8" + app0 + dqt + sof + b"\xff\xd9"


def webp(kind: bytes, width: int, height: int) -> bytes:
    """A WebP RIFF container with a VP8, VP8L or VP8X first chunk of the given canvas."""
    if kind == b"VP8 ":
        body = b"\0\0\0" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height) + bytes(4)
    elif kind == b"VP8L":
        bits = (width - 1) | ((height - 1) << 14)
        body = b"\x2f" + struct.pack("<I", bits) + bytes(3)
    else:
        body = b"\0\0\0\0" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    chunk = kind + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", supports_images=True,
                       settings=SimpleNamespace(model="openai/gpt-4o"))


async def read_image(ctx: ToolContext, **args):
    return await ReadImageTool().build(args, ctx).execute()


@pytest.mark.parametrize(("data", "media_type", "size"), [
    (png(3, 2), "image/png", (3, 2)),
    (jpeg(640, 480), "image/jpeg", (640, 480)),
    (gif(17, 9), "image/gif", (17, 9)),
    (webp(b"VP8 ", 320, 200), "image/webp", (320, 200)),
    (webp(b"VP8L", 1000, 16000), "image/webp", (1000, 16000)),
    (webp(b"VP8X", 4096, 300), "image/webp", (4096, 300)),
])
def test_formats_and_dimensions_from_headers(data: bytes, media_type: str, size) -> None:
    assert sniff_image(data[:12]) == media_type
    assert image_size(data, media_type) == size


def test_sniffing_ignores_names_and_text() -> None:
    assert sniff_image(b"just some text") is None
    assert sniff_image(b"RIFF\0\0\0\0WAVE") is None


async def test_reads_images_into_parts(ctx: ToolContext) -> None:
    # Names lie on purpose: formats are told by content.
    (ctx.workdir / "dot.png").write_bytes(png())
    (ctx.workdir / "photo.bin").write_bytes(jpeg(640, 480))
    result = await read_image(ctx, file_paths=["dot.png", "photo.bin"])
    assert result.ok, result.error
    assert [part.media_type for part in result.images] == ["image/png", "image/jpeg"]
    assert base64.b64decode(result.images[0].data_base64) == png()
    assert f"- dot.png: PNG, {len(png()):,} bytes, 1x1 pixels" in result.llm_content
    assert "- photo.bin: JPEG, " in result.llm_content and "640x480 pixels" in result.llm_content


async def test_paths_alias_and_partial_failure(ctx: ToolContext) -> None:
    (ctx.workdir / "anim.gif").write_bytes(gif(2, 2))
    (ctx.workdir / "notes.txt").write_text("not an image\n")
    result = await read_image(ctx, paths=["anim.gif", "notes.txt", "gone.png"])
    assert result.ok
    assert len(result.images) == 1
    assert "notes.txt is not a PNG, JPEG, GIF or WebP image" in result.llm_content
    assert "file not found: gone.png" in result.llm_content


async def test_only_failures_is_an_error(ctx: ToolContext) -> None:
    (ctx.workdir / "notes.txt").write_text("text\n")
    result = await read_image(ctx, file_paths=["notes.txt"])
    assert not result.ok and result.images == []
    assert "not a PNG, JPEG, GIF or WebP image" in result.error


async def test_model_without_images_gets_a_clear_error(tmp_path: Path) -> None:
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", supports_images=False,
                      settings=SimpleNamespace(model="openai/fake-model"))
    (tmp_path / "dot.png").write_bytes(png())
    result = await read_image(ctx, file_paths=["dot.png"])
    assert not result.ok and result.images == []
    assert "the model openai/fake-model cannot take images" in result.error
    assert "switch to a multimodal model (e.g. " in result.error
    assert "dot.png: PNG" in result.error


async def test_too_large_image_is_refused(ctx: ToolContext) -> None:
    big = png() + bytes(MAX_IMAGE_BYTES)
    (ctx.workdir / "huge.png").write_bytes(big)
    result = await read_image(ctx, file_paths=["huge.png"])
    assert not result.ok
    assert f"{len(big):,} bytes, over the {MAX_IMAGE_BYTES:,}-byte limit" in result.error


def test_metadata_and_empty_list(ctx: ToolContext) -> None:
    tool = ReadImageTool()
    assert tool.kind is ToolKind.READ and tool.read_only
    invocation = tool.build({"file_paths": ["a.png", "b/c.gif"]}, ctx)
    assert invocation.describe() == "read_image a.png, b/c.gif"
    assert invocation.locations() == [ctx.workdir / "a.png", ctx.workdir / "b/c.gif"]
    with pytest.raises(ToolArgumentError):
        tool.build({"file_paths": []}, ctx)
