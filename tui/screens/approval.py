"""The approval modal: what a tool call will do, and the person's yes, no or edit."""

from __future__ import annotations

import threading
from typing import ClassVar, Literal

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.highlight import highlight
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static, TextArea

from ...core.approval import (
    Allow,
    ApprovalRequest,
    ArgumentDetails,
    CommandDetails,
    Decision,
    Deny,
    EditDetails,
    Previewer,
    RunEdited,
    WriteEdited,
    WriteHunks,
)
from ...core.changes.hunks import Hunk, apply_hunks
from ...core.safety.permission_rules import Scope
from ...core.safety.preview import PreviewCancelled, PreviewUnavailable
from ..outside_text import outside_text, visible
from ..widgets.command_preview import CommandPreviewView
from ..widgets.diff_view import DiffView
from ..widgets.keys_in_order import LineInput, TextEditor
from .edit_text import for_editor, from_editor
from .key_help import KEY_STYLE

Mode = Literal["menu", "deny", "edit", "scope"]
"""What the keys do: choose an answer, type a reason to deny, edit the proposal, or choose
how long "always allow" lasts."""

SCOPE_KEYS: tuple[tuple[str, Scope, str], ...] = (
    ("s", "session", "this session"),
    ("p", "project", "this project"),
    ("u", "user", "every project"),
)
"""The keys that pick how long "always allow" lasts, and what each says."""


class AnswerInInbox:
    """What the modal returns when the person leaves the call for the approval inbox."""

    def __repr__(self) -> str:
        return "ANSWER_IN_INBOX"


ANSWER_IN_INBOX = AnswerInInbox()
"""The modal's answer "not now: show me every call waiting" (``i``)."""

ApprovalAnswer = Decision | AnswerInInbox
"""What the modal returns: the decision, or "answer it in the inbox"."""


class ApprovalScreen(ModalScreen[ApprovalAnswer]):
    """Shows one call that needs approval and returns the person's :data:`Decision`.

    It sees only the request's data (already redacted) and answers with one decision; the
    engine turns it into what runs and what the model is told.

    The body depends on ``request.details``: a command shows with bash colours, where it
    runs and, for a command of several parts, each part with its verdict; an edit a
    side-by-side ``DiffView``; anything else the arguments as JSON. Keys
    (the help line lists them):

    - ``y`` allow once (``Allow()``); ``n`` or ``escape`` deny (``Deny()``).
    - ``a`` allow always (only when there are rules to save): then ``s`` for this session,
      ``p`` for this project or ``u`` for every project (``Allow(scope, rules)``);
      ``escape`` goes back.
    - ``d`` deny with a reason: type it, ``enter`` sends (``Deny(reason)``), ``escape``
      goes back.
    - ``p`` preview a shell or background_process command (given a ``preview``): it runs
      in a sandbox over a scratch copy of the project (no network, time-boxed) in a worker, and a panel shows
      the files it would create, modify or delete with their diffs, and its output; the
      real project is not touched. ``escape`` while it runs stops it. The other keys keep
      working meanwhile.
    - ``e`` edit before running: the command (``enter`` or ``ctrl+s`` runs it:
      ``RunEdited``), or the file's new content (``ctrl+s`` writes it: ``WriteEdited``);
      ``escape`` goes back, dropping the edit.
    - For an edit with hunks to tick (``details.hunks``), each hunk has a tick box, all
      ticked at first: ``space`` ticks or unticks the hunk under the cursor, ``j``/``k``
      move it. With some unticked, ``y`` (and ``a``) write the file with only the ticked
      hunks (``WriteHunks``); with none ticked, ``y`` denies.
    - ``i`` answer later: the call waits in the approval inbox (``AnswerInInbox``).

    Given a ``key_guard``, the modal ignores every key pressed in the first that many
    seconds after it opens (judged by when the key was pressed, so keys that wait while the
    app is busy are ignored too), its key help dimmed and saying so: a modal that opens by
    itself while the person types into the prompt cannot be answered by a key meant for the
    prompt.

    Push it from a worker with ``await app.push_screen_wait(ApprovalScreen(...))``, or with
    ``push_screen(screen, callback)``.
    """

    CSS_PATH = "approval.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "allow_once", "allow once"),
        Binding("a", "allow_always", "always allow"),
        Binding("n", "deny", "deny"),
        Binding("d", "deny_with_reason", "deny with a reason"),
        Binding("e", "edit", "edit first"),
        Binding("escape", "back_or_deny", "deny / back", show=False),
        Binding("ctrl+s", "run_edited", "run the edit", show=False),
        # p previews in the menu and picks "this project" among the scope keys: each
        # binding applies only in its mode (check_action), so the key goes to the one shown.
        Binding("p", "preview", "preview the effect", show=False),
        Binding("s", "remember('session')", "always allow in this session", show=False),
        Binding("p", "remember('project')", "always allow in this project", show=False),
        Binding("u", "remember('user')", "always allow in every project", show=False),
        Binding("space", "toggle_hunk", "tick or untick the hunk", show=False),
        Binding("j", "move_hunk(1)", "next hunk", show=False),
        Binding("k", "move_hunk(-1)", "previous hunk", show=False),
        Binding("i", "to_inbox", "answer later, in the inbox", show=False),
    ]

    mode: reactive[Mode] = reactive("menu", init=False)
    """What the keys do now; shown through the screen's CSS classes."""
    waiting: reactive[int] = reactive(0, init=False)
    """How many more calls wait for approval after this one (shown when above zero)."""
    previewing: reactive[bool] = reactive(False, init=False)
    """A preview of the command is running (shown through the ``-previewing`` class)."""
    guarded: reactive[bool] = reactive(False, init=False)
    """The keys are ignored for now (the key guard; shown through the ``-guarded`` class)."""

    def __init__(self, request: ApprovalRequest, waiting: int = 0,
                 preview: Previewer | None = None, key_guard: float = 0.0) -> None:
        """Ask about ``request``.

        Args:
            request: The call waiting for a yes or no (its ``rules`` are what ``a`` saves;
                without any, ``a`` does nothing).
            waiting: How many more calls wait behind this one.
            preview: Runs the request's command in the preview sandbox (None: no ``p``).
            key_guard: Seconds every key is ignored after the modal opens (0: none).
        """
        kind = request.kind if request.kind in ("execute", "edit") else "info"
        super().__init__(classes=f"-{kind}")
        self.request = request
        self.key_guard = key_guard
        self._keys_from = 0.0  # keys pressed before this time are ignored (the guard)
        self.rules: tuple[str, ...] = request.rules
        self.kind = kind
        self.set_reactive(ApprovalScreen.waiting, waiting)
        details = request.details
        self.edit: EditDetails | None = details if isinstance(details, EditDetails) else None
        """The change, for an edit."""
        self.hunks: list[Hunk] = list(self.edit.hunks) if self.edit else []
        """The edit's hunks when they can be ticked (two or more), else empty."""
        self.ticked: list[bool] = [True] * len(self.hunks)
        """Which hunks will be written."""
        self.hunk_cursor = 0
        """The hunk ``space`` ticks."""
        self.preview = preview if request.preview is not None else None
        self._stop_preview = threading.Event()

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        """The title, the body for the confirmation's kind, the hidden inputs, the keys."""
        request = self.request
        with Vertical(id="dialog"):
            with Horizontal(id="title-bar"):
                yield Label(outside_text(request.tool), id="tool-name")
                # The tag names the tool; a summary such as "shell: ls" or "edit_file app.py"
                # would name it twice.
                summary = _without_tool_name(request.summary, request.tool)
                yield Label(outside_text(summary), id="summary")
                yield Label(self._waiting_text(), id="waiting")
            yield Static(outside_text(f"Needs approval: {request.reason}"), id="why")
            if request.warnings:
                yield Static(outside_text("\n".join(f"⚠ {w}" for w in request.warnings)),
                             id="warnings")
            yield from self._compose_body()
            if self.preview is not None:
                yield CommandPreviewView(id="preview")
            yield LineInput(
                placeholder="Why not? The model reads this. enter sends, esc goes back",
                id="deny-reason")
            yield from self._compose_editor()
            yield Static(self._keys_help(), id="keys")

    def _compose_body(self) -> ComposeResult:
        details = self.request.details
        if isinstance(details, CommandDetails):
            with VerticalScroll(id="command-block"):
                yield Static(highlight(visible(details.command), language="bash"),
                             id="command")
            yield Static(outside_text(f"working dir: {details.working_dir}"), id="working-dir")
            yield from self._compose_parts()
        elif isinstance(details, EditDetails):
            if details.details:
                yield Static(outside_text(details.details), id="details")
            yield DiffView(details.path, details.before, details.after or "", id="diff",
                           hunks=self.hunks or None, hunk_titles=bool(self.hunks))
        elif isinstance(details, ArgumentDetails):
            with VerticalScroll(id="arguments-block"):
                yield Static(highlight(visible(details.arguments), language="json"),
                             id="arguments")

    def _compose_parts(self) -> ComposeResult:
        """Each part of a command of several, with its verdict and why."""
        parts = self.request.parts
        if len(parts) < 2:
            return
        with VerticalScroll(id="parts"):
            for part in parts:
                with Horizontal(classes=f"part -{part.verdict.value}"):
                    yield Label(part.verdict.value, classes="verdict")
                    yield Static(Content.assemble(visible(part.text),
                                                  ("  " + visible(part.reason), "$text-muted")),
                                 classes="part-text")

    def _compose_editor(self) -> ComposeResult:
        if not self.request.editable:
            return
        details = self.request.details
        if isinstance(details, CommandDetails):
            yield LineInput(for_editor(details.command), id="edit-command", select_on_focus=False)
        elif isinstance(details, EditDetails):
            yield TextEditor(for_editor(details.after or ""), id="edit-content", soft_wrap=False,
                             show_line_numbers=True, tab_behavior="focus")

    def _waiting_text(self) -> str:
        return f"{self.waiting} more waiting (F8: inbox)" if self.waiting > 0 else ""

    def _keys_help(self) -> Content:
        """The help for the current mode; "answer later" and "always allow" get lines of
        their own. During the key guard the keys lose their colour and the later line says
        when they work."""
        key_style = "bold" if self.guarded else KEY_STYLE
        lines: list[tuple[str, str]] = []  # more lines, (key, what)
        if self.mode == "scope":
            parts: list[str | tuple[str, str]] = [
                f"Always allow {visible(', '.join(self.rules))} in:\n"]
            for key, _, what in SCOPE_KEYS:
                parts += [(key, key_style), f": {what}  "]
            parts += [("esc", key_style), ": back"]
            return Content.assemble(*parts)
        if self.mode == "deny":
            items = [("enter", "send the reason and deny"), ("esc", "back")]
        elif self.mode == "edit":
            run = "ctrl+s/enter" if self.kind == "execute" else "ctrl+s"
            items = [(run, "run the edited call"), ("esc", "back, dropping the edit")]
        else:
            items = [("y", "allow once"), ("n", "deny"), ("d", "deny with a reason")]
            if self.request.editable:
                items.append(("e", "edit first"))
            if self.previewing:
                items.append(("esc", "stop the preview"))
            else:
                if self.preview is not None:
                    items.append(("p", "preview"))
                items.append(("esc", "deny"))
                guard = f"  (keys work in {self.key_guard:g} s)" if self.guarded else ""
                lines.append(("i", f"answer later, in the approval inbox{guard}"))
            if self.rules:
                lines.append(("a", f"always allow {visible(', '.join(self.rules))} "
                                   "(then pick how long)"))
        # A key and what it does stay on one line: the line breaks between them.
        room = self._keys_room()
        parts = []
        used = 0
        for key, what in items:
            cells = Content(f"{key}: {what}").cell_length
            if parts:
                wraps = room and used + 2 + cells > room
                parts.append("\n" if wraps else "  ")
                used = 0 if wraps else used + 2
            parts += [(key, key_style), f": {what}"]
            used += cells
        for key, what in lines:
            parts += ["\n", (key, key_style), f": {what}"]
        if self.mode == "menu" and self.hunks:
            ticked = sum(self.ticked)
            state = ("all ticked" if ticked == len(self.hunks) else
                     "none ticked: y denies" if not ticked else
                     f"{ticked} of {len(self.hunks)} ticked: y writes only those")
            parts += ["\n", ("space", key_style), ": tick/untick the hunk  ",
                      ("j/k", key_style), f": next/previous hunk  ({state})"]
        return Content.assemble(*parts)

    # ------------------------------------------------------------------ hunks

    def on_mount(self, event: events.Mount) -> None:
        """Word the hunks' tick boxes, and start the key guard."""
        if self.hunks:
            self._show_ticks()
        if self.key_guard > 0:
            self._keys_from = event.time + self.key_guard  # the clock keys are stamped with
            self.guarded = True
            self.set_timer(self.key_guard, self._end_guard)

    def _end_guard(self) -> None:
        self.guarded = False

    def _keys_room(self) -> int:
        """The cells a line of the key help has (0 before the first layout: no limit)."""
        keys = self.query("#keys")
        return keys.first().content_region.width if keys else 0

    def on_resize(self) -> None:
        self.call_after_refresh(self._retell_keys)

    def _retell_keys(self) -> None:
        self.query_one("#keys", Static).update(self._keys_help())

    def on_key(self, event: events.Key) -> None:
        """A key pressed during the key guard does nothing (it was meant for the prompt)."""
        if event.time < self._keys_from:
            event.stop()
            event.prevent_default()

    def watch_guarded(self, guarded: bool) -> None:
        """Dim the key help while the keys are ignored, and retell the keys."""
        self.set_class(guarded, "-guarded")
        self.query_one("#keys", Static).update(self._keys_help())
        self.refresh_bindings()

    def _show_ticks(self) -> None:
        view = self.query_one("#diff", DiffView)
        total = len(self.hunks)
        labels = [
            f"[{'x' if ticked else ' '}] hunk {h.index + 1} of {total} · {h.old_range} → "
            f"{h.new_range}" + ("" if ticked else " · left out")
            for h, ticked in zip(self.hunks, self.ticked, strict=True)
        ]
        view.set_hunk_labels(labels, [i for i, ticked in enumerate(self.ticked) if not ticked])
        view.current_hunk = self.hunk_cursor
        self.query_one("#keys", Static).update(self._keys_help())

    def action_toggle_hunk(self) -> None:
        """Tick or untick the hunk under the cursor."""
        self.ticked[self.hunk_cursor] = not self.ticked[self.hunk_cursor]
        self._show_ticks()

    def action_move_hunk(self, delta: int) -> None:
        """Move the cursor to the next (or previous) hunk and scroll it into view."""
        self.hunk_cursor = max(0, min(len(self.hunks) - 1, self.hunk_cursor + delta))
        self._show_ticks()
        self.query_one("#diff", DiffView).scroll_to_hunk(self.hunk_cursor)

    def _ticked_content(self) -> str:
        """The file's content with only the ticked hunks applied (as the person sees it)."""
        before = self.edit.before if self.edit else ""
        return apply_hunks(before, [h for h, t in zip(self.hunks, self.ticked, strict=True) if t])

    def _kept(self) -> tuple[int, ...] | None:
        """The ticked hunks' indices, or None when every hunk is ticked."""
        if all(self.ticked):
            return None
        return tuple(h.index for h, t in zip(self.hunks, self.ticked, strict=True) if t)

    # ------------------------------------------------------------------ state

    def watch_mode(self, mode: Mode) -> None:
        """Show the input of the mode, focus it, and retell the keys."""
        self.set_class(mode == "deny", "-denying")
        self.set_class(mode == "edit", "-editing")
        self.set_class(mode == "scope", "-scoping")
        self.query_one("#keys", Static).update(self._keys_help())
        if mode == "deny":
            self.query_one("#deny-reason", Input).focus()
        elif mode == "edit":
            editor = self.query_one("#edit-command, #edit-content")
            if isinstance(editor, TextArea) and self.hunks and not all(self.ticked):
                editor.load_text(for_editor(self._ticked_content()))  # what the ticks write
            editor.focus()
            line = next((view.first_change for view in self.query(DiffView)), None)
            if isinstance(editor, TextArea) and line:
                editor.move_cursor((line - 1, 0), center=True)
        elif mode == "menu":
            self.query_one("#deny-reason", Input).value = ""
            self._reset_editor()
            self.focus_next()
        self.refresh_bindings()

    def watch_waiting(self) -> None:
        """Update the count of calls waiting behind this one (once composed)."""
        for label in self.query("#waiting").results(Label):
            label.update(self._waiting_text())

    def _reset_editor(self) -> None:
        details = self.request.details
        for command in self.query("#edit-command").results(Input):
            command.value = for_editor(details.command) \
                if isinstance(details, CommandDetails) else ""
        for content in self.query("#edit-content").results(TextArea):
            content.load_text(for_editor(self.edit.after or "") if self.edit else "")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys work only in their mode; ``a`` needs a rule and ``e`` something to edit."""
        if action in ("allow_once", "deny", "deny_with_reason"):
            return self.mode == "menu"
        if action == "allow_always":
            return self.mode == "menu" and bool(self.rules)
        if action == "remember":
            return self.mode == "scope"
        if action == "edit":
            return self.mode == "menu" and self.request.editable
        if action == "run_edited":
            return self.mode == "edit"
        if action in ("toggle_hunk", "move_hunk"):
            return self.mode == "menu" and bool(self.hunks)
        if action == "preview":
            return self.mode == "menu" and not self.previewing and self.preview is not None
        if action == "to_inbox":
            return self.mode == "menu" and not self.previewing
        return True

    # ------------------------------------------------------------------ answers

    def action_allow_once(self) -> None:
        """Allow this call only (with only the ticked hunks, when some are unticked)."""
        if self.hunks and not any(self.ticked):
            self.dismiss(Deny("every hunk of the change was left out"))
            return
        kept = self._kept()
        self.dismiss(Allow() if kept is None else WriteHunks(kept, len(self.hunks)))

    def action_allow_always(self) -> None:
        """Allow this call and every call the rules match: first ask for how long."""
        if not self.rules:
            return
        if self.hunks and not any(self.ticked):
            self.action_allow_once()  # nothing ticked: the same as denying
            return
        self.mode = "scope"

    def action_remember(self, scope: Scope) -> None:
        """Allow this call and, for ``scope``, every call the rules match."""
        kept = self._kept()
        self.dismiss(Allow(scope, self.rules) if kept is None
                     else WriteHunks(kept, len(self.hunks), scope, self.rules))

    def action_deny(self) -> None:
        """Refuse the call."""
        self.dismiss(Deny())

    def action_deny_with_reason(self) -> None:
        """Ask for the reason the model will read."""
        self.mode = "deny"

    def action_edit(self) -> None:
        """Open the command or the new content for editing."""
        self.mode = "edit"

    def action_to_inbox(self) -> None:
        """Leave the call unanswered and open the approval inbox, with every call waiting."""
        self.dismiss(ANSWER_IN_INBOX)

    def action_back_or_deny(self) -> None:
        """Escape: stop a running preview, back to the keys from an input, else deny."""
        if self.previewing:
            self._stop_preview.set()
        elif self.mode == "menu":
            self.action_deny()
        else:
            self.mode = "menu"

    # ------------------------------------------------------------------ preview

    def action_preview(self) -> None:
        """Run the command in a sandbox over a copy of the project and show its effect."""
        spec = self.request.preview
        if self.preview is None or spec is None:
            return
        self._stop_preview = threading.Event()
        self.previewing = True
        self.query_one(CommandPreviewView).show_running(spec.timeout_s)
        self._preview(self.preview, self._stop_preview)

    @work(exclusive=True, group="preview")
    async def _preview(self, run: Previewer, stop: threading.Event) -> None:
        view = self.query_one(CommandPreviewView)
        try:
            preview = await run(stop)
        except PreviewUnavailable as exc:
            view.show_unavailable(str(exc))
        except PreviewCancelled:
            view.show_stopped()
        else:
            view.show_preview(preview)
        finally:
            self.previewing = False

    def watch_previewing(self, previewing: bool) -> None:
        """Show the preview panel once asked for, and retell the keys."""
        self.set_class(previewing, "-previewing")
        self.add_class("-previewed")
        self.query_one("#keys", Static).update(self._keys_help())
        self.refresh_bindings()

    def on_unmount(self) -> None:
        """An answer given while the preview runs stops it (its thread kills the command)."""
        self._stop_preview.set()

    @on(Input.Submitted, "#deny-reason")
    def _deny_with(self, event: Input.Submitted) -> None:
        event.stop()
        reason = event.value.strip()
        if not reason:
            self.action_deny()
            return
        self.dismiss(Deny(reason))

    @on(Input.Submitted, "#edit-command")
    def _run_edited_command(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run_edited()

    def action_run_edited(self) -> None:
        """Allow the call with the person's edit instead of the model's proposal."""
        if self.kind == "execute":
            details = self.request.details
            original = details.command if isinstance(details, CommandDetails) else ""
            command = from_editor(self.query_one("#edit-command", Input).value, original)
            if not command.strip():
                self.notify("The command is empty: type one, or press esc to go back.",
                            severity="warning")
                return
            self.dismiss(RunEdited(command))
            return
        editor = self.query_one("#edit-content", TextArea)
        original = self._ticked_content() if self.hunks and not all(self.ticked) \
            else (self.edit.after or "") if self.edit else ""
        self.dismiss(WriteEdited(from_editor(editor.text, original)))


def _without_tool_name(summary: str, tool: str) -> str:
    """``summary`` without the tool's name it starts with ("shell: ls", "edit_file a.py")."""
    for separator in (": ", " "):
        if summary.startswith(tool + separator):
            return summary[len(tool) + len(separator):]
    return summary
