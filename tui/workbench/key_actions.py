"""What the workbench's keys do: the actions its key bindings (``AgentApp.BINDINGS``) name.

:class:`KeyActions` is mixed into :class:`~agent_tui.tui.app.AgentApp`, where Textual looks
actions up; each one hands over to the part of the workbench that does the work (the turn,
the prompt box, the session actions, the approver, the side panel).
"""

from __future__ import annotations

import time

from textual.actions import SkipAction

from ..widgets.panels import SidePanel
from ..widgets.prompt import PromptInput

QUIT_AGAIN_WITHIN_S = 1.0
"""Seconds within which a second Ctrl+C on an idle, empty prompt quits."""


class KeyActions:
    """The workbench's key actions (a mixin of the app: ``self`` is the app)."""

    _quit_pressed_at = -QUIT_AGAIN_WITHIN_S

    def action_cancel_turn(self) -> None:
        """Esc: cancel the running turn (stream and tools); when idle, back to the prompt."""
        if self.busy:
            self.workers.cancel_group(self, "turn")
        else:
            self.query_one(PromptInput).focus()

    def action_interrupt(self) -> None:
        """Ctrl+C, as in other terminal agents: cancel the running turn; idle, clear the
        prompt; idle with an empty prompt, a second press within a second quits.

        Over another screen (a modal, the session browser) the key is that screen's.
        """
        if len(self.screen_stack) > 1:
            raise SkipAction()
        if self.busy:
            self.workers.cancel_group(self, "turn")
            self.notify("Cancelled the turn.", timeout=2)
            return
        prompt = self.query_one(PromptInput)
        if prompt.text:
            prompt.clear()
            prompt.focus()
            self.notify("Cleared the prompt.", timeout=2)
            return
        now = time.monotonic()
        if now - self._quit_pressed_at <= QUIT_AGAIN_WITHIN_S:
            self.exit()
            return
        self._quit_pressed_at = now
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_AGAIN_WITHIN_S)

    async def action_show_keys(self) -> None:
        """F1 (or ``?`` in the empty prompt): the keys and slash commands (as ``/help``)."""
        await self.run_slash_command("/help")

    async def action_focus_conversation(self) -> None:
        """Ctrl+Up: from the prompt to the newest block; j/k then move between blocks."""
        await self.conversation.action_focus_previous_block()

    def action_cycle_mode(self) -> None:
        """Shift+Tab: default -> auto-edit -> plan -> yolo -> default."""
        self.settings_actions.cycle_mode()

    def action_open_inbox(self) -> None:
        """F8: every call of every session waiting for approval (as ``/inbox``)."""
        self.approver.open_inbox()

    def action_switch_sessions(self) -> None:
        """F9: the open sessions, front and background; bring one to the front."""
        from ..screens.session_switcher import SessionSwitcher

        self.push_screen(SessionSwitcher(self.background), self._switch_chosen)

    async def _switch_chosen(self, session_id: str | None) -> None:
        if session_id is not None and session_id != self.session_id:
            if await self.background.bring_to_front(session_id):
                self.notify(f"Now in front: session {session_id}.", markup=False, timeout=3)

    def action_browse_sessions(self) -> None:
        """Ctrl+R: the session browser (as ``/sessions``)."""
        self.sessions.browse()

    async def action_review_changes(self) -> None:
        """F7: review the files this session changed (as ``/diff``)."""
        await self.changes.review()

    def action_toggle_side(self) -> None:
        self.query_one(SidePanel).toggle()

    def action_toggle_tool_log(self) -> None:
        self.query_one("#tool-log").toggle_class("hidden")

    def action_toggle_todos(self) -> None:
        self.query_one("#todo-section").toggle_class("hidden")

    def action_resize_side(self, delta: int) -> None:
        self.query_one(SidePanel).resize(delta)
