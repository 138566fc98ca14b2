"""A data table whose rows are drawn again when its columns are measured again."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, TypeVar

from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets._data_table import RowKey

CellType = TypeVar("CellType")


class MeasuredTable(DataTable[CellType], Generic[CellType]):
    """A ``DataTable`` that never shows a row cut at widths its columns no longer have.

    Textual measures new and changed cells when the table is idle, and caches drawn cells by
    their content, not their width: a frame that drew a row before that moment (a call that
    started and ended between two idle moments, a list refilled while shown) kept the row
    cut at the old widths until something else changed.
    """

    _drawn_widths: tuple[int, ...] = ()

    SHORTEST_LAST_COLUMN = 12
    """The last column's width when the others leave less room (the table scrolls then)."""

    def __init__(self, *args: Any, fit_last_column: bool = False, **kwargs: Any) -> None:
        """``fit_last_column``: the last column takes the width the others leave, so a long
        cell (a prompt, a preview) ends in … at the table's edge instead of running past it;
        give such cells as ``Text(..., overflow="ellipsis", no_wrap=True)``."""
        super().__init__(*args, **kwargs)
        self.fit_last_column = fit_last_column

    def on_resize(self) -> None:
        if self.fit_last_column:
            self._update_dimensions(())

    def _fit_last_column(self) -> None:
        """Give the last column the room the other columns leave."""
        if not self.fit_last_column or not self.columns or not self.size.width:
            return
        *others, last = self.ordered_columns
        used = sum(column.get_render_width(self) for column in others)
        room = self.scrollable_content_region.width - used - 2 * self.cell_padding
        width = max(self.SHORTEST_LAST_COLUMN, room)
        if last.auto_width or last.width != width:
            last.auto_width = False
            last.width = width
            self.virtual_size = Size(used + last.get_render_width(self),
                                     self.virtual_size.height)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(new_rows)
        self._fit_last_column()
        widths = tuple(column.get_render_width(self) for column in self.ordered_columns)
        if widths != self._drawn_widths:
            self._drawn_widths = widths
            self._clear_caches()
            self.refresh()
