"""The approval modal: what a tool call will do, and the person's yes, no or edit."""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.highlight import highlight
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static, TextArea

from agent_tui.core.approval import ApprovalRequest, ApprovalResponse
from agent_tui.tools.files import display_path
from agent_tui.tui.widgets.diff_view import DiffView

Mode = Literal["menu", "deny", "edit"]
"""What the keys do: choose an answer, type a reason to deny, or edit the proposal."""

KEY_STYLE = "bold $accent"
"""How key names stand out in the help line."""


class ApprovalScreen(ModalScreen[ApprovalResponse]):
    """Shows one call that needs approval and returns the person's ``ApprovalResponse``.

    The body depends on ``request.confirmation.kind``: ``execute`` shows the command with
    bash colours and where it runs, ``edit`` a side-by-side ``DiffView``, anything else the
    arguments as JSON. Keys (the help line lists them):

    - ``y`` allow once; ``a`` allow always (only when a ``rule`` was given: the response's
      ``remember`` is that rule); ``n`` or ``escape`` deny.
    - ``d`` deny with a reason: type it, ``enter`` sends, ``escape`` goes back.
    - ``e`` edit before running: the command (``enter`` or ``ctrl+s`` runs it), or the
      file's new content (``ctrl+s`` writes it); ``escape`` goes back, dropping the edit.

    An edited call comes back as ``edited_args``: the invocation's params with ``command``
    (shell) or ``content`` (write_file) replaced. An edited ``edit_file`` comes back as
    ``{"file_path": ..., "content": <the edited full text>, "_as_write": True}``: the
    caller drops ``_as_write`` and runs those arguments as a ``write_file`` call.

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
    ]

    mode: reactive[Mode] = reactive("menu", init=False)
    """What the keys do now; shown through the screen's CSS classes."""
    waiting: reactive[int] = reactive(0, init=False)
    """How many more calls wait for approval after this one (shown when above zero)."""

    def __init__(
        self, request: ApprovalRequest, waiting: int = 0, rule: str | None = None
    ) -> None:
        """Ask about ``request``.

        Args:
            request: The call waiting for a yes or no.
            waiting: How many more calls wait behind this one.
            rule: The exact rule "always allow" saves (e.g. ``shell(git status)``); without
                one the ``a`` key does nothing.
        """
        confirmation = request.confirmation
        kind = confirmation.kind if confirmation else "info"
        if kind not in ("execute", "edit"):
            kind = "info"
        super().__init__(classes=f"-{kind}")
        self.request = request
        self.rule = rule
        self.kind = kind
        self.set_reactive(ApprovalScreen.waiting, waiting)

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        """The title, the body for the confirmation's kind, the hidden inputs, the keys."""
        request = self.request
        with Vertical(id="dialog"):
            with Horizontal(id="title-bar"):
                yield Label(request.invocation.tool.name, id="tool-name")
                yield Label(request.invocation.describe(), id="summary", markup=False)
                yield Label(self._waiting_text(), id="waiting")
            yield Static(f"Needs approval: {request.reason}", id="why", markup=False)
            yield from self._compose_body()
            yield Input(placeholder="Why not? The model reads this. enter sends, esc goes back",
                        id="deny-reason")
            yield from self._compose_editor()
            yield Static(self._keys_help(), id="keys")

    def _compose_body(self) -> ComposeResult:
        confirmation = self.request.confirmation
        ctx = self.request.invocation.ctx
        if self.kind == "execute" and confirmation and confirmation.command is not None:
            with VerticalScroll(id="command-block"):
                yield Static(highlight(confirmation.command, language="bash"), id="command")
            where = confirmation.working_dir or ctx.workdir
            shown = display_path(ctx, where)
            if shown == ".":
                shown = ". (the project folder)"
            yield Static(f"working dir: {shown}", id="working-dir", markup=False)
        elif self.kind == "edit" and confirmation:
            path = display_path(ctx, confirmation.path) if confirmation.path else "(file)"
            if confirmation.details:
                yield Static(confirmation.details, id="details", markup=False)
            yield DiffView(path, confirmation.before or "", confirmation.after or "", id="diff")
        else:
            arguments = json.dumps(self.request.invocation.params.model_dump(), indent=2,
                                   ensure_ascii=False, default=str)
            with VerticalScroll(id="arguments-block"):
                yield Static(highlight(arguments, language="json"), id="arguments")

    def _compose_editor(self) -> ComposeResult:
        confirmation = self.request.confirmation
        if not self._can_edit() or confirmation is None:
            return
        if self.kind == "execute":
            yield Input(confirmation.command or "", id="edit-command", select_on_focus=False)
        else:
            yield TextArea(confirmation.after or "", id="edit-content", soft_wrap=False,
                           show_line_numbers=True, tab_behavior="focus")

    def _waiting_text(self) -> str:
        return f"{self.waiting} more waiting" if self.waiting > 0 else ""

    def _keys_help(self) -> Content:
        """The help for the current mode; "always allow" gets its own line with the rule."""
        rule_line: tuple[str, str] | None = None
        if self.mode == "deny":
            items = [("enter", "send the reason and deny"), ("esc", "back")]
        elif self.mode == "edit":
            run = "ctrl+s/enter" if self.kind == "execute" else "ctrl+s"
            items = [(run, "run the edited call"), ("esc", "back, dropping the edit")]
        else:
            items = [("y", "allow once"), ("n", "deny"), ("d", "deny with a reason")]
            if self._can_edit():
                items.append(("e", "edit first"))
            items.append(("esc", "deny"))
            if self.rule is not None:
                rule_line = ("a", f"always allow {self.rule}")
        parts: list[str | tuple[str, str]] = []
        for key, what in items:
            if parts:
                parts.append("  ")
            parts += [(key, KEY_STYLE), f": {what}"]
        if rule_line is not None:
            parts += ["\n", (rule_line[0], KEY_STYLE), f": {rule_line[1]}"]
        return Content.assemble(*parts)

    # ------------------------------------------------------------------ state

    def watch_mode(self, mode: Mode) -> None:
        """Show the input of the mode, focus it, and retell the keys."""
        self.set_class(mode == "deny", "-denying")
        self.set_class(mode == "edit", "-editing")
        self.query_one("#keys", Static).update(self._keys_help())
        if mode == "deny":
            self.query_one("#deny-reason", Input).focus()
        elif mode == "edit":
            editor = self.query_one("#edit-command, #edit-content")
            editor.focus()
            line = next((view.first_change for view in self.query(DiffView)), None)
            if isinstance(editor, TextArea) and line:
                editor.move_cursor((line - 1, 0), center=True)
        else:
            self.query_one("#deny-reason", Input).value = ""
            self._reset_editor()
            self.focus_next()
        self.refresh_bindings()

    def watch_waiting(self) -> None:
        """Update the count of calls waiting behind this one (once composed)."""
        for label in self.query("#waiting").results(Label):
            label.update(self._waiting_text())

    def _reset_editor(self) -> None:
        confirmation = self.request.confirmation
        if confirmation is None:
            return
        for command in self.query("#edit-command").results(Input):
            command.value = confirmation.command or ""
        for content in self.query("#edit-content").results(TextArea):
            content.load_text(confirmation.after or "")

    def _can_edit(self) -> bool:
        """Whether ``e`` applies: a shell command, or a write_file / edit_file content."""
        confirmation = self.request.confirmation
        params = self.request.invocation.params.model_dump()
        if confirmation is None:
            return False
        if self.kind == "execute":
            return confirmation.command is not None and "command" in params
        if self.kind == "edit":
            return confirmation.after is not None and (
                self.request.invocation.tool.name == "edit_file" or "content" in params
            )
        return False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys work only in their mode; ``a`` needs a rule and ``e`` something to edit."""
        if action in ("allow_once", "deny", "deny_with_reason"):
            return self.mode == "menu"
        if action == "allow_always":
            return self.mode == "menu" and self.rule is not None
        if action == "edit":
            return self.mode == "menu" and self._can_edit()
        if action == "run_edited":
            return self.mode == "edit"
        return True

    # ------------------------------------------------------------------ answers

    def action_allow_once(self) -> None:
        """Allow this call only."""
        self.dismiss(ApprovalResponse(True, "approved once", by="user"))

    def action_allow_always(self) -> None:
        """Allow this call and, from now on, every call the rule matches."""
        if self.rule is None:
            return
        self.dismiss(ApprovalResponse(True, f"always allowed: {self.rule}", by="user",
                                      remember=self.rule))

    def action_deny(self) -> None:
        """Refuse the call."""
        self.dismiss(ApprovalResponse(False, "denied by the user", by="user"))

    def action_deny_with_reason(self) -> None:
        """Ask for the reason the model will read."""
        self.mode = "deny"

    def action_edit(self) -> None:
        """Open the command or the new content for editing."""
        self.mode = "edit"

    def action_back_or_deny(self) -> None:
        """Escape: back to the keys from an input, else deny."""
        if self.mode == "menu":
            self.action_deny()
        else:
            self.mode = "menu"

    @on(Input.Submitted, "#deny-reason")
    def _deny_with(self, event: Input.Submitted) -> None:
        event.stop()
        reason = event.value.strip()
        if not reason:
            self.action_deny()
            return
        self.dismiss(ApprovalResponse(False, f"denied by the user: {reason}", by="user"))

    @on(Input.Submitted, "#edit-command")
    def _run_edited_command(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run_edited()

    def action_run_edited(self) -> None:
        """Allow the call with the person's edit instead of the model's arguments."""
        edited = self._edited_args()
        if edited is None:
            return
        self.dismiss(ApprovalResponse(True, "approved after the user edited it", by="user",
                                      edited_args=edited))

    def _edited_args(self) -> dict[str, Any] | None:
        """The arguments with the edit applied, or None (and a note) for an empty command."""
        params = self.request.invocation.params.model_dump()
        if self.kind == "execute":
            command = self.query_one("#edit-command", Input).value
            if not command.strip():
                self.notify("The command is empty: type one, or press esc to go back.",
                            severity="warning")
                return None
            return {**params, "command": command}
        content = self.query_one("#edit-content", TextArea).text
        if self.request.invocation.tool.name == "edit_file":
            return {"file_path": params["file_path"], "content": content, "_as_write": True}
        return {**params, "content": content}
