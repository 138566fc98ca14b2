"""Textual's scroll bar drawn without Rich's console.

The conversation's scroll bar changes with every frame that follows a streamed answer (the
answer grows, the thumb moves), and Textual draws it as a Rich renderable through Rich's
console, a noticeable share of each frame of a fast stream. :class:`ScrollBarVisual`
draws the same cells — Textual's own segments, from ``ScrollBarRender.render_bar`` — as a
Textual Visual, straight into strips, and keeps the last few bars it drew.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.css.styles import RulesMap
from textual.scrollbar import ScrollBarRender
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

DEFAULT_BACK = Color.parse("#555555")
DEFAULT_BAR = Color.parse("bright_magenta")


@lru_cache(maxsize=64)
def bar_strips(size: int, thickness: int, virtual_size: int, window_size: int,
               position: float, vertical: bool, style: RichStyle,
               base: RichStyle) -> list[Strip]:
    """The lines of a scroll bar ``size`` cells long and ``thickness`` thick, as Textual's
    ``ScrollBarRender`` draws it in ``style`` on a widget whose own style is ``base``."""
    bar = ScrollBarRender.render_bar(
        size=size, virtual_size=virtual_size, window_size=window_size, position=position,
        thickness=thickness, vertical=vertical, back_color=style.bgcolor or DEFAULT_BACK,
        bar_color=style.color or DEFAULT_BAR)
    segments = list(Segment.apply_style(bar.segments, base))
    if vertical:  # a segment a line
        return [Strip([segment], thickness) for segment in segments]
    return [Strip(line, size) for line in Segment.split_lines(segments)][:thickness]


class ScrollBarVisual(ScrollBarRender, Visual):
    """A scroll bar renderer (``ScrollBar.renderer``) that Textual draws as a Visual."""

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        rich_style = self.style if isinstance(self.style, RichStyle) \
            else RichStyle.parse(str(self.style))
        size, thickness = (height or 0, width) if self.vertical else (width, height or 1)
        return bar_strips(size, thickness, self.virtual_size, self.window_size,
                          self.position, self.vertical, rich_style, style.rich_style)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.thickness if self.vertical else container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return 1 if self.vertical else self.thickness
