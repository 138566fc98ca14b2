"""Textual's scroll bar drawn without Rich's console.

The conversation's scroll bar changes with every frame that follows a streamed answer (the
answer grows, the thumb moves), and Textual draws it as a Rich renderable through Rich's
console, a noticeable share of each frame of a fast stream. :class:`ScrollBarVisual`
draws the same cells — Textual's own segments, from ``ScrollBarRender.render_bar`` — as a
Textual Visual, straight into strips, and keeps the last few bars it drew.
:class:`RowsScrollBar` repaints, when it moves, only the rows whose cells changed (a thumb
moving by a line changes two rows of forty).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Self

from rich.color import Color
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.css.styles import RulesMap
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

from .one_layout import RepaintsChangedRows

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


class RowsScrollBar(RepaintsChangedRows, ScrollBar):
    """Textual's scroll bar, drawn by :class:`ScrollBarVisual`, whose repaint draws again
    only the rows whose cells changed (Textual's draws all of them each time the view moves
    or grows, and the pane's layout asks for one each time too)."""

    renderer = ScrollBarVisual

    def render_line(self, y: int) -> Strip:
        return self._shown_line(y, super().render_line(y))

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        width, height = self.size
        visual = (self.render() if repaint and not (regions or layout or recompose)
                  and self._shown and self.is_mounted and width and height else None)
        if not isinstance(visual, Visual):
            return super().refresh(*regions, repaint=repaint, layout=layout,
                                   recompose=recompose)
        # The bar's cells are all it draws (its colours too): the rows where they are
        # unchanged hold.
        self.refresh_changed(Visual.to_strips(self, visual, width, height, self.visual_style),
                             width)
        return self
