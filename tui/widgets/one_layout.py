"""One layout pass for a resize, not two.

When a layout pass gives a widget a new size, Textual records it by setting the widget's
``virtual_size``, a reactive that asks for a layout: every pass that grows a streamed
answer (the run, its page, the conversation) was followed by a second pass, in the next
frame, that found nothing to change, and a key typed meanwhile waited for both. The pass that measured the size has already
placed the widget and its children at it, so widgets that mix :class:`SizedInOnePass` in
record their new size without asking for another.
"""

from __future__ import annotations

from textual.geometry import Size


class SizedInOnePass:
    """Mixed into a widget (before it): a new size from a layout pass asks for no other."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        return super()._size_updated(  # type: ignore[misc]
            size, virtual_size, container_size, layout=False)
