"""agent-tui's own Textual themes and the app stylesheet (``app.tcss`` beside this file)."""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

STYLESHEET = Path(__file__).with_name("app.tcss")

DARK = Theme(
    name="agent-tui-dark",
    primary="#5FA8D3",
    secondary="#8E7DBE",
    accent="#F2A65A",
    foreground="#D8DEE9",
    background="#14171C",
    surface="#1B1F26",
    panel="#262B34",
    success="#7FB77E",
    warning="#E5C07B",
    error="#E06C75",
    dark=True,
)

LIGHT = Theme(
    name="agent-tui-light",
    primary="#1F6FB2",
    secondary="#6A4C93",
    accent="#C2571A",
    foreground="#1D232B",
    background="#F7F7F4",
    surface="#EEEEE9",
    panel="#DCDDD6",
    success="#2E7D32",
    warning="#9A6B00",
    error="#B3261E",
    dark=False,
)

HIGH_CONTRAST = Theme(
    name="agent-tui-high-contrast",
    primary="#00FFFF",
    secondary="#FFFF00",
    accent="#FF00FF",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#1A1A1A",
    success="#00FF00",
    warning="#FFFF00",
    error="#FF3030",
    dark=True,
)

THEMES: tuple[Theme, ...] = (DARK, LIGHT, HIGH_CONTRAST)
