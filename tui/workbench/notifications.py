"""Telling a person who looks elsewhere that the agent finished or waits for them.

When a turn ends or a call waits for approval while the terminal is not focused (Textual's
``app_focus``, from the terminal's focus reports), :class:`AwayNotifier` rings the bell
(``notify_bell``), writes a terminal notification (``notify_terminal``: OSC 9, as iTerm2,
WezTerm and kitty show it, or OSC 777, as Ghostty, foot, rxvt, Windows Terminal and VTE
terminals do) and runs ``notify-send`` (``notify_desktop``) where it is installed and a
desktop is there. Each says which session and what happened.

The sequences go through Textual's driver, as its own bell does: its writer thread sends
them between two frames, never inside one. Under tmux they are wrapped in tmux's
passthrough (``ESC P tmux; … ESC \\``), which tmux 3.3 and later forward when
``allow-passthrough`` is on and drop silently otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...core.text.visible_text import visible

if TYPE_CHECKING:
    from ...core.approval import ApprovalRequest

APP_NAME = "agent-tui"
BODY_WIDTH = 160
"""Characters of a notification's body kept (a long command is cut with …)."""
DESKTOP_TIMEOUT_S = 10.0
"""How long ``notify-send`` may take before it is stopped (a hung D-Bus must not pile up)."""

_OSC9_TERMINALS = ("iTerm.app", "WezTerm")
"""``$TERM_PROGRAM`` values of terminals that show OSC 9."""


def terminal_protocol(setting: str, env: Mapping[str, str]) -> str | None:
    """Which terminal notification to write: ``osc9``, ``osc777`` or None (none).

    ``auto`` picks by the environment the terminal sets, as Claude Code's
    ``preferredNotifChannel`` does, and writes nothing for a terminal it does not know (an
    unknown OSC may show up as garbage there). Under tmux, ``$TERM_PROGRAM`` names tmux, so
    the variables terminals set and tmux keeps (``LC_TERMINAL``, ``KITTY_WINDOW_ID``,
    ``WT_SESSION``, ``VTE_VERSION``…) decide.

    Args:
        setting: ``notify_terminal``: ``auto``, ``osc9``, ``osc777`` or ``off``.
        env: The environment (``os.environ``).
    """
    if setting in ("osc9", "osc777"):
        return setting
    if setting != "auto":
        return None
    program = env.get("TERM_PROGRAM", "")
    term = env.get("TERM", "")
    if (
        program in _OSC9_TERMINALS
        or env.get("LC_TERMINAL") == "iTerm2"
        or "WEZTERM_PANE" in env
        or term == "xterm-kitty"
        or "KITTY_WINDOW_ID" in env
    ):
        return "osc9"
    # Windows Terminal reads OSC 9 as ConEmu's commands (progress, folder), not a
    # notification; it shows OSC 777.
    if (
        program == "ghostty"
        or term == "xterm-ghostty"
        or "GHOSTTY_RESOURCES_DIR" in env
        or term.startswith(("foot", "rxvt"))
        or "WT_SESSION" in env
        or "VTE_VERSION" in env
    ):
        return "osc777"
    return None


def one_line(text: str, width: int = BODY_WIDTH) -> str:
    """``text`` safe inside an escape sequence and a notification: one line, no control
    character (a model's argument could otherwise end the sequence and start its own), cut
    to ``width`` with …."""
    text = " ".join(visible(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def osc_sequence(protocol: str, title: str, body: str, *, tmux: bool = False) -> str:
    """The notification as ``protocol`` writes it, wrapped for tmux's passthrough if ``tmux``.

    OSC 9 carries one text (``title: body``); OSC 777 a title and a body, split at the
    first ``;`` (so the title has none).
    """
    if protocol == "osc9":
        sequence = f"\x1b]9;{one_line(f'{title}: {body}')}\x07"
    else:
        sequence = f"\x1b]777;notify;{one_line(title).replace(';', ',')};{one_line(body)}\x07"
    if tmux:
        return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    return sequence


def desktop_command(title: str, body: str, env: Mapping[str, str]) -> list[str] | None:
    """The ``notify-send`` command for the notification, or None when it would show nowhere:
    not installed, or no desktop (no ``$DISPLAY`` or ``$WAYLAND_DISPLAY``: over SSH it
    would fail, or show on another person's screen)."""
    if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        return None
    program = shutil.which("notify-send", path=env.get("PATH"))
    if program is None:
        return None
    return [program, f"--app-name={APP_NAME}", one_line(title), one_line(body)]


class AwayNotifier:
    """The workbench's notifications while the person looks elsewhere.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`).
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    def turn_ended(self, session_id: str = "", outcome: str = "done") -> None:
        """A prompt of ``session_id`` (default: the front one) ended with ``outcome``
        (``done``, ``failed``, ``cancelled``)."""
        what = {"failed": "Turn failed", "cancelled": "Turn cancelled"}.get(
            outcome, "Turn finished"
        )
        self.tell(what, session_id)

    def approval_needed(self, request: ApprovalRequest, session_id: str = "") -> None:
        """A call of ``session_id`` (default: the front one) waits for approval;
        ``request.summary`` (``shell: rm -r build``) says which."""
        self.tell(f"Waits for approval: {request.summary}", session_id)

    def tell(self, what: str, session_id: str = "") -> None:
        """Notify, if the terminal is not focused, that ``what`` happened in ``session_id``
        (default: the front one); the front session's news is also a toast in the workbench
        (a background session's has its own)."""
        app = self.app
        if app.app_focus:
            return
        settings = app.settings
        title = f"{APP_NAME}: {app.workdir.name or app.workdir}"
        body = f"{what} ({self.session_label(session_id)})"
        env = os.environ
        protocol = terminal_protocol(settings.notify_terminal, env)
        written = "\x07" if settings.notify_bell else ""
        if protocol is not None:
            written += osc_sequence(protocol, title, body, tmux="TMUX" in env)
        # Textual has no public write; its own bell() writes through the driver too.
        if written and app._driver is not None:
            app._driver.write(written)
        # One notification, not two: a terminal picked by "auto" shows it already.
        if settings.notify_desktop and not (protocol and settings.notify_terminal == "auto"):
            if (command := desktop_command(title, body, env)) is not None:
                app.run_worker(_run_quietly(command), group="desktop-notify", exit_on_error=False)
        if not session_id or session_id == app.session_id:
            app.notify(f"{what}.", markup=False, timeout=5)

    def session_label(self, session_id: str) -> str:
        """How a notification names the session: its first prompt, else its id."""
        app = self.app
        if not session_id or session_id == app.session_id:
            title = app.front.title
            session_id = app.session_id
        else:
            session = app.background.sessions.get(session_id) if "background" in vars(app) else None
            title = session.title if session is not None else ""
        return f"“{title}”" if title else f"session {session_id}"


async def _run_quietly(command: list[str]) -> None:
    """Run ``command`` without its output, in its own process group; give up on failure
    (the notification is a courtesy) and after :data:`DESKTOP_TIMEOUT_S`."""
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return
    try:
        await asyncio.wait_for(process.wait(), DESKTOP_TIMEOUT_S)
    except TimeoutError:
        _kill_group(process.pid)
        await process.wait()
    except asyncio.CancelledError:  # the app is closing
        _kill_group(process.pid)
        raise


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
