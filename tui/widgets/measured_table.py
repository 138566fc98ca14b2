"""A data table whose rows are drawn again when its columns are measured again."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, TypeVar

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

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(new_rows)
        widths = tuple(column.get_render_width(self) for column in self.ordered_columns)
        if widths != self._drawn_widths:
            self._drawn_widths = widths
            self._clear_caches()
            self.refresh()
