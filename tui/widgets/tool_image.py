"""Images a tool saved (a screenshot), shown in the call's block under its summary line.

Each image is drawn here in half cells with Pillow: a cell is "▀" with the upper pixel as
its colour and the lower as its background, so a picture is the same on every terminal, under
``App.run_test()`` and in snapshots. textual-image is not used: importing it asks the
terminal which graphics it has (writing to stdout, reading stdin with timeouts) and
cannot do that once Textual owns stdin. Imported lazily in a running workbench it stalled
the loop and the terminal's answer arrived as keys typed into the app; under pilot it
picks a grey shade-character renderer, so a snapshot would not show what a person sees.

Pillow is imported, and a file decoded, only when a block with an image is shown; decoding
runs in a thread (:meth:`ToolImage.load`) and keeps a small copy, so drawing at any width
costs a resize of at most ``MAX_COLUMNS`` × ``2 * MAX_ROWS`` pixels.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.content import Content
from textual.strip import Strip
from textual.visual import RenderOptions, Visual

from ..outside_text import outside_content

if TYPE_CHECKING:
    from PIL.Image import Image
    from textual.css.styles import RulesMap
    from textual.style import Style

MAX_ROWS = 16
"""Rows a picture takes at most (twice as many pixel rows); its width follows the ratio."""
MAX_COLUMNS = 400
"""Columns a picture takes at most, however wide the conversation."""
MAX_PIXELS = 50_000_000
"""Larger images are not decoded (an 8K screenshot is 33 M): one line says so instead."""
INDENT = 2
"""Cells a picture and its caption are indented, under the summary's status icon."""

Pixel = tuple[int, int, int]


class ToolImage:
    """One image file a call saved, as its block shows it: a picture and a caption line.

    :meth:`load` reads the file once (it blocks: run it in a thread) and keeps a copy no
    larger than the biggest picture drawn; every copy of the block shares this object, so
    scrolling back to a call does not read the file again.

    Args:
        path: The image file, as the tool gave it (absolute).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.pixels: tuple[int, int] | None = None
        """The image's width and height in pixels, once loaded."""
        self.problem: str | None = None
        """What the block says instead of the picture (missing, unreadable), once loaded."""
        self._preview: Image | None = None
        self._loaded = False
        self._lock = threading.Lock()
        self._drawn: tuple[tuple[int, Pixel], list[Strip]] | None = None

    @property
    def loaded(self) -> bool:
        """Whether :meth:`load` has run (the picture or the problem is known)."""
        return self._loaded

    def load(self) -> None:
        """Read the file and keep a copy scaled to the largest picture (blocking).

        Safe to call from several threads and more than once: the file is read once. A
        missing or unreadable file sets :attr:`problem` instead of raising.
        """
        with self._lock:
            if self._loaded:
                return
            try:
                self.pixels, self._preview = _read_preview(self.path)
            except FileNotFoundError:
                self.problem = "image missing (moved or deleted since the call)"
            except Exception as exc:  # noqa: BLE001
                # Pillow's decoders raise many kinds (OSError, SyntaxError, EOFError,
                # DecompressionBombError…): any of them is a file that cannot be shown.
                self.problem = f"cannot show the image ({_reason(exc)})"
            self._loaded = True

    def caption(self) -> Content:
        """The line under the picture: the file's path (literal) and its size in pixels,
        or what is wrong with the file."""
        indent = " " * INDENT
        path = outside_content(self.path)
        if not self._loaded:
            return Content.assemble(indent, path, ("  loading…", "dim"))
        if self.problem is not None:
            return Content.assemble(indent, outside_content(f"⚠ {self.problem}: {self.path}",
                                                            "$warning"))
        width, height = self.pixels or (0, 0)
        return Content.assemble(indent, path, (f"  {width}×{height} px", "dim"))

    def picture_size(self, width: int) -> tuple[int, int]:
        """The picture's columns and pixel rows (two a line) in ``width`` cells; (0, 0)
        before it is loaded or when it cannot be shown."""
        if self._preview is None or width <= INDENT:
            return 0, 0
        columns, rows = self._preview.size
        scale = min(1.0, (width - INDENT) / columns)
        return max(1, int(columns * scale)), max(1, round(rows * scale))

    def picture_height(self, width: int) -> int:
        """Lines the picture takes in ``width`` cells."""
        return (self.picture_size(width)[1] + 1) // 2

    def picture_strips(self, width: int, style: Style) -> list[Strip]:
        """The picture in half cells, fitted to ``width`` (transparency over ``style``'s
        background); kept for the last width drawn."""
        background = style.background.rgb if style.background is not None else (0, 0, 0)
        key = (width, background)
        if self._drawn is not None and self._drawn[0] == key:
            return self._drawn[1]
        columns, rows = self.picture_size(width)
        if self._preview is None or not columns:
            return []
        picture = self._preview
        if picture.size != (columns, rows):
            from PIL.Image import Resampling

            picture = picture.resize((columns, rows), Resampling.BOX)
        strips = _half_cells(picture, background, style.rich_style)
        self._drawn = key, strips
        return strips


class WithImages(Visual):
    """A tool block's summary with the call's images under it, then the rest of the block.

    Args:
        head: The summary line.
        images: The call's images, each drawn with its caption.
        body: What the expanded block shows after the images (arguments and output).
    """

    def __init__(self, head: Content, images: Sequence[ToolImage],
                 body: Content | None = None) -> None:
        self.head = head
        self.images = list(images)
        self.body = body

    def __str__(self) -> str:
        lines = [str(self.head), *(str(image.caption()) for image in self.images)]
        if self.body is not None:
            lines.append(str(self.body))
        return "\n".join(lines)

    def _texts(self) -> list[Content]:
        return [self.head, *(image.caption() for image in self.images),
                *([self.body] if self.body is not None else [])]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max(text.get_optimal_width(rules, container_width) for text in self._texts())

    def get_height(self, rules: RulesMap, width: int) -> int:
        return (sum(text.get_height(rules, width) for text in self._texts())
                + sum(image.picture_height(width) for image in self.images))

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        strips = self.head.render_strips(width, None, style, options)
        for image in self.images:
            strips.extend(image.picture_strips(width, style))
            strips.extend(image.caption().render_strips(width, None, style, options))
        if self.body is not None:
            strips.extend(self.body.render_strips(width, None, style, options))
        return strips if height is None else strips[:height]


def _read_preview(path: str) -> tuple[tuple[int, int], Image]:
    """The image's size and an RGBA copy fitted into the largest picture (blocking)."""
    from PIL import Image as PILImage

    with PILImage.open(path) as image:
        size = image.size
        if size[0] * size[1] > MAX_PIXELS:
            raise ValueError(f"{size[0]}×{size[1]} pixels: too large")
        box = (MAX_COLUMNS, 2 * MAX_ROWS)
        image.draft("RGB", box)  # JPEG decodes at a fraction of its size; others ignore it
        preview = image.convert("RGBA")
    # Area averages: no ringing at the sharp edges of a screenshot's windows and text.
    preview.thumbnail(box, PILImage.Resampling.BOX, reducing_gap=None)
    return size, preview


def _reason(exc: BaseException) -> str:
    """What went wrong reading an image, in a few words."""
    from PIL import Image as PILImage

    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, IsADirectoryError):
        return "it is a directory"
    if isinstance(exc, PILImage.UnidentifiedImageError):
        return "not an image Pillow can read"
    if isinstance(exc, PILImage.DecompressionBombError):
        return "too many pixels"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= 80 else text[:79] + "…"


def _half_cells(picture: Image, background: Pixel, base: RichStyle) -> list[Strip]:
    """``picture`` as strips of "▀": two pixel rows a line, alpha blended on ``background``."""
    columns, rows = picture.size
    data = picture.tobytes()
    styles: dict[tuple[Pixel, Pixel | None], RichStyle] = {}

    def pixel(x: int, y: int) -> Pixel:
        at = 4 * (y * columns + x)
        red, green, blue, alpha = data[at:at + 4]
        if alpha == 255:
            return red, green, blue
        return (
            (red * alpha + background[0] * (255 - alpha)) // 255,
            (green * alpha + background[1] * (255 - alpha)) // 255,
            (blue * alpha + background[2] * (255 - alpha)) // 255,
        )

    def cell_style(top: Pixel, bottom: Pixel | None) -> RichStyle:
        if (top, bottom) not in styles:
            # The last line of an odd number of rows keeps the block's own background.
            styles[top, bottom] = base + RichStyle(
                color=RichColor.from_rgb(*top),
                bgcolor=RichColor.from_rgb(*bottom) if bottom is not None else None)
        return styles[top, bottom]

    strips = []
    for y in range(0, rows, 2):
        segments: list[Segment] = []
        run_style: RichStyle | None = None
        run = 0
        for x in range(columns):
            style = cell_style(pixel(x, y), pixel(x, y + 1) if y + 1 < rows else None)
            if style is not run_style and run:
                segments.append(Segment("▀" * run, run_style))
                run = 0
            run_style = style
            run += 1
        if run:
            segments.append(Segment("▀" * run, run_style))
        strips.append(Strip([Segment(" " * INDENT, base), *segments], INDENT + columns))
    return strips
