"""Pictures a tool saved (screenshots), drawn in the conversation with half-block cells.

Each cell is "▀" with the upper pixel as its colour and the lower one as its background, so
a picture shows in any terminal with true colour, the same under pilot and in snapshots,
and costs the terminal nothing more than text. Decoding and scaling are done off the event
loop (:func:`render_previews` runs in a thread).
"""

from __future__ import annotations

from pathlib import Path

from textual.content import Content

from ..outside_text import outside_content

MAX_COLUMNS = 64
"""Widest a picture is drawn, in cells."""
MAX_ROWS = 16
"""Tallest a picture is drawn, in cells (two pixels each)."""


def half_blocks(path: Path, columns: int = MAX_COLUMNS, rows: int = MAX_ROWS) -> Content:
    """The image at ``path`` scaled into ``columns`` x ``rows`` cells, keeping its shape.

    Raises:
        OSError: the file cannot be read or is not an image Pillow knows.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            picture = image.convert("RGB")
    except UnidentifiedImageError as exc:
        raise OSError(f"not an image: {exc}") from None
    # A terminal cell is about twice as tall as wide: one cell holds 1 x 2 pixels.
    scale = min(columns / picture.width, (rows * 2) / picture.height, 1.0)
    width = max(1, round(picture.width * scale))
    height = max(2, round(picture.height * scale))
    height += height % 2
    small = picture.resize((width, height), Image.Resampling.BOX)
    pixels = small.load()
    lines = []
    for y in range(0, height, 2):
        spans = [("▀", f"#{_hex(pixels[x, y])} on #{_hex(pixels[x, y + 1])}")
                 for x in range(width)]
        lines.append(Content.assemble(*spans))
    return Content("\n").join(lines)


def _hex(rgb: tuple[int, int, int]) -> str:
    red, green, blue = rgb
    return f"{red:02x}{green:02x}{blue:02x}"


def image_size(path: Path) -> tuple[int, int] | None:
    """(width, height) of the image at ``path``, or None."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            return image.size
    except (OSError, ValueError):
        return None


def preview(path_text: str) -> Content:
    """One saved image as the conversation shows it: the picture and a line with its path
    and size, or one line saying it cannot be shown."""
    path = Path(path_text)
    try:
        picture = half_blocks(path)
    except (OSError, ValueError) as exc:
        reason = "missing" if not path.exists() else f"cannot be shown ({exc})"
        return Content.assemble(("  image ", "dim"), outside_content(path_text),
                                (f" {reason}", "$warning"))
    size = image_size(path)
    caption = Content.assemble(("  ", ""), outside_content(path_text, "dim"),
                               (f"  {size[0]}x{size[1]} px" if size else "", "dim"))
    return Content.assemble(picture, "\n", caption)


def render_previews(paths: list[str]) -> Content | None:
    """Every image of a call, one under the other (None when there are none)."""
    if not paths:
        return None
    return Content("\n").join(preview(path) for path in paths)
