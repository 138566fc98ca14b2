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

    SHORTEST_FITTED_COLUMN = 12
    """The fitted column's width when the others leave less room (the table scrolls then)."""

    def __init__(self, *args: Any, fitted_column: int | None = None, **kwargs: Any) -> None:
        """``fitted_column``: the index of a column (-1: the last) that takes the width the
        others leave, so a long cell (a prompt, a preview, a call's arguments) ends in … at
        its edge instead of pushing the table past the screen; give its cells as
        ``Text(..., overflow="ellipsis", no_wrap=True)``."""
        super().__init__(*args, **kwargs)
        self.fitted_column = fitted_column

    def on_resize(self) -> None:
        if self.fitted_column is not None:
            self._update_dimensions(())

    def _fit_column(self) -> None:
        """Give the fitted column the room the other columns leave."""
        if self.fitted_column is None or not self.columns or not self.size.width:
            return
        columns = self.ordered_columns
        fitted = columns[self.fitted_column]
        used = sum(column.get_render_width(self) for column in columns if column is not fitted)
        room = self.scrollable_content_region.width - used - 2 * self.cell_padding
        width = max(self.SHORTEST_FITTED_COLUMN, room)
        if fitted.auto_width or fitted.width != width:
            fitted.auto_width = False
            fitted.width = width
            self.virtual_size = Size(used + fitted.get_render_width(self),
                                     self.virtual_size.height)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(new_rows)
        self._fit_column()
        widths = tuple(column.get_render_width(self) for column in self.ordered_columns)
        if widths != self._drawn_widths:
            self._drawn_widths = widths
            self._clear_caches()
            self.refresh()
