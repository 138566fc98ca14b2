"""The diff review screen: every changed file side by side, each hunk accepted or rejected."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...core.changes.file_review import (
    ChangedFile,
    FileReview,
    ReviewError,
    review_note,
)
from ..outside_text import outside_text, visible
from ..widgets.diff_view import DiffView
from ..widgets.keys_in_order import LineInput
from .key_help import key_help

VERDICT_MARK = {"pending": "", "accepted": "✓ ", "rejected": "✗ "}
"""The sign of each verdict in hunk titles and the file list."""

Scope = Literal["hunk", "file"]
"""What a pending rejection covers: the hunk under the cursor, or the whole file."""


class DiffReviewScreen(Screen[str | None]):
    """Every file a session (or one turn) changed, before | after, hunk by hunk.

    Keys (the help line lists them): ``j``/``k`` the next/previous hunk (across files),
    ``n``/``p`` or ``tab``/``shift+tab`` the next/previous file, ``a``/``r`` accept/reject
    the hunk, ``A``/``R`` the whole file, ``q`` or ``escape`` close. ``r`` and ``R`` ask for
    an optional reason first (``enter`` rejects, ``escape`` cancels). A file also changed
    outside the session's turns is marked so, and rejecting in it asks once more, naming
    it (``y`` reverts, ``escape`` keeps it): its hunks may hold changes the session did
    not make.

    A rejection is reverted on disk at once (``a`` on a rejected hunk puts it back); the
    file may have changed since, and a hunk whose lines changed is refused with a message.
    The screen returns the note for the model about what stays rejected (None when nothing
    does), which the caller hands to ``Agent.add_note``.
    """

    CSS_PATH = "diff_review.tcss"
    AUTO_FOCUS = "#diff"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "move(1)", "next hunk", show=False),
        Binding("k", "move(-1)", "previous hunk", show=False),
        Binding("n,tab", "switch_file(1)", "next file", show=False),
        Binding("p,shift+tab", "switch_file(-1)", "previous file", show=False),
        Binding("a", "accept('hunk')", "accept hunk", show=False),
        Binding("r", "ask_reason('hunk')", "reject hunk", show=False),
        Binding("A", "accept('file')", "accept file", show=False),
        Binding("R", "ask_reason('file')", "reject file", show=False),
        Binding("y", "confirm_revert", "revert anyway", show=False),
        Binding("q", "close", "close", show=False),
        Binding("escape", "back_or_close", "back / close", show=False),
    ]

    asking: reactive[Scope | None] = reactive(None, init=False)
    """The rejection waiting for its reason, if any."""

    confirming: reactive[Scope | None] = reactive(None, init=False)
    """The rejection in a file changed outside the session's turns waiting for ``y``."""

    def __init__(self, workdir: Path, changes: Sequence[ChangedFile | FileReview],
                 title: str) -> None:
        """Review ``changes`` of the project in ``workdir``.

        Args:
            workdir: The project folder the changes' paths are relative to.
            changes: The changed files, e.g. ``Checkpoints.changes()``, or their
                ``FileReview``s already built (off the event loop: their hunks take time
                to compute when many or large files changed).
            title: What is reviewed, e.g. "Changes in this session".
        """
        super().__init__(classes="-empty" if not changes else "")
        self.workdir = workdir
        self.reviews = [change if isinstance(change, FileReview) else FileReview(workdir, change)
                        for change in changes]
        self.heading = title
        self.file_index = 0
        self.unit = 0
        self._confirm_reason = ""

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        """The title, the file list, the current file's diff, the reason input, the keys."""
        yield Static(self._title_text(), id="review-title", markup=False)
        files = OptionList(*self._file_options(), id="files")
        files.can_focus = False
        yield files
        with Vertical(id="file-pane"):
            if not self.reviews:
                yield Static("No changes yet.\n\nThe files the agent changes in this "
                             "session appear here; /diff TURN shows one turn's.",
                             id="empty", markup=False)
        yield LineInput(placeholder="Why reject it? Optional; the model reads it. "
                        "enter rejects, esc cancels", id="reason")
        yield Static("", id="confirm", markup=False)
        yield Static(self._keys_help(), id="review-keys")

    async def on_mount(self) -> None:
        """Show the first file."""
        if self.reviews:
            await self._show_file(0)

    @property
    def review(self) -> FileReview:
        """The file under the cursor."""
        return self.reviews[self.file_index]

    def _title_text(self) -> str:
        if not self.reviews:
            return self.heading
        files = len(self.reviews)
        rejected = sum(r.verdicts.count("rejected") for r in self.reviews)
        left = sum(r.verdicts.count("pending") for r in self.reviews)
        parts = [f"{files} file{'s' if files != 1 else ''}",
                 f"file {self.file_index + 1} of {files}"]
        if rejected:
            parts.append(f"{rejected} rejected (reverted)")
        parts.append(f"{left} to review" if left else "all reviewed")
        return f"{self.heading} · {' · '.join(parts)}"

    def _file_options(self) -> list[Option]:
        return [Option(self._file_line(review)) for review in self.reviews]

    @staticmethod
    def _file_line(review: FileReview) -> Content:
        verdicts = review.verdicts
        mark = ("✗" if "rejected" in verdicts else "✓" if "pending" not in verdicts
                else "•" if "accepted" in verdicts else " ")  # • partly reviewed
        counts = [f"{verdicts.count(v)} {v}" for v in ("accepted", "rejected")
                  if v in verdicts]
        if "pending" in verdicts:
            counts.append(f"{verdicts.count('pending')} to review")
        outside = ("  · changed outside this session's turns", "$text-warning") \
            if review.outside else ""
        return Content.assemble(
            (f"{mark} ", "bold"), (visible(review.path), "bold"), f"  {review.summary()}",
            (f"  · {', '.join(counts)}", "$text-muted"), outside)

    def _keys_help(self) -> Content:
        if self.confirming is not None:
            items = [("y", f"revert {visible(self.review.path)} anyway"),
                     ("esc", "keep it as it is")]
        elif self.asking is not None:
            items = [("enter", "reject and revert it now"), ("esc", "cancel")]
        elif not self.reviews:
            items = [("q", "close")]
        else:
            items = [("j/k", "hunk"), ("n/p tab", "file"), ("a/r", "accept/reject hunk"),
                     ("A/R", "whole file"), ("q", "close")]
        keys = key_help(items)
        if self.reviews and self.asking is None and self.confirming is None:
            keys += ("\nRejecting reverts the file on disk at once (a puts a hunk back); "
                     "the model is told what you rejected when you close.")
        return keys

    # ------------------------------------------------------------------ showing

    async def _show_file(self, index: int, unit: int = 0) -> None:
        """Show file ``index`` with hunk ``unit`` current."""
        self.file_index, self.unit = index, unit
        pane = self.query_one("#file-pane", Vertical)
        await pane.remove_children()
        review = self.review
        if review.whole:
            await pane.mount(Static(outside_text(self._whole_text()), id="whole-file"))
            self.set_focus(None)  # the keys belong to the screen, not the hidden input
        else:
            right = f"{review.path} (deleted)" if review.kind == "deleted" else None
            view = DiffView(review.path, review.before_text, review.after_text,
                            hunks=review.hunks, hunk_titles=True, right_title=right, id="diff")
            await pane.mount(view)
            view.focus()
        self.query_one("#files", OptionList).highlighted = index
        self._refresh_marks()
        self.call_after_refresh(self._scroll_to_unit)

    def _whole_text(self) -> str:
        review = self.review
        what = {"binary": "A binary file: its bytes are not shown",
                "symlink": "A symlink",
                "mode": "Only its mode (the executable bit) changed",
                "created": "A new, empty file",
                "deleted": "An empty file was deleted",
                "modified": "Its bytes changed but not the text they read as (the encoding "
                            "or a byte order mark)"}[review.kind]
        verdict = review.verdicts[0]
        state = {"pending": "Not reviewed yet.", "accepted": "Accepted.",
                 "rejected": "Rejected: the old version was put back."}[verdict]
        if verdict == "rejected" and review.reasons[0]:
            state += f" Reason: {review.reasons[0]}"
        outside = ("\n\nIt was also changed outside this session's turns (by hand or by "
                   "another program); rejecting it asks first." if review.outside else "")
        return (f"{review.path}: {review.summary()}\n\n{what}; it is accepted or rejected "
                f"whole (a/A accept, r/R reject).{outside}\n\n{state}")

    def _refresh_marks(self) -> None:
        """Retell the hunk titles, the file list's line, the title and the whole-file text."""
        review = self.review
        for view in self.query("#diff").results(DiffView):
            view.set_hunk_labels(self._hunk_labels(review),
                                 [u for u, v in enumerate(review.verdicts) if v == "rejected"])
            view.current_hunk = self.unit
        for static in self.query("#whole-file").results(Static):
            static.update(outside_text(self._whole_text()))
        files = self.query_one("#files", OptionList)
        files.replace_option_prompt_at_index(self.file_index, self._file_line(review))
        self.query_one("#review-title", Static).update(self._title_text())

    @staticmethod
    def _hunk_labels(review: FileReview) -> list[str]:
        labels = []
        total = len(review.hunks)
        for hunk, verdict, reason in zip(review.hunks, review.verdicts, review.reasons,
                                         strict=True):
            label = (f"{VERDICT_MARK[verdict]}hunk {hunk.index + 1} of {total} · "
                     f"{hunk.old_range} → {hunk.new_range}")
            if verdict != "pending":
                label += f" · {verdict}"
            if verdict == "rejected":
                label += " and reverted" + (f": {reason}" if reason else "")
            labels.append(label)
        return labels

    def _scroll_to_unit(self) -> None:
        for view in self.query("#diff").results(DiffView):
            view.scroll_to_hunk(self.unit)

    # ------------------------------------------------------------------ moving

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While a reason is typed only ``escape`` works; without files only closing."""
        if action == "back_or_close":
            return True
        if self.confirming is not None:
            return action == "confirm_revert"
        if self.asking is not None or action == "confirm_revert":
            return False
        return bool(self.reviews) or action == "close"

    async def action_move(self, delta: int) -> None:
        """The next (or previous) hunk, going on into the next (or previous) file."""
        unit = self.unit + delta
        if 0 <= unit < self.review.units:
            self.unit = unit
            self._refresh_marks()
            self._scroll_to_unit()
            return
        index = self.file_index + delta
        if 0 <= index < len(self.reviews):
            await self._show_file(index, 0 if delta > 0 else self.reviews[index].units - 1)

    async def action_switch_file(self, delta: int) -> None:
        """The next (or previous) file, wrapping around."""
        await self._show_file((self.file_index + delta) % len(self.reviews))

    @on(OptionList.OptionSelected, "#files")
    async def _file_clicked(self, event: OptionList.OptionSelected) -> None:
        if event.option_index != self.file_index:
            await self._show_file(event.option_index)

    # ------------------------------------------------------------------ verdicts

    def _units(self, scope: Scope) -> list[int]:
        return list(range(self.review.units)) if scope == "file" else [self.unit]

    async def action_accept(self, scope: Scope) -> None:
        """Accept the hunk (or file); one rejected before is put back on disk."""
        review = self.review
        if await self._carry_out(review.accept, self._units(scope)):
            await self._after_verdict(scope)

    def action_ask_reason(self, scope: Scope) -> None:
        """Ask for the reason of a rejection (optional) before reverting."""
        self.asking = scope

    def watch_asking(self, scope: Scope | None) -> None:
        """Show the reason input while asking; put the keys back afterwards."""
        self.set_class(scope is not None, "-asking")
        reason = self.query_one("#reason", Input)
        if scope is not None:
            what = "this hunk" if scope == "hunk" else f"every hunk of {self.review.path}"
            reason.placeholder = (f"Why reject {what}? Optional; the model reads it. "
                                  "enter rejects, esc cancels")
            reason.focus()
        else:
            reason.value = ""
            view = next(iter(self.query("#diff").results(DiffView)), None)
            self.set_focus(view)  # never leave the keys to the hidden input
        self.query_one("#review-keys", Static).update(self._keys_help())
        self.refresh_bindings()

    @on(Input.Submitted, "#reason")
    async def _reject_with(self, event: Input.Submitted) -> None:
        event.stop()
        scope = self.asking
        if scope is None:
            return
        self.asking = None
        review = self.review
        if review.outside and any(review.verdicts[u] != "rejected" for u in self._units(scope)):
            self._confirm_reason = event.value
            self.confirming = scope
            return
        if await self._carry_out(review.reject, self._units(scope), event.value):
            await self._after_verdict(scope)

    def watch_confirming(self, scope: Scope | None) -> None:
        """Name the file and what reverting it may undo while waiting for ``y``."""
        self.set_class(scope is not None, "-confirming")
        if scope is not None:
            what = "this hunk of" if scope == "hunk" else "all of"
            self.query_one("#confirm", Static).update(
                f"{visible(self.review.path)} was also changed outside this session's turns "
                f"(by hand or by another program): reverting {what} it may undo those "
                "changes too. y reverts it anyway, esc keeps it as it is.")
        self.query_one("#review-keys", Static).update(self._keys_help())
        self.refresh_bindings()

    async def action_confirm_revert(self) -> None:
        """``y``: reject in the file changed outside the session's turns after all."""
        scope = self.confirming
        if scope is None:
            return
        self.confirming = None
        if await self._carry_out(self.review.reject, self._units(scope), self._confirm_reason):
            await self._after_verdict(scope)

    async def _carry_out(self, verdict: Callable[..., None], units: list[int],
                         *args: str) -> bool:
        """Run ``verdict`` (a FileReview method that touches the disk) off the event loop."""
        try:
            await asyncio.to_thread(verdict, units, *args)
        except ReviewError as error:
            self.notify(visible(error.message), title="Not reverted", severity="error",
                        timeout=10, markup=False)
            return False
        return True

    async def _after_verdict(self, scope: Scope) -> None:
        """Retell the marks and go on to the next hunk left to review, if there is one."""
        self._refresh_marks()
        after = self.unit + 1 if scope == "hunk" else self.review.units
        for index in range(self.file_index, len(self.reviews)):
            verdicts = self.reviews[index].verdicts
            start = after if index == self.file_index else 0
            unit = next((u for u in range(start, len(verdicts)) if verdicts[u] == "pending"),
                        None)
            if unit is None:
                continue
            if index == self.file_index:
                self.unit = unit
                self._refresh_marks()
                self._scroll_to_unit()
            else:
                await self._show_file(index, unit)
            return

    # ------------------------------------------------------------------ closing

    def action_back_or_close(self) -> None:
        """Escape: cancel the reason being typed or the revert to confirm, else close."""
        if self.confirming is not None:
            self.confirming = None
        elif self.asking is not None:
            self.asking = None
        else:
            self.action_close()

    def action_close(self) -> None:
        """Close, returning the note about the rejections for the model."""
        rejections = [r for review in self.reviews if (r := review.rejection()) is not None]
        self.dismiss(review_note(rejections))
