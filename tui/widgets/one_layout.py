"""One layout pass for a resize, not two.

When a layout pass gives a widget a new size, Textual records it by setting the widget's
``virtual_size``, a reactive that asks for a layout: every pass that grows a streamed
answer (the run, its page, the conversation) was followed by a second pass, in the next
frame, that found nothing to change, and a key typed meanwhile waited for both. The pass that measured the size has already
placed the widget and its children at it, so widgets that mix :class:`SizedInOnePass` in
record their new size without asking for another.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Region, Size
from textual.strip import Strip


class SizedInOnePass:
    """Mixed into a widget (before it): a new size from a layout pass asks for no other."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        return super()._size_updated(  # type: ignore[misc]
            size, virtual_size, container_size, layout=False)


class RepaintsGrowth:
    """Mixed into a widget (before it): a new height, at the same width, repaints only the
    lines that can differ, not all of them (Textual repaints a resized widget whole; a
    streamed answer's page grows by a line or two a flush, and every row of its frame was
    drawn again, 20 times a second).

    By default the lines above the last one of the shorter height are kept, which holds
    for a framed container (its rows are border and background; the bottom border
    moves). A widget that draws content says how many of its top lines still hold in
    :meth:`_lines_kept`.
    """

    def _lines_kept(self, old: Size, new: Size) -> int:
        """Lines at the top whose drawing is the same at ``new`` as it was at ``old``
        (sizes of the whole widget, border and padding included)."""
        return max(0, min(old.height, new.height) - 1)

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        widget: Any = self
        old = widget._size  # as last laid out (``size`` already reads the new layout)
        kept = (self._lines_kept(old, size)
                if size.width == old.width and size.height != old.height else 0)
        cache = widget._styles_cache
        # Only lines drawn and not marked for drawing again since (a refresh of some lines
        # before this layout marked them).
        saved = {y: strip for y, strip in cache._cache.items()
                 if y < kept and not cache.is_dirty(y)}
        changed: bool = super()._size_updated(  # type: ignore[misc]
            size, virtual_size, container_size, layout)
        if saved:
            cache._cache.update(saved)
            cache._dirty_lines.difference_update(saved)
        return changed


class RepaintsChangedRows:
    """Mixed into a widget (before it): it keeps what each row last gave to be drawn, and
    :meth:`refresh_changed` repaints only the rows whose lines differ from that (Textual
    repaints every row of a widget it is asked to refresh).

    The widget's ``render_line`` passes each line it returns through :meth:`_shown_line`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: dict[int, Strip] = {}
        """What each row last gave to be drawn."""

    def _shown_line(self, y: int, line: Strip) -> Strip:
        """``line``, recorded as what row ``y`` draws."""
        self._shown[y] = line
        return line

    def refresh_changed(self, strips: list[Strip], width: int, layout: bool = False) -> None:
        """Repaint the rows where ``strips`` (the widget's lines, ``width`` wide) differ
        from what they last drew (a layout too when ``layout``)."""
        changed = changed_rows(self._shown, strips, width)
        if changed or layout:
            widget: Any = self
            widget.refresh(*changed, layout=layout)


def changed_rows(shown: dict[int, Strip], strips: list[Strip], width: int) -> list[Region]:
    """The rows where ``strips`` differ from what was ``shown``, as regions ``width`` wide
    of stretches of rows (rows never shown count as changed)."""
    regions: list[Region] = []
    start = -1
    for y, strip in enumerate([*strips, None]):
        before = shown.get(y)
        same = strip is not None and (before is strip or before == strip)
        if not same and start < 0 and strip is not None:
            start = y
        elif (same or strip is None) and start >= 0:
            regions.append(Region(0, start, width, y - start))
            start = -1
    return regions
