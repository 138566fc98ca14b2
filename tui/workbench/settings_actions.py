"""The front session's settings: changed for the rest of the session, reloaded when a
config file changes, the approval mode, and the first model when none is configured."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ...core.config import APPROVAL_MODES, CheckedSettings, ConfigError
from ..outside_text import visible
from . import NO_MODEL

if TYPE_CHECKING:
    from ...core.approval import RememberedRules


class SettingsActions:
    """``/mode``, ``/net``, ``/model``…, Shift+Tab, and config files read again.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`).
        changes: Settings already changed for this session (the ``--agent`` persona's);
            kept, as /mode's changes are, when config.toml is read again.
    """

    def __init__(self, app: Any, changes: dict[str, Any] | None = None) -> None:
        self.app = app
        self.changes: dict[str, Any] = dict(changes or {})
        """What the person changed in this session."""

    def update(self, **changes: Any) -> None:
        """Change settings for the rest of the session (the agent's too)."""
        app = self.app
        self.changes.update(changes)
        app.settings = app.settings.model_copy(update=changes)
        if app.agent is not None:
            app.agent.settings = app.settings

    def reload(self) -> None:
        """Read the config files again (one changed), keeping the flags and what the person
        changed in this session (/mode, /net, /model…); an invalid file keeps the old
        settings and says why."""
        from ...core.config import read_settings

        app = self.app
        first = app._first_frame_settings
        flags = first.flags if isinstance(first, CheckedSettings) else {}
        try:
            settings = read_settings(app.workdir, flags).validate()
        except ConfigError as exc:
            app.notice(f"config.toml not reloaded: {exc}", error=True)
            return
        # The session keeps its model: a new one in the file applies to the next session.
        kept = {**self.changes, "model": app.settings.model}
        app.settings = settings.model_copy(update=kept)
        if app.agent is not None:
            app.agent.settings = app.settings
        from .config_actions import apply_live

        for name in ("vi_mode", "approval_mode", "network"):  # shown on screen
            apply_live(app, name, getattr(app.settings, name))

    def set_mode(self, mode: str) -> None:
        """Switch the approval mode for the rest of the session."""
        self.update(approval_mode=mode)
        self.app.status.mode = mode
        self.app.notify(f"Approval mode: {visible(mode)}", markup=False, timeout=2)

    def cycle_mode(self) -> None:
        """Shift+Tab: default -> auto-edit -> plan -> yolo -> default."""
        current = APPROVAL_MODES.index(self.app.settings.approval_mode)
        self.set_mode(APPROVAL_MODES[(current + 1) % len(APPROVAL_MODES)])

    def remember_rules(self, saved: RememberedRules) -> None:
        """Rules the person chose to remember apply until agent-tui exits, saved or not; a
        new agent (/model) keeps them."""
        allowed = self.app.settings.allow_rules
        fresh = [rule for rule in saved.rules if rule not in allowed]
        self.update(allow_rules=[*allowed, *fresh])

    def offer_setup(self) -> None:
        """No model is configured: ask for one and save the answer to the user config."""
        self.app.run_worker(self._setup(), exclusive=True, group="setup", exit_on_error=False)

    async def _setup(self) -> None:
        # The engine and the setup screen load on demand: the first frame must not wait.
        from ...core.model_setup import save_setup
        from ..screens.setup import SetupScreen

        app = self.app
        choice = await app.push_screen_wait(SetupScreen())
        if choice is None:
            app.notice(NO_MODEL, error=True)
            return
        try:
            saved = f"saved to {await asyncio.to_thread(save_setup, choice)}"
        except (OSError, ValueError) as exc:
            saved = f"not saved ({exc}); it lasts for this session only"
        self.update(model=choice.model, api_base=choice.api_base, api_key_env=choice.key_env)
        app.status.model = choice.model
        app.agent = None  # the next turn builds one with the new settings
        if app.opened is not None:  # opened before setup, its header names no model
            await asyncio.to_thread(app.opened.store.record_model, choice.model)
        app.notice(f"Model: {choice.model}, {saved}.")
